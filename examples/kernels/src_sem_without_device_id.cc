// The general constructor with a source semaphore but no device id (Pallas:
// "Either both or neither `src_sem` and `device_id` can be set.").
// dmalint: dma-src-sem-device-id-mismatch.
#include <tpu/dma.h>

#include <cstdint>

using namespace tpu;

void right_permute(Ref<float> input, Ref<float> output, DmaSemaphore send_sem,
                   DmaSemaphore recv_sem, Semaphore barrier_sem) {
  const std::int32_t my_id = axis_index("x");
  const std::int32_t n = axis_size("x");
  const std::int32_t left = (my_id - 1 + n) % n;

  // Our right neighbour must have entered the kernel before we write to it.
  semaphore_signal(barrier_sem, 1, DeviceId{left});
  semaphore_wait(barrier_sem, 1);

  // Meant to be a remote copy to the right neighbour, but the device id was
  // left out. Fix: add DeviceId{(my_id + 1) % n} after send_sem.
  AsyncCopyDescriptor copy(input, output, recv_sem, send_sem);  // BUG
  copy.start();
  copy.wait();
}
