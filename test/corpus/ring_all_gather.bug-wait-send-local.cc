// CHECKS: -*,dma-*
//
// Ring all-gather with a planted bug; a copy of ring_all_gather.cc (after
// ag_kernel in jax/experimental/pallas/ops/tpu/all_gather.py). The author
// rewrote the initial copy of the device's own shard as a named descriptor and
// finished it with the same wait_send/wait_recv pair that the remote hops use.
// But the initial copy is a local HBM copy (async_copy: no device id, no
// source semaphore), so it has no send side: Pallas raises "Cannot `wait_send`
// on a local copy." at trace time. Expected: one dma-wait-send-on-local-copy
// warning (definite) at the wait_send; nothing else.

#include <tpu/dma.h>

#include <cassert>
#include <cstdint>
#include <optional>

using namespace tpu;

namespace {

constexpr const char* kAxis = "x";

// Mesh index of a ring neighbour (get_neighbor in all_gather.py).
DeviceId ring_neighbour(std::int32_t my_id, std::int32_t n, bool right) {
  const std::int32_t next = right ? (my_id + 1) % n : (my_id - 1 + n) % n;
  return DeviceId{next};
}

}  // namespace

void ring_all_gather_kernel(Ref<float> x_ref, Ref<float> o_ref,
                            SemaphoreArray<DmaSemaphore> send_sem,
                            SemaphoreArray<DmaSemaphore> recv_sem,
                            Semaphore barrier_sem) {
  const std::int32_t my_id = axis_index(kAxis);
  const std::int32_t n = axis_size(kAxis);

  // initial_copy: a blocking local HBM copy of our own shard.
  AsyncCopyDescriptor initial_copy =
      async_copy(x_ref, o_ref.at(my_id), recv_sem[0]);
  initial_copy.wait_send();
  // CHECK-MESSAGES: :[[@LINE-1]]:{{[0-9]+}}: warning: {{.*}} [dma-wait-send-on-local-copy]
  // The fix removes the statement: a receive-side wait of the same copy follows.
  // CHECK-FIXES: {{^}}      async_copy(x_ref, o_ref.at(my_id), recv_sem[0]);{{$}}
  // CHECK-FIXES-NOT: wait_send
  // CHECK-FIXES: {{^}}  initial_copy.wait_recv();{{$}}
  initial_copy.wait_recv();

  // main_barrier: both neighbours must have entered the kernel before we
  // write into their output buffers.
  const DeviceId left = ring_neighbour(my_id, n, /*right=*/false);
  const DeviceId right = ring_neighbour(my_id, n, /*right=*/true);
  semaphore_signal(barrier_sem, 1, left);
  semaphore_signal(barrier_sem, 1, right, DeviceIdType::kMesh);
  semaphore_wait(barrier_sem, 2);

  const index_t half = x_ref.size() / 2;
  std::optional<AsyncCopyDescriptor> right_dma;
  std::optional<AsyncCopyDescriptor> left_dma;
  for (std::int32_t i = 0; i < n - 1; ++i) {
    // The right-going half travels from slot my_id - i.
    std::int32_t right_slot = my_id - i;
    if (right_slot < 0) right_slot += n;
    Ref<float> right_half = o_ref.at(right_slot).slice(half, half);
    if (right_dma) right_dma->wait();
    right_dma = async_remote_copy(right_half, right_half, send_sem[1],
                                  recv_sem[1], right);

    // The left-going half travels from slot my_id + i.
    const std::int32_t left_slot = (my_id + i) % n;
    Ref<float> left_half = o_ref.at(left_slot).slice(0, half);
    if (left_dma) left_dma->wait();
    left_dma = async_remote_copy(left_half, left_half, send_sem[0],
                                 recv_sem[0], left);
  }

  // wait_all_dma: both optionals hold remote copies here (n > 1).
  assert(right_dma.has_value() && left_dma.has_value());
  AsyncCopyDescriptor& last_right = *right_dma;
  last_right.wait_send();
  last_right.wait_recv();
  left_dma->wait_send();
  left_dma->wait_recv();
}
