// CHECKS: -*,dma-*
//
// The right permute and the four-device RDMA example of
// docs/pallas/tpu/distributed.md; a copy of right_permute.cc with one planted
// bug, the over-applied fix of "Cannot `wait_send` on a local copy": the
// permute's copy was finished with wait_send() + wait_recv(), someone met the
// error on a local copy elsewhere and replaced wait_send() by wait_recv()
// everywhere, then dropped the duplicate. But this copy IS remote: nothing in
// the kernel waits its send semaphore, which is still signalled when the
// kernel exits (a crash on hardware). dma-send-never-waited reports the
// wait_recv(), with the fix-it wait_recv() -> wait().

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
  remote_copy_op.wait_recv();
  // CHECK-MESSAGES: :[[@LINE-1]]:{{[0-9]+}}: warning: {{.*}} [dma-send-never-waited]
  // CHECK-FIXES: {{^}}  remote_copy_op.wait();{{$}}
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
