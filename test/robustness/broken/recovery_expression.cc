#include <tpu/dma.h>
#include <vector>
using namespace tpu;
void k(Ref<float> a, Ref<float> b, DmaSemaphore s) {
  std::vector<AsyncCopyDescriptor> v;
  v.push_back(make_async_copy(a, b, s, 42));
  for (auto &d : v)
    d.wait_send(d.missing_member);
}
