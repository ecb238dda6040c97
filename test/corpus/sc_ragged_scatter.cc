// CHECKS: -*,dma-*
//
// Port of main_kernel in tpu_inference/kernels/sparse_core/ragged_scatter.py
// (vllm-project/tpu-inference b8692ff01f): a SparseCore row scatter. Every
// vector subcore takes a tile of num_simd_lanes rows per block. For the first
// column tile it fetches the tile's source and destination row indices (two
// descriptors kept in a std::vector, started in one loop and waited in
// another); then it gathers one lane-wide DMA per (row, column chunk) from
// HBM into VMEM on the kernel's one receive semaphore, and, per column chunk,
// waits num_simd_lanes of them through a descriptor rebuilt on row 0 (the
// order of waits matches the order of starts), merges packed sub-32-bit rows,
// and writes every row back on the one send semaphore; all writes are waited
// at the end of the tile by rebuilt descriptors. Expected: no diagnostics.

#include <tpu/dma.h>

#include <cstdint>
#include <vector>

using namespace tpu;

namespace {

constexpr index_t kSimdLanes = 16;   // sparse-core SIMD width
constexpr index_t kLanes = 128;      // TensorCore lane width
constexpr index_t kColSize = 512;    // columns per tile
constexpr std::int32_t kPacking = 2; // bf16 rows per 32-bit word

}  // namespace

// Vector loads of VMEM scalars and the packed-row merge (no DMA).
std::int32_t load_scalar(Ref<std::int32_t> ref, index_t i);
void merge_packed_rows(Ref<std::uint32_t> out_vmem, Ref<std::int32_t> src_idx,
                       Ref<std::int32_t> dst_idx, index_t col_vmem_start);

static void scatter_tile(index_t block_id, index_t core_id, index_t col_id,
                         index_t block_size, std::int32_t total_num_rows,
                         Ref<std::uint32_t> in_32b_hbm,
                         Ref<std::int32_t> src_indices_hbm,
                         Ref<std::int32_t> dst_indices_hbm,
                         Ref<std::uint32_t> out_32b_hbm,
                         Ref<std::uint32_t> out_vmem,
                         Ref<std::int32_t> src_indices_vmem,
                         Ref<std::int32_t> dst_indices_vmem,
                         DmaSemaphore recv_sem, DmaSemaphore send_sem) {
  const index_t row_tile_start = block_id * block_size + core_id * kSimdLanes;
  const index_t col_tile_start = col_id * kColSize;

  if (col_id == 0) {
    std::vector<AsyncCopyDescriptor> dma_list;
    dma_list.push_back(make_async_copy(
        src_indices_hbm.slice(row_tile_start, kSimdLanes), src_indices_vmem,
        recv_sem));
    dma_list.push_back(make_async_copy(
        dst_indices_hbm.slice(row_tile_start, kSimdLanes), dst_indices_vmem,
        recv_sem));
    for (AsyncCopyDescriptor &d : dma_list)
      d.start();
    for (AsyncCopyDescriptor &d : dma_list)
      d.wait();
  }

  // HBM -> VMEM: one lane-wide DMA per row and column chunk.
  for (index_t col_vmem_start = 0; col_vmem_start < kColSize;
       col_vmem_start += kLanes) {
    const index_t col_hbm_start = col_tile_start + col_vmem_start;
    for (index_t row_vmem = 0; row_vmem < kSimdLanes; ++row_vmem) {
      const index_t row_hbm =
          load_scalar(src_indices_vmem, row_vmem) / kPacking;
      make_async_copy(in_32b_hbm.at(row_hbm).slice(col_hbm_start, kLanes),
                      out_vmem.at(row_vmem).slice(col_vmem_start, kLanes),
                      recv_sem)
          .start();
    }
  }

  // VMEM -> HBM, one column chunk at a time.
  for (index_t col_vmem_start = 0; col_vmem_start < kColSize;
       col_vmem_start += kLanes) {
    const index_t col_hbm_start = col_tile_start + col_vmem_start;

    // One semaphore for all gathers: wait in the order of the starts.
    for (index_t n = 0; n < kSimdLanes; ++n)
      make_async_copy(in_32b_hbm.at(0).slice(0, kLanes),
                      out_vmem.at(0).slice(0, kLanes), recv_sem)
          .wait();

    if (kPacking > 1)
      merge_packed_rows(out_vmem, src_indices_vmem, dst_indices_vmem,
                        col_vmem_start);

    index_t last_valid_row_vmem = -1;
    index_t last_valid_row_hbm = -1;
    for (index_t row_vmem = 0; row_vmem < kSimdLanes; ++row_vmem) {
      const bool row_valid = row_tile_start + row_vmem < total_num_rows;
      const index_t row_hbm = load_scalar(dst_indices_vmem, row_vmem) / kPacking;
      index_t next_row_hbm = -1;
      bool next_row_valid = false;
      if (row_vmem < kSimdLanes - 1) {
        next_row_hbm = load_scalar(dst_indices_vmem, row_vmem + 1) / kPacking;
        next_row_valid = row_tile_start + row_vmem + 1 < total_num_rows;
      }
      const index_t merged_row = (row_vmem / kPacking) * kPacking + kPacking - 1;
      const bool merge = row_hbm == next_row_hbm && next_row_valid;
      const index_t src_row_vmem =
          merge ? merged_row : (row_valid ? row_vmem : last_valid_row_vmem);
      const index_t dst_row_hbm =
          merge ? row_hbm : (row_valid ? row_hbm : last_valid_row_hbm);
      make_async_copy(out_vmem.at(src_row_vmem).slice(col_vmem_start, kLanes),
                      out_32b_hbm.at(dst_row_hbm).slice(col_hbm_start, kLanes),
                      send_sem)
          .start();
      last_valid_row_vmem = row_valid ? src_row_vmem : last_valid_row_vmem;
      last_valid_row_hbm = row_valid ? dst_row_hbm : last_valid_row_hbm;
    }
  }

  // Every write of the tile.
  for (index_t c = 0; c < kColSize; c += kLanes)
    for (index_t n = 0; n < kSimdLanes; ++n)
      make_async_copy(out_vmem.at(0).slice(0, kLanes),
                      out_32b_hbm.at(0).slice(0, kLanes), send_sem)
          .wait();
}

