// CHECKS: -*,dma-*
//
// Paged attention over compute blocks of pages, after paged_flash_attention_kernel
// in jax/experimental/pallas/ops/tpu/paged_attention/paged_attention_kernel.py as
// jax 0e690c1a88 left it: the K and V pages of one compute block are copied from
// HBM into one slot of double-buffered VMEM scratch, one DMA per page; each grid
// step prefetches the next block with tokens (same head, next head, or the next
// sequence of non-zero length) into the other slot, then rebuilds the current
// block's page copies only to wait on them, K before V. Every slot has its own
// semaphore for K and its own for V (k_sems[slot], v_sems[slot]), so a wait on
// the current slot cannot return on the bytes of the prefetch into the other.
// The first step of a core starts its own block; the slot index lives in SMEM
// scratch. Exercises: page loops of starts and of waits in one step, the other
// slot kept in a variable (`slot == 0 ? 1 : 0`), per-slot semaphore arrays, a
// prefetch started here and waited by the next step. Expected: no diagnostics.

#include <tpu/dma.h>

#include <cstdint>

using namespace tpu;

struct bf16 {
  std::uint16_t bits;
};

// The flash-attention arithmetic of one block (MXU/VPU work, no DMA).
void reset_softmax_state(Ref<float> o, Ref<float> m, Ref<float> l);
void scores_of_block(Ref<float> q, Ref<bf16> k_block, Ref<float> scores,
                     std::int32_t valid_tokens);
void accumulate_block(Ref<float> scores, Ref<bf16> v_block, Ref<float> o,
                      Ref<float> m, Ref<float> l);

namespace {

constexpr int kPagesPerBlock = 4;

}  // namespace

void paged_attention_block_kernel(
    const std::int32_t *lengths, const std::int32_t *page_indices,
    std::int32_t *buffer_index_ref, std::int32_t *init_flag_ref,
    Ref<float> q_ref, Ref<bf16> k_pages_hbm, Ref<bf16> v_pages_hbm,
    Ref<float> o_ref, Ref<float> m_ref, Ref<float> l_ref, Ref<float> scores,
    Ref<bf16> k_vmem, Ref<bf16> v_vmem, SemaphoreArray<DmaSemaphore> k_sems,
    SemaphoreArray<DmaSemaphore> v_sems, std::int32_t batch_size,
    std::int32_t num_kv_heads, std::int32_t pages_per_sequence,
    std::int32_t page_size) {
  const std::int32_t b = program_id(0);
  const std::int32_t h = program_id(1);
  const std::int32_t i = program_id(2);
  const std::int32_t block_tokens = page_size * kPagesPerBlock;
  const std::int32_t length = lengths[b];
  if (i * block_tokens >= length)
    return;  // this block of the sequence holds no tokens

  const std::int32_t init_flag = *init_flag_ref;
  *init_flag_ref = 0;
  const std::int32_t slot = *buffer_index_ref;

  // The next block that holds tokens: the next one of this head, else the
  // first of the next head, else the first of the next non-empty sequence.
  std::int32_t next_b = b;
  std::int32_t next_h = h;
  std::int32_t next_i = i + 1;
  if (next_i * block_tokens >= length) {
    next_i = 0;
    next_h = h + 1;
    if (next_h >= num_kv_heads) {
      next_h = 0;
      next_b = b + 1;
      while (next_b < batch_size && lengths[next_b] == 0)
        ++next_b;
    }
  }

  const index_t first_page = b * pages_per_sequence + i * kPagesPerBlock;

  // prefetch_first_block: nobody prefetched the first block of this core.
  if (init_flag != 0) {
    for (int p = 0; p < kPagesPerBlock; ++p) {
      const std::int32_t page = page_indices[first_page + p];
      make_async_copy(k_pages_hbm.at(h).at(page), k_vmem.at(slot).at(p),
                      k_sems[slot])
          .start();
      make_async_copy(v_pages_hbm.at(h).at(page), v_vmem.at(slot).at(p),
                      v_sems[slot])
          .start();
    }
  }

  if (i == 0)
    reset_softmax_state(o_ref, m_ref, l_ref);

  // prefetch_next_block: into the other slot, on that slot's semaphores;
  // the next grid step waits it.
  if (next_b < batch_size) {
    const std::int32_t next_slot = slot == 0 ? 1 : 0;
    const index_t next_first =
        next_b * pages_per_sequence + next_i * kPagesPerBlock;
    for (int p = 0; p < kPagesPerBlock; ++p) {
      const std::int32_t page = page_indices[next_first + p];
      make_async_copy(k_pages_hbm.at(next_h).at(page),
                      k_vmem.at(next_slot).at(p), k_sems[next_slot])
          .start();
      make_async_copy(v_pages_hbm.at(next_h).at(page),
                      v_vmem.at(next_slot).at(p), v_sems[next_slot])
          .start();
    }
    *buffer_index_ref = next_slot;
  }

  // The current block: an earlier step (or the prologue above) started its
  // pages; the copies are rebuilt only to wait on them.
  for (int p = 0; p < kPagesPerBlock; ++p)
    make_async_copy(k_pages_hbm.at(h).at(page_indices[first_page + p]),
                    k_vmem.at(slot).at(p), k_sems[slot])
        .wait();
  scores_of_block(q_ref, k_vmem.at(slot), scores, length - i * block_tokens);
  for (int p = 0; p < kPagesPerBlock; ++p)
    make_async_copy(v_pages_hbm.at(h).at(page_indices[first_page + p]),
                    v_vmem.at(slot).at(p), v_sems[slot])
        .wait();
  accumulate_block(scores, v_vmem.at(slot), o_ref, m_ref, l_ref);
}
