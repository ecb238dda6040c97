// CHECKS: -*,dma-*
//
// The first kernels of docs/pallas/tpu/distributed.md ("Distributed Computing
// in Pallas for TPUs"): the right permute (lax.ppermute with n -> n + 1),
// where every device sends its shard to its right ring neighbour with one
// remote copy, started and waited with wait() (send side, then receive
// side); and the four-device example of the RDMA model, where device 0 sends
// to 1 and devices 2 and 3 swap: a sender starts its copy and waits only its
// send side, a receiver only its receive side, in device-dependent branches
// (in SPMD every device builds every descriptor). Exercises: wait() on a
// remote copy; wait_recv() on a remote copy whose send semaphore the kernel
// waits in another branch (wait_send() of the same descriptor), which is not
// dma-send-never-waited's case; mesh device ids from axis_index. Expected: no
// diagnostics.

#include <tpu/dma.h>

#include <cstdint>

using namespace tpu;

void right_permute_kernel(Ref<float> input_ref, Ref<float> output_ref,
                          DmaSemaphore send_sem, DmaSemaphore recv_sem) {
  const std::int32_t my_id = axis_index("x");
  const std::int32_t right_neighbour = (my_id + 1) % axis_size("x");
  AsyncCopyDescriptor remote_copy_op = make_async_remote_copy(
      input_ref, output_ref, send_sem, recv_sem, DeviceId{right_neighbour},
      DeviceIdType::kMesh);
  remote_copy_op.start();
  remote_copy_op.wait();
}

// Device 0 -> 1, and 2 <-> 3, on a mesh of four devices along "x".
void rdma_pairs_kernel(Ref<float> input_ref, Ref<float> output_ref,
                       DmaSemaphore send_sem, DmaSemaphore recv_sem) {
  const std::int32_t my_id = axis_index("x");
  auto copy_0_to_1 = make_async_remote_copy(input_ref, output_ref, send_sem,
                                            recv_sem, DeviceId{1});
  auto copy_2_to_3 = make_async_remote_copy(input_ref, output_ref, send_sem,
                                            recv_sem, DeviceId{3});
  auto copy_3_to_2 = make_async_remote_copy(input_ref, output_ref, send_sem,
                                            recv_sem, DeviceId{2});
  if (my_id == 0) {
    copy_0_to_1.start();
    copy_0_to_1.wait_send();
  } else if (my_id == 1) {
    copy_0_to_1.wait_recv();
  } else if (my_id == 2) {
    copy_2_to_3.start();
    copy_2_to_3.wait_send();
    copy_3_to_2.wait_recv();
  } else {
    copy_3_to_2.start();
    copy_3_to_2.wait_send();
    copy_2_to_3.wait_recv();
  }
}
