// CHECKS: -*,dma-*
//
// Ragged paged attention v2, after ragged_paged_attention_kernel and
// MultiPageAsyncCopyDescriptor in
// tpu_inference/kernels/ragged_paged_attention/v2/kernel.py (vllm-project/
// tpu-inference f72396b4e1). The grid is (heads block, query block). A class
// owns the page copies of one KV block: one local DMA per page from the paged
// HBM cache into one slot of a double-buffered VMEM scratch (kv_bufs[2]), all
// on that slot's semaphore (sems[slot], a DMA((2,)) array); start() starts
// every page and wait() rebuilds nothing but waits every page and hands back
// the slot. The first grid step starts the first block. A while loop over the
// sequences that touch this query block holds a while loop over KV blocks;
// each KV iteration asks a helper for the next (heads block, sequence, KV
// block), takes the other slot (`cur == 0 ? 1 : 0`, computed in the helper in
// the Python, inline here so that the slots are provably disjoint), starts
// that block into it when a next heads block exists, and then rebuilds the current
// block's copies only to wait on them. The slot in use survives across grid
// steps in SMEM (seq_buf_idx). Exercises: a class with a std::vector member of
// descriptors built in its constructor, start/wait member functions, a helper
// returning the class by value, next ids returned in a struct from a helper,
// per-slot semaphores, starts and waits in different iterations and grid
// steps. Expected: no diagnostics.

#include <tpu/dma.h>

#include <algorithm>
#include <cstdint>
#include <vector>

using namespace tpu;

struct bf16 {
  std::uint16_t bits;
};

// Flash-attention update of one KV block for one query block (no DMA).
void flash_attention_block(Ref<bf16> q, Ref<bf16> kv_block, std::int32_t kv_blk,
                           std::int32_t kv_len, Ref<float> l, Ref<float> m,
                           Ref<float> acc);
void store_output(Ref<float> acc, Ref<bf16> o);

namespace {

std::int32_t ceil_div(std::int32_t a, std::int32_t b) { return (a + b - 1) / b; }

// The pages [first, end) of one sequence's KV block, one DMA per page, into
// one VMEM slot; pages past the end of the sequence fetch page 0 instead.
class PagedKvBlockCopy {
 public:
  PagedKvBlockCopy(Ref<bf16> hbm_pages, Ref<bf16> slot_buf, DmaSemaphore sem,
                   const std::int32_t *page_table, std::int32_t pages_per_seq,
                   std::int32_t seq, std::int32_t first_page,
                   std::int32_t end_page, std::int32_t pages_in_block)
      : slot_buf_(slot_buf) {
    for (std::int32_t p = 0; p < pages_in_block; ++p) {
      std::int32_t page = first_page + p;
      if (!(page < end_page)) page = 0;
      const std::int32_t phys = page_table[seq * pages_per_seq + page];
      copies_.push_back(make_async_copy(hbm_pages.at(phys), slot_buf.at(p), sem));
    }
  }

  void start() {
    for (AsyncCopyDescriptor &c : copies_) c.start();
  }

  Ref<bf16> wait() {
    for (AsyncCopyDescriptor &c : copies_) c.wait();
    return slot_buf_;
  }

 private:
  Ref<bf16> slot_buf_;
  std::vector<AsyncCopyDescriptor> copies_;
};

struct NextIds {
  std::int32_t heads_blk, seq, kv_blk;
};

// The kernel's operands, scratch and scalar-prefetch state.
struct RaggedAttention {
  const std::int32_t *kv_lens;       // [max_num_seqs]
  const std::int32_t *page_indices;  // [max_num_seqs * pages_per_seq]
  const std::int32_t *cu_q_lens;     // [max_num_seqs + 1]
  std::int32_t *seq_buf_idx;         // [2]: sequence, slot
  std::int32_t num_seqs;
  Ref<bf16> q;             // this grid step's query block
  Ref<bf16> kv_pages_hbm;  // [heads blocks][total pages] (HBM)
  Ref<bf16> o;
  Ref<bf16> kv_bufs;                  // [2][pages per block] (VMEM)
  SemaphoreArray<DmaSemaphore> sems;  // [2]
  Ref<float> l, m, acc;
  std::int32_t pages_per_seq, page_size, pages_per_blk;
  std::int32_t heads_blk_idx, num_heads_blks, q_len_start, q_len_end;

  std::int32_t kv_per_blk() const { return pages_per_blk * page_size; }

