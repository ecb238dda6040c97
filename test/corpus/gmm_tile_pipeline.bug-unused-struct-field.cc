// CHECKS: -*,dma-*
//
// Grouped matmul with manually pipelined tiles and a planted bug; a copy of
// gmm_tile_pipeline.cc (after megablox/gmm.py in jax and gmm_v2.py of
// vllm-project/tpu-inference). The prefetch of the next m tile builds both
// operand copies in a heap-allocated `TileCopies` struct but starts only
// `next->lhs`: the rhs copy held in the struct's other field is built and
// never started nor waited, and the struct does not leave the block (Pallas
// logs "AsyncCopyDescriptor was not used"); the next step waits an rhs tile
// that never comes. Expected: one dma-unused-descriptor warning at the
// construction of the rhs copy (reported once for both instantiations);
// nothing else.

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
        // CHECK-MESSAGES: :[[@LINE-1]]:{{[0-9]+}}: warning: {{.*}} [dma-unused-descriptor]
    next->lhs.start();
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
