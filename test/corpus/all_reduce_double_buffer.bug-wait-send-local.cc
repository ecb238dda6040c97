// CHECKS: -*,dma-*
//
// Ring all-reduce with double buffering and a planted bug; a copy of
// all_reduce_double_buffer.cc (after all_reduce_kernel in
// docs/pallas/tpu/distributed.md). This is the seed's case: the generic
// pipelining code drains the send side of every DMA it issued, without the
// `if (d.is_remote())` guard, and the issued list holds the local HBM->VMEM
// staging copy as well as the remote copy to the right neighbour. On the local
// element Pallas raises "Cannot `wait_send` on a local copy." Expected: one
// dma-wait-send-on-local-copy warning at the wait_send in the loop (the list
// holds a local copy); nothing else.

#include <tpu/dma.h>

#include <cstddef>
#include <cstdint>
#include <vector>

using namespace tpu;

template <class F> void when(bool c, F f) { if (c) f(); }

void accumulate(Ref<float> acc, Ref<float> in);  // acc[...] += in[...]

namespace {

// A barrier with both ring neighbours on the global barrier semaphore.
void local_barrier(Semaphore barrier, std::int32_t left, std::int32_t right) {
  for (std::int32_t neighbour : {left, right})
    semaphore_signal(barrier, 1, DeviceId{neighbour}, DeviceIdType::kMesh);
  semaphore_wait(barrier, 2);
}

}  // namespace

void all_reduce_kernel(Ref<float> x_ref, Ref<float> o_ref,
                       Ref<float> hbm_scratch, DmaSemaphore copy_sem,
                       DmaSemaphore remote_recv_sem,
                       DmaSemaphore remote_send_sem, Semaphore capacity_sem,
                       Semaphore barrier_sem, Ref<float> receive_scratch) {
  const std::int32_t outer_step = program_id(0);
  const std::int32_t working_slot = outer_step % 2;
  const std::int32_t receiving_slot = 1 - working_slot;
  const std::int32_t my_id = axis_index("x");
  const std::int32_t n = axis_size("x");
  const std::int32_t right_neighbour = (my_id + 1) % n;
  const std::int32_t left_neighbour = (my_id - 1 + n) % n;

  when(outer_step == 0, [&] {
    local_barrier(barrier_sem, left_neighbour, right_neighbour);
    auto initial_copy = make_async_remote_copy(
        x_ref, hbm_scratch.at(working_slot), remote_send_sem, remote_recv_sem,
        DeviceId{right_neighbour}, DeviceIdType::kMesh);
    initial_copy.start();
    initial_copy.wait();
  });

  // Tell our left neighbour that our receiving slot is free.
  semaphore_signal(capacity_sem, 1, DeviceId{left_neighbour});

  std::vector<AsyncCopyDescriptor> issued;

  // Stage the partial sum our left neighbour sent us into VMEM.
  AsyncCopyDescriptor local_copy = make_async_copy(
      hbm_scratch.at(working_slot), receive_scratch, copy_sem);
  local_copy.start();
  issued.push_back(local_copy);

  // Pass it on once the right neighbour is ready to receive.
  semaphore_wait(capacity_sem, 1);
  AsyncCopyDescriptor remote_copy = make_async_remote_copy(
      hbm_scratch.at(working_slot), hbm_scratch.at(receiving_slot),
      remote_send_sem, remote_recv_sem, DeviceId{right_neighbour});
  remote_copy.start();
  issued.emplace_back(remote_copy);

  // Drain in three passes over everything this step issued.
  // 1. Receive side of the local staging copy, so we accumulate while the
  //    remote DMA is still in flight.
  for (AsyncCopyDescriptor& d : issued) {
    if (!d.is_remote()) d.wait_recv();
  }
  accumulate(o_ref, receive_scratch);
  // 2. Send side: once it is done the working slot may be overwritten by the
  //    next step.
  for (AsyncCopyDescriptor& d : issued) {
    d.wait_send();
    // CHECK-MESSAGES: :[[@LINE-1]]:{{[0-9]+}}: warning: {{.*}} [dma-wait-send-on-local-copy]
    // CHECK-FIXES: {{^}}    if (d.is_remote()){{$}}
    // CHECK-FIXES-NEXT: {{^}}      d.wait_send();{{$}}
  }
  // 3. Receive side of the remote DMAs: our left neighbour's partial sum has
  //    landed in our receiving slot.
  for (std::size_t k = 0; k < issued.size(); ++k) {
    const bool remote = issued[k].is_remote();
    if (remote) issued[k].wait_recv();
  }
}