  PagedKvBlockCopy kv_block_copy(std::int32_t heads_blk, std::int32_t seq,
                                 std::int32_t kv_blk, std::int32_t buf) const {
    const std::int32_t first = kv_blk * pages_per_blk;
    const std::int32_t end =
        std::min(pages_per_seq, ceil_div(kv_lens[seq], page_size));
    return PagedKvBlockCopy(kv_pages_hbm.at(heads_blk), kv_bufs.at(buf),
                            sems.at(buf), page_indices, pages_per_seq, seq,
                            first, end, pages_per_blk);
  }

  NextIds next_prefetch_ids(std::int32_t seq, std::int32_t kv_blk,
                            std::int32_t kv_len, std::int32_t q_end) const {
    NextIds n;
    n.kv_blk = kv_blk + 1;
    const bool last_kv_blk = n.kv_blk * kv_per_blk() >= kv_len;
    if (last_kv_blk) n.kv_blk = 0;
    n.seq = last_kv_blk && q_end <= q_len_end ? seq + 1 : seq;
    const bool last_seq = n.seq == num_seqs;
    if (last_seq) n.seq = 0;
    n.heads_blk = last_seq ? heads_blk_idx + 1 : heads_blk_idx;
    return n;
  }

  // One iteration of the KV-block loop: prefetch the next block into the
  // other slot, then wait for the current one and attend to it.
  std::int32_t attend_kv_block(std::int32_t seq, std::int32_t kv_blk,
                               std::int32_t buf, std::int32_t kv_len,
                               std::int32_t q_end) {
    const NextIds next = next_prefetch_ids(seq, kv_blk, kv_len, q_end);
    const std::int32_t next_buf = buf == 0 ? 1 : 0;
    if (next.heads_blk < num_heads_blks) {
      PagedKvBlockCopy prefetch =
          kv_block_copy(next.heads_blk, next.seq, next.kv_blk, next_buf);
      prefetch.start();
    }
    PagedKvBlockCopy current = kv_block_copy(heads_blk_idx, seq, kv_blk, buf);
    Ref<bf16> kv = current.wait();
    flash_attention_block(q, kv, kv_blk, kv_len, l, m, acc);
    return next_buf;
  }

  // One iteration of the sequence loop: every KV block of sequence `seq`.
  std::int32_t attend_sequence(std::int32_t seq, std::int32_t buf, bool &done) {
    const std::int32_t q_end = cu_q_lens[seq + 1];
    const std::int32_t kv_len = kv_lens[seq];
    std::int32_t kv_blk = 0;
    while (kv_blk * kv_per_blk() < kv_len) {
      buf = attend_kv_block(seq, kv_blk, buf, kv_len, q_end);
      ++kv_blk;
    }
    if (!(q_end < q_len_end)) done = true;
    return buf;
  }

  void run() {
    const std::int32_t init_seq = seq_buf_idx[0];
    const std::int32_t init_buf = seq_buf_idx[1];
    if (heads_blk_idx + program_id(1) == 0) {
      PagedKvBlockCopy first = kv_block_copy(heads_blk_idx, init_seq, 0, init_buf);
      first.start();
    }
    bool done = false;
    std::int32_t seq = init_seq;
    std::int32_t buf = init_buf;
    while (!done && q_len_start < cu_q_lens[num_seqs] && seq < num_seqs) {
      const std::int32_t q_end = cu_q_lens[seq + 1];
      buf = attend_sequence(seq, buf, done);
      if (q_end <= q_len_end) ++seq;
    }
    seq_buf_idx[0] = seq < num_seqs ? seq : 0;
    seq_buf_idx[1] = buf;
    store_output(acc, o);
  }
};

}  // namespace

void ragged_paged_attention_kernel(
    const std::int32_t *kv_lens, const std::int32_t *page_indices,
    const std::int32_t *cu_q_lens, std::int32_t *seq_buf_idx,
    const std::int32_t *num_seqs, Ref<bf16> q, Ref<bf16> kv_pages_hbm,
    Ref<bf16> o, Ref<bf16> kv_bufs, SemaphoreArray<DmaSemaphore> sems,
    Ref<float> l, Ref<float> m, Ref<float> acc, std::int32_t pages_per_seq,
    std::int32_t page_size, std::int32_t pages_per_blk, std::int32_t q_per_blk) {
  const std::int32_t q_blk = program_id(1);
  RaggedAttention k{kv_lens, page_indices, cu_q_lens, seq_buf_idx, num_seqs[0],
                    q, kv_pages_hbm, o, kv_bufs, sems, l, m, acc,
                    pages_per_seq, page_size, pages_per_blk,
                    program_id(0), num_programs(0), q_blk * q_per_blk,
                    q_blk * q_per_blk + q_per_blk};
  k.run();
}
