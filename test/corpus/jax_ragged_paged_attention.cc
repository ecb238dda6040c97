// CHECKS: -*,dma-*
//
// Ragged paged attention after ragged_paged_attention_kernel and
// MultiPageAsyncCopyDescriptor in
// jax/experimental/pallas/ops/tpu/ragged_paged_attention/kernel.py (jax-ml/jax
// cec06d116c): K and V are interleaved along the head dim of ONE paged cache,
// so one block of pages is one set of local page copies (one per VMEM page of
// a double-buffered scratch, past-the-end pages clamped to page 0) on the
// slot's semaphore `sems.at(buf)` of a DMA((2,)) array. The class keeps its
// copies in a std::vector and starts or waits them all; its wait() hands back
// the VMEM slot. The Python closures are member functions of a kernel class:
// grid step (0, 0) starts the first block into the slot kept in SMEM; then two
// nested while loops (query sequences of this query block, KV blocks of each
// sequence) start the NEXT block (possibly of the next sequence or the next
// heads block) into the other slot (`buf == 0 ? 1 : 0`) when it exists, and
// only then rebuild the current block's copies to wait on them; the slot
// index is carried through the loops and stored back to SMEM for the next
// grid step, which waits what this one prefetched. A template on the cache
// element type, instantiated for bf16 and for int8 (the k_scale/v_scale path:
// scalars, not DMAs). Expected: no diagnostics.

#include <tpu/dma.h>

#include <algorithm>
#include <cstdint>
#include <vector>

using namespace tpu;

struct bf16 { std::uint16_t bits; };

// Strided view over the combined-head dim (pl.ds on a minor dim); opaque.
template <typename T>
Ref<T> combined_heads_window(Ref<T> pages_hbm, index_t first, index_t count);
// Online-softmax arithmetic on one KV block in VMEM (no DMA).
template <typename T>
void attend_kv_block(Ref<float> q, Ref<T> kv_block, Ref<float> l,
                     Ref<float> m, Ref<float> acc, std::int32_t kv_blk_idx,
                     float k_scale, float v_scale);
void store_output(Ref<float> acc, Ref<float> out);

template <typename T>
class PagedBlockCopy {
 public:
  PagedBlockCopy(Ref<T> pages_hbm, Ref<T> slot_buf, DmaSemaphore sem,
                 const std::int32_t* page_table, std::int32_t pages_per_seq,
                 std::int32_t seq, std::int32_t first_page,
                 std::int32_t page_limit, int pages_in_block)
      : slot_buf_(slot_buf) {
    for (int p = 0; p < pages_in_block; ++p) {
      std::int32_t logical = first_page + p;
      if (!(logical < page_limit)) logical = 0;
      const std::int32_t physical = page_table[seq * pages_per_seq + logical];
      copies_.push_back(
          make_async_copy(pages_hbm.at(physical), slot_buf_.at(p), sem));
    }
  }

  void start() {
    for (auto& c : copies_) c.start();
  }

  Ref<T> wait() {
    for (auto& c : copies_) c.wait();
    return slot_buf_;
  }

 private:
  Ref<T> slot_buf_;
  std::vector<AsyncCopyDescriptor> copies_;
};

struct PrefetchIds {
  std::int32_t heads_blk;
  std::int32_t seq;
  std::int32_t kv_blk;
  std::int32_t buf;
};

template <typename T>
class RaggedPagedAttention {
 public:
  const std::int32_t* kv_lens;
  const std::int32_t* page_table;
  const std::int32_t* cu_q_lens;
  std::int32_t* seq_buf_idx;  // SMEM: [seq_idx, buf_idx] across grid steps
  std::int32_t num_seqs;
  Ref<float> q;
  Ref<T> kv_pages_hbm;
  Ref<float> out;
  Ref<T> kv_bufs;  // [2, pages_per_blk, page_size, combined_heads, head_dim]
  SemaphoreArray<DmaSemaphore> sems;  // DMA((2,))
  Ref<float> l;
  Ref<float> m;
  Ref<float> acc;
  std::int32_t pages_per_seq;
  std::int32_t pages_per_blk;
  std::int32_t page_size;
  std::int32_t combined_heads_per_blk;
  std::int32_t q_per_blk;
  float k_scale;
  float v_scale;

  std::int32_t heads_blk_idx = 0;
  std::int32_t q_blk_idx = 0;
  std::int32_t num_heads_blks = 0;