void ragged_scatter_kernel(Ref<std::int32_t> total_num_rows_hbm,
                           Ref<std::uint32_t> in_32b_hbm,
                           Ref<std::int32_t> src_indices_hbm,
                           Ref<std::int32_t> dst_indices_hbm,
                           Ref<std::uint32_t> out_32b_hbm,
                           Ref<std::int32_t> total_num_rows_vmem,
                           Ref<std::uint32_t> out_vmem,
                           Ref<std::int32_t> src_indices_vmem,
                           Ref<std::int32_t> dst_indices_vmem,
                           SemaphoreArray<DmaSemaphore> sem_ref,
                           index_t hidden_size) {
  const index_t num_cores = axis_size("core") * axis_size("subcore");
  const index_t block_size = kSimdLanes * num_cores;
  const index_t core_id =
      axis_index("core") * axis_size("subcore") + axis_index("subcore");

  DmaSemaphore recv_sem = sem_ref.at(0);
  DmaSemaphore send_sem = sem_ref.at(1);

  AsyncCopyDescriptor dma = make_async_copy(
      total_num_rows_hbm, total_num_rows_vmem.slice(0, 1), recv_sem);
  dma.start();
  dma.wait();
  const std::int32_t total_num_rows = load_scalar(total_num_rows_vmem, 0);

  const index_t num_blocks =
      total_num_rows == 0 ? 0 : (total_num_rows + block_size - 1) / block_size;
  const index_t num_cols = (hidden_size + kColSize - 1) / kColSize;

  // emit_pipeline over (blocks, cores [parallel], columns).
  for (index_t block_id = 0; block_id < num_blocks; ++block_id) {
    for (index_t col_id = 0; col_id < num_cols; ++col_id) {
      const index_t row_tile_start = block_id * block_size + core_id * kSimdLanes;
      if (row_tile_start < total_num_rows)
        scatter_tile(block_id, core_id, col_id, block_size, total_num_rows,
                     in_32b_hbm, src_indices_hbm, dst_indices_hbm,
                     out_32b_hbm, out_vmem, src_indices_vmem,
                     dst_indices_vmem, recv_sem, send_sem);
    }
  }
}
