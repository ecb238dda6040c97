// The headline bug: generic pipelining code waits the send side of every DMA
// it issued, but one of them is a local copy, which has no send side (Pallas:
// "Cannot `wait_send` on a local copy."). dmalint: dma-wait-send-on-local-copy.
#include <tpu/dma.h>

#include <cstdint>
#include <vector>

using namespace tpu;

void pipelined_step(Ref<float> hbm, Ref<float> vmem, Ref<float> peer_buf,
                    DmaSemaphore local_sem, DmaSemaphore send_sem,
                    DmaSemaphore recv_sem) {
  const std::int32_t right = (axis_index("x") + 1) % axis_size("x");

  std::vector<AsyncCopyDescriptor> issued;
  issued.push_back(make_async_copy(hbm, vmem, local_sem));  // local staging
  issued.push_back(make_async_remote_copy(hbm, peer_buf, send_sem, recv_sem,
                                          DeviceId{right}));  // to the right
  for (AsyncCopyDescriptor& d : issued) d.start();

  for (AsyncCopyDescriptor& d : issued) d.wait_send();  // BUG: local copy too
  for (AsyncCopyDescriptor& d : issued) d.wait_recv();
}
