// CHECKS: -*,dma-*
//
// Bi-directional reduce-scatter with large HBM blocks, after the second
// reduce_scatter_kernel of docs/pallas/tpu/distributed.md ("Nested Remote and
// Local DMA Pipelines"): the outer kernel moves half-blocks around the ring
// with remote HBM-to-HBM copies (grid (outer_step, phase); phase 0 sends the
// upper half to the left, phase 1 the lower half to the right), and the
// accumulation, too large for VMEM, runs as an inner pipeline over row blocks,
// which emit_pipeline builds in Pallas and this port writes out: a
// double-buffered HBM -> VMEM -> HBM loop that prefetches the next row block
// of the input and of the accumulator into the other VMEM slot while the
// current one is summed, each slot with its own semaphores (fetch_sems.at(0,
// slot) for the input, fetch_sems.at(1, slot) for the accumulator,
// store_sems[slot] for the write-back). Barrier with both neighbours at the
// start (local_barrier), capacity semaphores so that no device runs a step
// ahead, the output copied out on the last step. Exercises: a helper with a
// prefetch into the other slot before the current slot's waits, on per-slot
// semaphores; remote copies built every step and used under conditions; the
// other slot as `1 - slot`. Barriers: local_barrier (signal each neighbour
// once, wait 2), and the capacity semaphores (signalled and waited in
// different steps). Expected: no diagnostics.

#include <tpu/dma.h>

#include <cstdint>

using namespace tpu;

void add_into(Ref<float> acc, Ref<float> x);  // acc[...] += x[...] in VMEM

namespace {

constexpr int kLeft = 0;
constexpr int kRight = 1;

std::int32_t mod(std::int32_t x, std::int32_t n) { return (x + n) % n; }

// Both ring neighbours have entered the kernel before we write into them.
void local_barrier(Semaphore barrier, std::int32_t left, std::int32_t right) {
  semaphore_signal(barrier, 1, DeviceId{left}, DeviceIdType::kMesh);
  semaphore_signal(barrier, 1, DeviceId{right}, DeviceIdType::kMesh);
  semaphore_wait(barrier, 2);
}

// acc_hbm[...] += x_hbm[...], row block by row block through VMEM.
void accumulate_in_hbm(Ref<float> x_hbm, Ref<float> acc_hbm, Ref<float> x_vmem,
                       Ref<float> acc_vmem,
                       SemaphoreArray<DmaSemaphore> fetch_sems,
                       SemaphoreArray<DmaSemaphore> store_sems,
                       index_t block_rows, std::int32_t num_blocks) {
  make_async_copy(x_hbm.slice(0, block_rows), x_vmem.at(0), fetch_sems.at(0, 0))
      .start();
  make_async_copy(acc_hbm.slice(0, block_rows), acc_vmem.at(0),
                  fetch_sems.at(1, 0))
      .start();
  for (std::int32_t b = 0; b < num_blocks; ++b) {
    const std::int32_t slot = b % 2;
    const std::int32_t next = 1 - slot;
    const index_t rows = b * block_rows;
    if (b + 1 < num_blocks) {
      // The other slot still holds the write-back of the previous block.
      if (b > 0)
        make_async_copy(acc_vmem.at(next), acc_hbm.slice(rows - block_rows, block_rows),
                        store_sems[next])
            .wait();
      make_async_copy(x_hbm.slice(rows + block_rows, block_rows), x_vmem.at(next),
                      fetch_sems.at(0, next))
          .start();
      make_async_copy(acc_hbm.slice(rows + block_rows, block_rows),
                      acc_vmem.at(next), fetch_sems.at(1, next))
          .start();
    }
    make_async_copy(x_hbm.slice(rows, block_rows), x_vmem.at(slot),
                    fetch_sems.at(0, slot))
        .wait();
    make_async_copy(acc_hbm.slice(rows, block_rows), acc_vmem.at(slot),
                    fetch_sems.at(1, slot))
        .wait();
    add_into(acc_vmem.at(slot), x_vmem.at(slot));
    make_async_copy(acc_vmem.at(slot), acc_hbm.slice(rows, block_rows),
                    store_sems[slot])
        .start();
  }
  // The last two write-backs (one, with a single block).
  for (std::int32_t b = num_blocks - 2; b < num_blocks; ++b)
    if (b >= 0)
      make_async_copy(acc_vmem.at(b % 2), acc_hbm.slice(b * block_rows, block_rows),
                      store_sems[b % 2])
          .wait();
}

}  // namespace

