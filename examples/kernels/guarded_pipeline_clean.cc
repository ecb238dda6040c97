// Clean: the fixed version of wait_send_local.cc. The generic drain waits the
// send side only of remote DMAs, and a copy chosen by a ternary is waited under
// the same condition that made it remote. No findings.
#include <tpu/dma.h>

#include <cstdint>
#include <vector>

using namespace tpu;

void pipelined_step(Ref<float> hbm, Ref<float> vmem, Ref<float> peer_buf,
                    DmaSemaphore local_sem, DmaSemaphore send_sem,
                    DmaSemaphore recv_sem) {
  const std::int32_t my_id = axis_index("x");
  const std::int32_t n = axis_size("x");
  const std::int32_t right = (my_id + 1) % n;

  std::vector<AsyncCopyDescriptor> issued = {
      make_async_copy(hbm, vmem, local_sem),
      make_async_remote_copy(hbm, peer_buf, send_sem, recv_sem, DeviceId{right})};
  for (AsyncCopyDescriptor& d : issued) d.start();
  for (AsyncCopyDescriptor& d : issued) {
    if (d.is_remote()) d.wait_send();
    d.wait_recv();
  }

  // The last device keeps its result; the others forward it.
  const bool forward = my_id + 1 < n;
  AsyncCopyDescriptor out =
      forward ? make_async_remote_copy(vmem, peer_buf, send_sem, recv_sem, DeviceId{right})
              : make_async_copy(vmem, hbm, local_sem);
  out.start();
  if (forward) out.wait_send();
  out.wait_recv();
}
