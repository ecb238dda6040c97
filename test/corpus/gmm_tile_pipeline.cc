// CHECKS: -*,dma-*
//
// Grouped matmul with manually pipelined operand tiles, after megablox gmm
// (jax/experimental/pallas/ops/tpu/megablox/gmm.py: the grid walks the m tiles
// of lhs, each with the group whose rhs it multiplies) and gmm_v2 of
// vllm-project/tpu-inference (tpu_inference/kernels/megablox/gmm_v2.py:
// zero_out_start / zero_out_end fill the output rows no group covers with
// priority-1 DMAs from a zero tile, then wait them all with one descriptor
// whose source and destination are the filled range). Where gmm relies on
// BlockSpecs, this port double-buffers the lhs and rhs tiles itself: the
// copies of one tile are a `TileCopies` struct held in a std::unique_ptr (the
// first tile at step 0, the next tile prefetched into the other slot, the
// current tile rebuilt only to wait), and the result tile goes back to HBM
// through a std::make_unique'd descriptor. The tile height is a template
// parameter: a height that is not a multiple of 8 is written back row by row
// and waited by one aggregate wait (the layout rule of _local_subcore_copy in
// tpu-inference's hierrs_sc/dma_pipeline.py); constexpr flags pick the
// zero-fill and its priority.
// Exercises: heap objects (std::make_unique of a struct of descriptors and of
// a descriptor) used through `->`, prefetch with no wait in this step,
// wait-only rebuilt descriptors, start(1) on local copies in a loop, an
// aggregate (dst, dst) wait, constant conditions on a template parameter and
// on constexpr bools, two instantiations. Expected: no diagnostics.

#include <tpu/dma.h>

#include <cstdint>
#include <memory>

using namespace tpu;

// Metadata of the grouped lhs (scalar prefetch).
std::int32_t num_m_tiles();
std::int32_t tile_group(std::int32_t tile);
index_t tile_first_row(std::int32_t tile);
index_t covered_rows();  // rows [0, covered_rows()) belong to some group
void matmul(Ref<float> acc, Ref<float> lhs, Ref<float> rhs);  // acc = lhs @ rhs

namespace {

constexpr bool kZeroFillUncovered = true;
constexpr int kZeroFillPriority = 1;  // behind the operand fetches

// The operand copies of one m tile.
struct TileCopies {
  AsyncCopyDescriptor lhs;
  AsyncCopyDescriptor rhs;
};

}  // namespace

template <index_t kTileRows>
void gmm_tile_pipeline_kernel(Ref<float> lhs_hbm, Ref<float> rhs_hbm,
                              Ref<float> out_hbm, Ref<float> lhs_vmem,
                              Ref<float> rhs_vmem, Ref<float> acc_vmem,
                              Ref<float> zero_vmem,
                              SemaphoreArray<DmaSemaphore> in_sems,
                              DmaSemaphore out_sem, DmaSemaphore zero_sem,
                              index_t total_rows) {
  const std::int32_t tile = program_id(0);
  const std::int32_t slot = tile % 2;
  const index_t row0 = tile_first_row(tile);

  if (tile == 0) {
    auto first = std::make_unique<TileCopies>(TileCopies{
        make_async_copy(lhs_hbm.slice(row0, kTileRows), lhs_vmem.at(slot), in_sems.at(0, slot)),
        make_async_copy(rhs_hbm.at(tile_group(tile)), rhs_vmem.at(slot), in_sems.at(1, slot))});
    first->lhs.start();
    first->rhs.start();
  }

  if (tile + 1 < num_m_tiles()) {
    const std::int32_t next_tile = tile + 1;
    const std::int32_t next_slot = 1 - slot;
    const index_t next_row0 = tile_first_row(next_tile);
    const std::int32_t next_group = tile_group(next_tile);
    auto next = std::make_unique<TileCopies>(TileCopies{
        make_async_copy(lhs_hbm.slice(next_row0, kTileRows), lhs_vmem.at(next_slot),
                        in_sems.at(0, next_slot)),
        make_async_copy(rhs_hbm.at(next_group), rhs_vmem.at(next_slot), in_sems.at(1, next_slot))});
    next->lhs.start();
    next->rhs.start();
  }

  // This tile's operands were started by the previous step (or above).
  auto current = std::make_unique<TileCopies>(TileCopies{
      make_async_copy(lhs_hbm.slice(row0, kTileRows), lhs_vmem.at(slot), in_sems.at(0, slot)),
      make_async_copy(rhs_hbm.at(tile_group(tile)), rhs_vmem.at(slot), in_sems.at(1, slot))});
  current->lhs.wait();
  (*current).rhs.wait();
  matmul(acc_vmem, lhs_vmem.at(slot), rhs_vmem.at(slot));

  if (kTileRows % 8 == 0) {
    auto out = std::make_unique<AsyncCopyDescriptor>(
        make_async_copy(acc_vmem, out_hbm.slice(row0, kTileRows), out_sem));
    out->start();
    out->wait();
  } else {
    for (index_t r = 0; r < kTileRows; ++r)
      make_async_copy(acc_vmem.at(r), out_hbm.at(row0 + r), out_sem).start();
    make_async_copy(out_hbm.slice(row0, kTileRows), out_hbm.slice(row0, kTileRows), out_sem)
        .wait();
  }

  // Rows that no group covers: zero them once, after the last tile.
  if (kZeroFillUncovered && tile == num_m_tiles() - 1) {
    const index_t uncovered = total_rows - covered_rows();
    for (index_t r = 0; r < uncovered; r += kTileRows)
      make_async_copy(zero_vmem, out_hbm.slice(covered_rows() + r, kTileRows), zero_sem)
          .start(kZeroFillPriority);
    make_async_copy(out_hbm.slice(covered_rows(), uncovered),
                    out_hbm.slice(covered_rows(), uncovered), zero_sem)
        .wait();
  }
}

template void gmm_tile_pipeline_kernel<128>(Ref<float>, Ref<float>, Ref<float>,
                                            Ref<float>, Ref<float>, Ref<float>,
                                            Ref<float>, SemaphoreArray<DmaSemaphore>,
                                            DmaSemaphore, DmaSemaphore, index_t);
template void gmm_tile_pipeline_kernel<12>(Ref<float>, Ref<float>, Ref<float>,
                                           Ref<float>, Ref<float>, Ref<float>,
                                           Ref<float>, SemaphoreArray<DmaSemaphore>,
                                           DmaSemaphore, DmaSemaphore, index_t);
