#include <tpu/dma.h>
using namespace tpu;
struct Pending;
void k(Ref<float> a, Ref<float> b, DmaSemaphore s, Pending &p) {
  AsyncCopyDescriptor d = p.descriptor;
  d.wait_send();
}