void reduce_scatter_hbm_kernel(
    Ref<float> x_ref, Ref<float> o_ref, Ref<float> hbm_scratch,
    Ref<float> x_vmem, Ref<float> acc_vmem,
    SemaphoreArray<DmaSemaphore> send_sems,
    SemaphoreArray<DmaSemaphore> recv_sems, DmaSemaphore copy_sem,
    SemaphoreArray<DmaSemaphore> fetch_sems,
    SemaphoreArray<DmaSemaphore> store_sems,
    SemaphoreArray<Semaphore> capacity_sems, Semaphore barrier_sem,
    index_t half_rows, index_t inner_rows) {
  const std::int32_t outer_step = program_id(0);
  const std::int32_t phase = program_id(1);
  const bool is_start = outer_step == 0 && phase == 0;
  const bool last_iteration = outer_step == num_programs(0) - 1;
  const std::int32_t working_slot = outer_step % 2;
  const std::int32_t receiving_slot = 1 - working_slot;

  const std::int32_t my_id = axis_index("x");
  const std::int32_t n = axis_size("x");
  const std::int32_t right_neighbour = mod(my_id + 1, n);
  const std::int32_t left_neighbour = mod(my_id - 1, n);
  const std::int32_t left_copy_device = mod(my_id + outer_step + 1, n);
  const std::int32_t right_copy_device = mod(my_id - outer_step - 1, n);

  // Rows [0, half) travel left, rows [half, 2 * half) travel right.
  Ref<float> working = hbm_scratch.at(working_slot);
  Ref<float> receiving = hbm_scratch.at(receiving_slot);
  auto initial_left_copy = make_async_remote_copy(
      x_ref.at(my_id).slice(0, half_rows), working.slice(0, half_rows),
      send_sems[kLeft], recv_sems[kLeft], DeviceId{left_neighbour});
  auto initial_right_copy = make_async_remote_copy(
      x_ref.at(my_id).slice(half_rows, half_rows),
      working.slice(half_rows, half_rows), send_sems[kRight], recv_sems[kRight],
      DeviceId{right_neighbour});
  auto left_copy = make_async_remote_copy(
      working.slice(0, half_rows), receiving.slice(0, half_rows),
      send_sems[kLeft], recv_sems[kLeft], DeviceId{left_neighbour});
  // Flipped slots: this half goes to the next outer step's working slot.
  auto right_copy = make_async_remote_copy(
      receiving.slice(half_rows, half_rows), working.slice(half_rows, half_rows),
      send_sems[kRight], recv_sems[kRight], DeviceId{right_neighbour});

  // --- Prologue ---
  if (is_start) {
    local_barrier(barrier_sem, left_neighbour, right_neighbour);
    initial_left_copy.start();
    initial_left_copy.wait();
    initial_right_copy.start();
    // Our neighbours may send to us now.
    semaphore_signal(capacity_sems[kRight], 1, DeviceId{left_neighbour});
    semaphore_signal(capacity_sems[kLeft], 1, DeviceId{right_neighbour});
  }

  // --- Body: send what the previous phase computed while this one adds. ---
  if (!is_start) {
    if (phase == kLeft) {
      semaphore_wait(capacity_sems[kRight], 1);
      right_copy.start();
    } else {
      semaphore_wait(capacity_sems[kLeft], 1);
      left_copy.start();
    }
  }

  const std::int32_t inner_blocks = static_cast<std::int32_t>(half_rows / inner_rows);
  if (!last_iteration) {
    if (phase == kLeft)
      accumulate_in_hbm(x_ref.at(left_copy_device).slice(0, half_rows),
                        working.slice(0, half_rows), x_vmem, acc_vmem,
                        fetch_sems, store_sems, inner_rows, inner_blocks);
    else
      accumulate_in_hbm(x_ref.at(right_copy_device).slice(half_rows, half_rows),
                        working.slice(half_rows, half_rows), x_vmem, acc_vmem,
                        fetch_sems, store_sems, inner_rows, inner_blocks);
  }

  if (is_start)
    initial_right_copy.wait();

  // The previous phase's DMA has landed: the next phase may use it.
  if (!is_start) {
    if (phase == kLeft) {
      right_copy.wait();
      semaphore_signal(capacity_sems[kRight], 1, DeviceId{left_neighbour});
    } else {
      left_copy.wait();
      semaphore_signal(capacity_sems[kLeft], 1, DeviceId{right_neighbour});
    }
  }

  // --- Epilogue: store the result, leave the capacity semaphores at 0. ---
  if (last_iteration) {
    auto output_copy = make_async_copy(working.slice(phase * half_rows, half_rows),
                                       o_ref.slice(phase * half_rows, half_rows),
                                       copy_sem);
    output_copy.start();
    output_copy.wait();
    if (phase == kLeft)
      semaphore_wait(capacity_sems[kRight], 1);
    else
      semaphore_wait(capacity_sems[kLeft], 1);
  }
}
