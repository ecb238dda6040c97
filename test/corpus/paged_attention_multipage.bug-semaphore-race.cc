// CHECKS: -*,dma-*
//
// Paged attention after paged_flash_attention_kernel and its
// MultiPageAsyncCopyDescriptor class in
// jax/experimental/pallas/ops/tpu/paged_attention/paged_attention_kernel.py as
// it was BEFORE jax 0e690c1a88 ("Use additional semaphores to avoid data races
// in TPU paged_attention_kernel"), ported class by class (the int8 scales path
// left out): the descriptor keeps its arguments in members and builds one
// local copy per page of a compute block, `start()` starts them all and
// `wait_and_get_loaded()` waits them all and hands back the VMEM slot. The
// kernel's closures are lambdas: `compute_block_indices` returns the next
// block with tokens as a std::tuple, `create_kv_async_copy_descriptors` the K
// and V descriptors as a std::pair (unpacked by structured bindings); the
// pl.when bodies are plain `if` blocks. Planted bug (the real one): every K
// and V page copy, of the current block and of the next block's prefetch into
// the other slot (`buffer_index == 0 ? 1 : 0`), signals ONE semaphore `sem`,
// so the current block's K wait (and its V wait) can return on the bytes of
// the prefetch, still in flight, before the block's own pages have landed.
// The fix (paged_attention_multipage.cc) gives each slot its own K and V
// semaphore. dma-semaphore-race should report the K wait and the V wait (in
// wait_and_get_loaded), each with a note at the start of the prefetch into
// the other slot of the same buffer; not the first block's start (same slot).

#include <tpu/dma.h>

#include <cstdint>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

using namespace tpu;

struct bf16 {
  std::uint16_t bits;
};

// The flash-attention arithmetic of one block (MXU/VPU work, no DMA).
struct BlockScores {
  Ref<float> probs;  // s_curr: exp(qk - m_curr)
  Ref<float> alpha;  // exp(m_prev - m_next)
  Ref<float> beta;   // exp(m_curr - m_next)
};
void init_softmax_state(Ref<float> m, Ref<float> l, Ref<float> o);
// qk = q k^T (soft-capped, masked past `length`); updates m and l.
BlockScores score_block(Ref<float> q, Ref<bf16> k, std::int32_t first_token,
                        std::int32_t length, float mask_value,
                        std::optional<float> attn_logits_soft_cap,
                        Ref<float> m, Ref<float> l);
// o = (l_prev * alpha * o + beta * probs v) / l_next.
void accumulate_block(const BlockScores &s, Ref<bf16> v, Ref<float> o,
                      Ref<float> l);

enum class MegacoreMode { kNone, kKvHead, kBatch };

// The K (or V) pages of one compute block, HBM -> one VMEM slot.
class MultiPageAsyncCopyDescriptor {
 public:
  MultiPageAsyncCopyDescriptor(Ref<bf16> pages_hbm_ref, Ref<bf16> vmem_buffer,
                               DmaSemaphore sem,
                               const std::int32_t *page_indices,
                               index_t page_indices_start_offset,
                               std::int32_t num_pages_to_load,
                               std::int32_t head_index)
      : pages_hbm_ref_(pages_hbm_ref.at(head_index)),
        vmem_buffer_(vmem_buffer),
        sem_(sem),
        page_indices_(page_indices),
        page_indices_start_offset_(page_indices_start_offset),
        num_pages_to_load_(num_pages_to_load) {
    for (std::int32_t i = 0; i < num_pages_to_load_; ++i)
      async_copies_.push_back(make_page_copy(i));
  }

  void start() {
    for (AsyncCopyDescriptor &copy : async_copies_)
      copy.start();
  }

  Ref<bf16> wait_and_get_loaded() {
    for (AsyncCopyDescriptor &copy : async_copies_)
      copy.wait();
    return vmem_buffer_;
  }

 private:
  AsyncCopyDescriptor make_page_copy(std::int32_t i) const {
    const std::int32_t page_index =
        page_indices_[page_indices_start_offset_ + i];
    return make_async_copy(pages_hbm_ref_.at(page_index), vmem_buffer_.at(i),
                           sem_);
  }

  Ref<bf16> pages_hbm_ref_;
  Ref<bf16> vmem_buffer_;
  DmaSemaphore sem_;
  const std::int32_t *page_indices_;
  index_t page_indices_start_offset_;
  std::int32_t num_pages_to_load_;
  std::vector<AsyncCopyDescriptor> async_copies_;
};

