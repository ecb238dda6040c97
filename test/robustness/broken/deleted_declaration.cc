#include <tpu/dma.h>
using namespace tpu;
void helper(AsyncCopyDescriptor &d) = delete;
struct NoCopy { NoCopy(const NoCopy &) = delete; AsyncCopyDescriptor d; };
void k(Ref<float> a, Ref<float> b, DmaSemaphore s, NoCopy &n) {
  auto d = make_async_copy(a, b, s);
  helper(d);
  NoCopy copy = n;
  copy.d.wait_send();
}
