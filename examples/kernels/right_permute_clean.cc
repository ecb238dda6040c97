// Clean: the right-permute kernel of the Pallas TPU distributed tutorial
// (docs/pallas/tpu/distributed.md), plus a blocking local copy. wait() is
// legal on any copy; wait_send is only used on the remote one. No findings.
#include <tpu/dma.h>

#include <cstdint>

using namespace tpu;

void right_permute_kernel(Ref<float> input, Ref<float> output,
                          Ref<float> staging, DmaSemaphore local_sem,
                          DmaSemaphore send_sem, DmaSemaphore recv_sem) {
  const std::int32_t my_id = axis_index("x");
  const std::int32_t right = (my_id + 1) % axis_size("x");

  async_copy(input, staging, local_sem).wait();  // local: wait() is fine

  AsyncCopyDescriptor remote = make_async_remote_copy(
      staging, output, send_sem, recv_sem, DeviceId{right},
      DeviceIdType::kMesh);
  remote.start();
  remote.wait_send();  // remote: has a send side
  remote.wait_recv();
}