void paged_flash_attention_kernel(
    const std::int32_t *lengths_ref, const std::int32_t *page_indices_ref,
    std::int32_t *buffer_index_ref, std::int32_t *init_flag_ref,
    Ref<float> q_ref, Ref<bf16> k_pages_hbm_ref, Ref<bf16> v_pages_hbm_ref,
    Ref<float> o_ref, Ref<float> m_ref, Ref<float> l_ref,
    Ref<bf16> k_vmem_buffer, Ref<bf16> v_vmem_buffer, DmaSemaphore sem,
    std::int32_t batch_size, std::int32_t pages_per_compute_block,
    std::int32_t pages_per_sequence, std::int32_t num_kv_heads,
    std::int32_t page_size, float mask_value,
    std::optional<float> attn_logits_soft_cap, MegacoreMode megacore_mode) {
  const std::int32_t core_index = program_id(0);
  const std::int32_t bk = page_size * pages_per_compute_block;
  const std::int32_t num_cores = num_programs(0);

  const bool by_batch = megacore_mode == MegacoreMode::kBatch;
  const bool by_head = megacore_mode == MegacoreMode::kKvHead;
  const std::int32_t b_step = by_batch ? num_cores : 1;
  const std::int32_t b_start = by_batch ? core_index : 0;
  const std::int32_t h_step = by_head ? num_cores : 1;
  const std::int32_t h_start = by_head ? core_index : 0;

  const std::int32_t b = program_id(1) * b_step + b_start;
  const std::int32_t h = program_id(2) * h_step + h_start;
  const std::int32_t i = program_id(3);
  const std::int32_t length = lengths_ref[b];

  // Block i of (b, h) if it holds tokens, else the first block of the next
  // head, else of the next sequence of non-zero length.
  auto compute_block_indices = [&](std::int32_t cur_b, std::int32_t cur_h,
                                   std::int32_t cur_i) {
    using Indices = std::tuple<std::int32_t, std::int32_t, std::int32_t>;
    if (cur_i * bk < lengths_ref[cur_b])
      return Indices{cur_b, cur_h, cur_i};
    const std::int32_t next_h = cur_h + h_step;
    if (next_h < num_kv_heads)
      return Indices{cur_b, next_h, 0};
    std::int32_t next_b = cur_b + b_step;
    if (next_b < batch_size && lengths_ref[next_b] == 0) {
      next_b += b_step;
      for (std::int32_t n = next_b / b_step; n < batch_size / b_step; ++n)
        if (lengths_ref[next_b] == 0)
          next_b += b_step;
    }
    return Indices{next_b, h_start, 0};
  };

  auto create_kv_async_copy_descriptors =
      [&](std::int32_t blk_b, std::int32_t blk_h, std::int32_t blk_i,
          std::int32_t buffer_index) {
        const index_t page_offset =
            blk_b * pages_per_sequence + blk_i * pages_per_compute_block;
        MultiPageAsyncCopyDescriptor async_copy_k(
            k_pages_hbm_ref, k_vmem_buffer.at(buffer_index), sem,
            page_indices_ref, page_offset, pages_per_compute_block, blk_h);
        MultiPageAsyncCopyDescriptor async_copy_v(
            v_pages_hbm_ref, v_vmem_buffer.at(buffer_index), sem,
            page_indices_ref, page_offset, pages_per_compute_block, blk_h);
        return std::make_pair(async_copy_k, async_copy_v);
      };

  if (i * bk >= length)
    return;  // flash_attention: this block of the sequence holds no tokens

  const std::int32_t init_flag = *init_flag_ref;
  *init_flag_ref = 0;
  const std::int32_t buffer_index = *buffer_index_ref;
  const auto [next_b, next_h, next_i] = compute_block_indices(b, h, i + 1);

  if (init_flag != 0) {  // prefetch_first_block
    auto [async_copy_k, async_copy_v] =
        create_kv_async_copy_descriptors(b, h, i, buffer_index);
    async_copy_k.start();
    async_copy_v.start();
  }

  if (i == 0)
    init_softmax_state(m_ref, l_ref, o_ref);

  if (next_b < batch_size) {  // prefetch_next_block
    const std::int32_t next_buffer_index = buffer_index == 0 ? 1 : 0;
    auto [async_copy_next_k, async_copy_next_v] =
        create_kv_async_copy_descriptors(next_b, next_h, next_i,
                                         next_buffer_index);
    async_copy_next_k.start();
    async_copy_next_v.start();
    *buffer_index_ref = next_buffer_index;
  }

  auto [async_copy_k, async_copy_v] =
      create_kv_async_copy_descriptors(b, h, i, buffer_index);
  const Ref<bf16> k = async_copy_k.wait_and_get_loaded();
  // CHECK-NOTES: :[[@LINE-1]]:36: warning: 'MultiPageAsyncCopyDescriptor::wait_and_get_loaded' waits here on 'sem' for 'k_vmem_buffer.at(buffer_index)' and may return on the bytes of the copy into 'k_vmem_buffer.at(next_buffer_index)', which signals the same semaphore and is still in flight; give each buffer slot its own semaphore [dma-semaphore-race]
  // CHECK-NOTES: :[[@LINE-113]]:12: note: the wait in 'MultiPageAsyncCopyDescriptor::wait_and_get_loaded' is here
  // CHECK-NOTES: :[[@LINE-10]]:23: note: the copy into 'k_vmem_buffer.at(next_buffer_index)' is started here on 'sem', by 'MultiPageAsyncCopyDescriptor::start', and not waited before the function returns
  // CHECK-NOTES: :[[@LINE-120]]:12: note: 'MultiPageAsyncCopyDescriptor::start' starts it here
  const BlockScores s = score_block(q_ref, k, i * bk, length, mask_value,
                                    attn_logits_soft_cap, m_ref, l_ref);
  const Ref<bf16> v = async_copy_v.wait_and_get_loaded();
  // CHECK-NOTES: :[[@LINE-1]]:36: warning: 'MultiPageAsyncCopyDescriptor::wait_and_get_loaded' waits here on 'sem' for 'v_vmem_buffer.at(buffer_index)' and may return on the bytes of the copy into 'v_vmem_buffer.at(next_buffer_index)', which signals the same semaphore and is still in flight; give each buffer slot its own semaphore [dma-semaphore-race]
  // CHECK-NOTES: :[[@LINE-120]]:12: note: the wait in 'MultiPageAsyncCopyDescriptor::wait_and_get_loaded' is here
  // CHECK-NOTES: :[[@LINE-16]]:23: note: the copy into 'v_vmem_buffer.at(next_buffer_index)' is started here on 'sem', by 'MultiPageAsyncCopyDescriptor::start', and not waited before the function returns
  // CHECK-NOTES: :[[@LINE-127]]:12: note: 'MultiPageAsyncCopyDescriptor::start' starts it here
  accumulate_block(s, v, o_ref, l_ref);
}
