#include <tpu/dma.h>
using namespace tpu;
void k(Ref<float> a, Ref<float> b, DmaSemaphore s) {
  auto d = make_async_copy(a, b, s);
  if (d.is_remote()) {
    d.wait_send(