  PagedBlockCopy<T> kv_copies(std::int32_t heads_blk, std::int32_t seq,
                              std::int32_t kv_blk, std::int32_t buf) const {
    const std::int32_t first_page = kv_blk * pages_per_blk;
    const std::int32_t page_limit =
        std::min(pages_per_seq, (kv_lens[seq] + page_size - 1) / page_size);
    Ref<T> window = combined_heads_window(
        kv_pages_hbm, heads_blk * combined_heads_per_blk,
        combined_heads_per_blk);
    return PagedBlockCopy<T>(window, kv_bufs.at(buf), sems.at(buf), page_table,
                             pages_per_seq, seq, first_page, page_limit,
                             pages_per_blk);
  }

  PrefetchIds next_prefetch_ids(std::int32_t seq, std::int32_t kv_blk,
                                std::int32_t buf, std::int32_t kv_len,
                                std::int32_t q_end,
                                std::int32_t q_len_end) const {
    const std::int32_t kv_per_blk = pages_per_blk * page_size;
    std::int32_t next_kv_blk = kv_blk + 1;
    const bool last_kv_blk = next_kv_blk * kv_per_blk >= kv_len;
    if (last_kv_blk) next_kv_blk = 0;
    std::int32_t next_seq = seq;
    if (last_kv_blk && q_end <= q_len_end) next_seq = seq + 1;
    std::int32_t next_heads_blk = heads_blk_idx;
    if (next_seq == num_seqs) {
      next_seq = 0;
      next_heads_blk = heads_blk_idx + 1;
    }
    const std::int32_t next_buf = buf == 0 ? 1 : 0;
    return PrefetchIds{next_heads_blk, next_seq, next_kv_blk, next_buf};
  }

  void prefetch_first_kv_blk(std::int32_t seq, std::int32_t buf) {
    PagedBlockCopy<T> first = kv_copies(heads_blk_idx, seq, 0, buf);
    first.start();
  }

  void prefetch_next_kv_blk(const PrefetchIds& next) {
    PagedBlockCopy<T> ahead =
        kv_copies(next.heads_blk, next.seq, next.kv_blk, next.buf);
    ahead.start();
  }

  // One KV block of the current sequence; returns the slot of the next one.
  std::int32_t compute_kv_blk(std::int32_t seq, std::int32_t kv_blk,
                              std::int32_t buf, std::int32_t kv_len,
                              std::int32_t q_end, std::int32_t q_len_end) {
    const PrefetchIds next =
        next_prefetch_ids(seq, kv_blk, buf, kv_len, q_end, q_len_end);
    if (next.heads_blk < num_heads_blks) prefetch_next_kv_blk(next);

    PagedBlockCopy<T> current = kv_copies(heads_blk_idx, seq, kv_blk, buf);
    Ref<T> kv_block = current.wait();
    attend_kv_block(q, kv_block, l, m, acc, kv_blk, k_scale, v_scale);
    return next.buf;
  }

  void run() {
    heads_blk_idx = program_id(0);
    q_blk_idx = program_id(1);
    num_heads_blks = num_programs(0);
    const std::int32_t init_seq = seq_buf_idx[0];
    const std::int32_t init_buf = seq_buf_idx[1];
    const std::int32_t q_len_start = q_blk_idx * q_per_blk;
    const std::int32_t q_len_end = q_len_start + q_per_blk;
    const std::int32_t kv_per_blk = pages_per_blk * page_size;

    if (heads_blk_idx + q_blk_idx == 0) prefetch_first_kv_blk(init_seq, init_buf);

    bool done = false;
    std::int32_t seq = init_seq;
    std::int32_t buf = init_buf;
    while (!done && q_len_start < cu_q_lens[num_seqs] && seq < num_seqs) {
      const std::int32_t q_end = cu_q_lens[seq + 1];
      const std::int32_t kv_len = kv_lens[seq];
      for (std::int32_t kv_blk = 0; kv_blk * kv_per_blk < kv_len; ++kv_blk)
        buf = compute_kv_blk(seq, kv_blk, buf, kv_len, q_end, q_len_end);
      const std::int32_t next_seq = q_end <= q_len_end ? seq + 1 : seq;
      if (!(q_end < q_len_end)) done = true;
      seq = next_seq;
    }
    seq_buf_idx[0] = seq < num_seqs ? seq : 0;
    seq_buf_idx[1] = buf;
    store_output(acc, out);
  }
};

template class RaggedPagedAttention<bf16>;
template class RaggedPagedAttention<std::int8_t>;
