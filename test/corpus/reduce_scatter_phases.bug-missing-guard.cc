// CHECKS: -*,dma-*
//
// Bi-directional reduce-scatter with a planted bug; a copy of
// reduce_scatter_phases.cc (after reduce_scatter_kernel in
// docs/pallas/tpu/distributed.md). The store-or-forward descriptor `out` is a
// remote copy to the neighbour on every iteration but the last, where it is a
// local copy into o_ref (a ternary on `forward`). The author waits its send
// side without the `if (forward)` guard, so on the last iteration wait_send
// runs on a local copy and Pallas raises "Cannot `wait_send` on a local copy."
// Expected: one dma-wait-send-on-local-copy warning (a local copy on some
// paths) at the wait_send; nothing else.

#include <tpu/dma.h>

#include <array>
#include <cstdint>

using namespace tpu;

template <class F> void when(bool c, F f) { if (c) f(); }

void accumulate(Ref<float> acc, Ref<float> in);  // acc[...] += in[...]

namespace {

constexpr int kLeft = 0;
constexpr int kRight = 1;

std::int32_t mod(std::int32_t x, std::int32_t n) { return (x + n) % n; }

void local_barrier(Semaphore barrier, DeviceId left, DeviceId right) {
  semaphore_signal(barrier, 1, left);
  semaphore_signal(barrier, 1, right);
  semaphore_wait(barrier, 2);
}

}  // namespace

void reduce_scatter_kernel(Ref<float> x_ref, Ref<float> o_ref,
                           Ref<float> hbm_scratch, Ref<float> accum_scratch,
                           DmaSemaphore local_copy_sem,
                           SemaphoreArray<DmaSemaphore> send_sems,
                           SemaphoreArray<DmaSemaphore> recv_sems,
                           SemaphoreArray<Semaphore> capacity_sems,
                           Semaphore barrier_sem, index_t block_rows) {
  const std::int32_t outer_step = program_id(0);
  const std::int32_t phase = program_id(1);
  const bool is_start = outer_step == 0 && phase == 0;
  const bool last_iteration = outer_step == num_programs(0) - 1;
  const std::int32_t working_slot = outer_step % 2;
  const std::int32_t receiving_slot = 1 - working_slot;

  const std::int32_t my_id = axis_index("x");
  const std::int32_t n = axis_size("x");
  const std::array<DeviceId, 2> neighbour = {DeviceId{mod(my_id - 1, n)},
                                             DeviceId{mod(my_id + 1, n)}};
  const index_t half = block_rows / 2;
  // Phase kLeft owns rows [0, half), phase kRight rows [half, 2 * half).
  auto rows = [&](Ref<float> block, int p) { return block.slice(p * half, half); };

  std::array<AsyncCopyDescriptor, 2> initial = {
      make_async_remote_copy(rows(x_ref.at(my_id), kLeft),
                             rows(hbm_scratch.at(working_slot), kLeft),
                             send_sems[kLeft], recv_sems[kLeft],
                             neighbour[kLeft]),
      make_async_remote_copy(rows(x_ref.at(my_id), kRight),
                             rows(hbm_scratch.at(working_slot), kRight),
                             send_sems[kRight], recv_sems[kRight],
                             neighbour[kRight])};

  // --- Prologue ---
  when(is_start, [&] {
    local_barrier(barrier_sem, neighbour[kLeft], neighbour[kRight]);
    initial[kLeft].start();
    initial[kLeft].wait();
    initial[kRight].start();
    initial[kRight].wait();
    semaphore_signal(capacity_sems[kRight], 1, neighbour[kLeft]);
    semaphore_signal(capacity_sems[kLeft], 1, neighbour[kRight]);
  });

  // --- Body: load the partial sum of this phase and add our slice. ---
  auto load = make_async_copy(rows(hbm_scratch.at(working_slot), phase),
                              accum_scratch, local_copy_sem);
  load.start();
  load.wait();
  const std::int32_t copy_device =
      phase == kLeft ? mod(my_id + outer_step + 1, n) : mod(my_id - outer_step - 1, n);
  when(!last_iteration, [&] {
    accumulate(accum_scratch, rows(x_ref.at(copy_device), phase));
  });

  // --- Store or forward. ---
  const bool forward = !last_iteration;
  when(forward, [&] { semaphore_wait(capacity_sems[phase], 1); });
  AsyncCopyDescriptor out =
      forward ? make_async_remote_copy(accum_scratch,
                                       rows(hbm_scratch.at(receiving_slot), phase),
                                       send_sems[phase], recv_sems[phase],
                                       neighbour[phase])
              : make_async_copy(accum_scratch, rows(o_ref, phase), local_copy_sem);
  out.start();
  // accum_scratch is reused by the next phase: wait until it has been sent.
  out.wait_send();
  // CHECK-MESSAGES: :[[@LINE-1]]:{{[0-9]+}}: warning: {{.*}} [dma-wait-send-on-local-copy]
  // CHECK-FIXES: {{^}}  if (out.is_remote()){{$}}
  // CHECK-FIXES-NEXT: {{^}}    out.wait_send();{{$}}
  out.wait_recv();
  when(forward, [&] {
    semaphore_signal(capacity_sems[1 - phase], 1, neighbour[1 - phase]);
  });

  // --- Epilogue: leave the capacity semaphores at zero. ---
  when(last_iteration, [&] { semaphore_wait(capacity_sems[1 - phase], 1); });
}
