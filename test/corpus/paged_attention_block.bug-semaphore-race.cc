// CHECKS: -*,dma-*
//
// Paged attention over compute blocks of pages, after paged_flash_attention_kernel
// in jax/experimental/pallas/ops/tpu/paged_attention/paged_attention_kernel.py
// as it was BEFORE jax 0e690c1a88 ("Use additional semaphores to avoid data
// races in TPU paged_attention_kernel"): a copy of paged_attention_block.cc in
// which every K and V page copy, of the current block and of the next block's
// prefetch, signals ONE semaphore `sem`. Planted bug (the real one): the wait
// for a page of the current block (K, then V) can return on the bytes of the
// prefetch into the other slot, which is still in flight, and the block is
// read before its own pages have landed. The fix (paged_attention_block.cc)
// gives each slot its own semaphore for K and for V. dma-semaphore-race reports
// the K wait and the V wait, each with a note at the prefetch it races with;
// the K wait does not race with the V prefetch (another buffer), nor the first
// block's start (the same slot).

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
    Ref<bf16> k_vmem, Ref<bf16> v_vmem, DmaSemaphore sem,
    std::int32_t batch_size,
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
                      sem)
          .start();
      make_async_copy(v_pages_hbm.at(h).at(page), v_vmem.at(slot).at(p),
                      sem)
          .start();
    }
  }

  if (i == 0)
    reset_softmax_state(o_ref, m_ref, l_ref);

  // prefetch_next_block: into the other slot, on the one semaphore; the
  // next grid step waits it.
  if (next_b < batch_size) {
    const std::int32_t next_slot = slot == 0 ? 1 : 0;
    const index_t next_first =
        next_b * pages_per_sequence + next_i * kPagesPerBlock;
    for (int p = 0; p < kPagesPerBlock; ++p) {
      const std::int32_t page = page_indices[next_first + p];
      make_async_copy(k_pages_hbm.at(next_h).at(page),
                      k_vmem.at(next_slot).at(p), sem)
          .start();
      make_async_copy(v_pages_hbm.at(next_h).at(page),
                      v_vmem.at(next_slot).at(p), sem)
          .start();
    }
    *buffer_index_ref = next_slot;
  }

  // The current block: an earlier step (or the prologue above) started its
  // pages; the copies are rebuilt only to wait on them.
  for (int p = 0; p < kPagesPerBlock; ++p)
    make_async_copy(k_pages_hbm.at(h).at(page_indices[first_page + p]),
                    k_vmem.at(slot).at(p), sem)
        .wait();
        // CHECK-NOTES: :[[@LINE-1]]:10: warning: this wait on 'sem' for 'k_vmem.at(slot).at(p)' may return on the bytes of the copy into 'k_vmem.at(next_slot).at(p)', which signals the same semaphore and is still in flight; give each buffer slot its own semaphore [dma-semaphore-race]
        // CHECK-NOTES: :[[@LINE-15]]:12: note: the copy into 'k_vmem.at(next_slot).at(p)' is started here on 'sem', and not waited before the function returns
  scores_of_block(q_ref, k_vmem.at(slot), scores, length - i * block_tokens);
  for (int p = 0; p < kPagesPerBlock; ++p)
    make_async_copy(v_pages_hbm.at(h).at(page_indices[first_page + p]),
                    v_vmem.at(slot).at(p), sem)
        .wait();
        // CHECK-NOTES: :[[@LINE-1]]:10: warning: this wait on 'sem' for 'v_vmem.at(slot).at(p)' may return on the bytes of the copy into 'v_vmem.at(next_slot).at(p)', which signals the same semaphore and is still in flight; give each buffer slot its own semaphore [dma-semaphore-race]
        // CHECK-NOTES: :[[@LINE-19]]:12: note: the copy into 'v_vmem.at(next_slot).at(p)' is started here on 'sem', and not waited before the function returns
  accumulate_block(scores, v_vmem.at(slot), o_ref, m_ref, l_ref);
}
