// CHECKS: -*,dma-*
//
// MoE expert step with aggregate waits: gather the token rows routed to this
// expert, run the expert, and return the results to the devices that own the
// tokens. The gather issues one local DMA per row, all on one semaphore, and
// finishes them with ONE aggregate wait through a helper that rebuilds a
// (buf, buf) descriptor of the total size, as the dummy descriptors of
// jax/experimental/pallas/ops/tpu/ragged_all_to_all.py and the
// `_async_copy(dst, dst, sem, wait=True)` calls of ragged paged attention do.
// The row count may be zero; the zero-size wait is then a no-op and needs no
// branch. The results go out through a std::array holding one local store and
// two remote returns; the send-side loop runs over the remote slots only and
// asserts it. Exercises: aggregate wait helper (template), many starts and one
// wait per semaphore, a C array of device ids, assert(d.is_remote()) in an index
// loop over a mixed std::array. Expected: no diagnostics.

#include <tpu/dma.h>

#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>

using namespace tpu;

struct bf16 { std::uint16_t bits; };
void expert_ffn(Ref<bf16> rows, std::int32_t num_rows);

// Waits `rows` rows' worth of bytes on `sem` with a single wait.
template <typename T>
void wait_rows(Ref<T> buf, index_t rows, DmaSemaphore sem) {
  Ref<T> span = buf.slice(0, rows);
  make_async_copy(span, span, sem).wait();
}

void moe_expert_kernel(const std::int32_t* token_ids,
                       const std::int32_t* counts,  // [self, left, right]
                       const std::int32_t* recv_counts,  // [left, right]
                       Ref<bf16> tokens_hbm, Ref<bf16> rows_vmem,
                       Ref<bf16> out_hbm, DmaSemaphore gather_sem,
                       DmaSemaphore store_sem,
                       SemaphoreArray<DmaSemaphore> send_sems,
                       SemaphoreArray<DmaSemaphore> recv_sems) {
  const std::int32_t my_id = axis_index("expert");
  const std::int32_t n = axis_size("expert");
  const std::int32_t num_rows = counts[0] + counts[1] + counts[2];

  // Gather: many starts on gather_sem ...
  for (std::int32_t t = 0; t < num_rows; ++t) {
    AsyncCopyDescriptor row = make_async_copy(
        tokens_hbm.at(token_ids[t]), rows_vmem.at(t), gather_sem);
    row.start();
  }
  // ... and one aggregate wait for all of them.
  wait_rows(rows_vmem, num_rows, gather_sem);

  expert_ffn(rows_vmem, num_rows);

  // Return: our own tokens locally, the others to the left/right owner. A
  // count may be 0; that copy is then zero-size and needs no branch.
  const DeviceId owners[2] = {DeviceId{(my_id - 1 + n) % n},
                              DeviceId{(my_id + 1) % n}};
  const index_t first_left = counts[0];
  const index_t first_right = counts[0] + counts[1];
  std::array<AsyncCopyDescriptor, 3> returns = {
      make_async_copy(rows_vmem.slice(0, counts[0]),
                      out_hbm.slice(0, counts[0]), store_sem),
      make_async_remote_copy(rows_vmem.slice(first_left, counts[1]),
                             out_hbm.slice(first_left, counts[1]),
                             send_sems[0], recv_sems[0], owners[0]),
      make_async_remote_copy(rows_vmem.slice(first_right, counts[2]),
                             out_hbm.slice(first_right, counts[2]),
                             send_sems[1], recv_sems[1], owners[1])};
  for (std::size_t k = 0; k < returns.size(); ++k) returns[k].start();

  // rows_vmem is reused by the next expert step once the returns are sent.
  for (std::size_t k = 1; k < returns.size(); ++k) {
    assert(returns[k].is_remote());
    returns[k].wait_send();
  }
  returns[0].wait();
  // What the owners' experts sent back to us: one aggregate wait per semaphore.
  for (int k = 0; k < 2; ++k) wait_rows(out_hbm, recv_counts[k], recv_sems[k]);
}
