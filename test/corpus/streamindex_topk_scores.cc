// CHECKS: -*,dma-*
//
// DeepSeek-V4 StreamIndex top-k scoring, after _scores_kernel in
// tpu_inference/kernels/experimental/deepseek_v4/indexer/streamindex_topk.py
// (vllm-project/tpu-inference b8692ff01f). One grid step per batch of
// `seq_batch_size` sequences (several decode sequences per step, one otherwise);
// the step loops over query blocks (bq) and, per bq, over blocks of the
// compressed FP8 index cache (bkv), and writes one block of scores per (bq, bkv)
// to HBM. The kernel's Python closures are C++ lambdas held by locals:
// `fetch_bkv(seq, bkv, slot, wait)` and `fetch_bq(seq, bq, slot, wait)` start
// the copies of a block (one DMA per cache page, past-the-end pages clamped to
// the last page index and the last HBM page; the query rows and their indexer
// weights) or, with wait=true, wait them through one `(dst, dst)` descriptor
// per sequence of the batch; `start_fetch_*` / `wait_fetch_*` wrap them, and
// `start_send_scores` / `wait_send_scores` send a block of scores out of one
// of two VMEM slots and wait it before the slot is written again. Every DMA
// goes through copy_or_wait (`_async_copy(src, dst, sem, wait)`, a template
// here since the streams have three element types). Three streams are
// double-buffered, each slot and each sequence of the batch with its own
// semaphore of one (4, 2, seq_batch_size) array: row 0 the KV block, row 1 the
// query rows, row 3 their weights, row 2 (batch 0) the scores; the slots live
// in SMEM (sem_ids, bo_sz holds the rows of each scores slot's send in flight,
// -1 when none). The next bq and the next bkv are prefetched into the other
// slot (`slot == 0 ? 1 : 0`) under `next_seq < end_seq` before the current
// ones are waited; the first step of a launch starts the first blocks and the
// last drains both scores slots. Expected: no diagnostics.

#include <tpu/dma.h>

#include <algorithm>
#include <cstdint>

using namespace tpu;

struct bf16 { std::uint16_t bits; };
struct fp8 { std::uint8_t bits; };  // index cache: e4m3 values, e8m0 scale lanes

inline std::int32_t cdiv(std::int32_t a, std::int32_t b) { return (a + b - 1) / b; }

// `ref[:, pl.ds(start, size)]`: a view along the sublane-group dimension of the
// scores. Ref::slice only cuts the majormost dimension.
Ref<float> sublane_groups(Ref<float> ref, index_t start, index_t size);

// load_bq, load_bq_weights, load_bkv and compute_scores for every sequence of
// the batch (no DMA): q.k per head, relu, weighted sum over the heads, the
// block's scales, masked to -inf past the compressed length and the causal
// position; the block of scores written into `scores_block`.
void compute_scores(Ref<bf16> bq, Ref<float> bq_weights, Ref<fp8> bkv,
                    const std::int32_t* seq_lens, const std::int32_t* cu_q_lens,
                    std::int32_t first_seq, std::int32_t seq_batch_size,
                    std::int32_t bq_idx, std::int32_t bkv_idx,
                    std::int32_t compression_ratio, Ref<float> scores_block);

// The kernel's static (trace-time) parameters.
struct Static {
  std::int32_t compression_ratio;
  std::int32_t static_q_len;  // < 0: dynamic (the mixed launch)
  std::int32_t bkv_p;         // cache pages per KV block
  std::int32_t bq_sz;
  std::int32_t seq_batch_size;
  std::int32_t page_size_per_kv_packing;
  std::int32_t kv_packing;
  std::int32_t total_num_pages;
  std::int32_t max_num_seqs;
  std::int32_t num_page_indices;  // max_num_seqs * pages_per_seq
};

namespace {

// Rows of the (4, 2, seq_batch_size) DMA semaphore array.
constexpr int kBkvSem = 0;
constexpr int kBqSem = 1;
constexpr int kBoSem = 2;
constexpr int kBqWeightsSem = 3;

// _async_copy: start a copy, or rebuild it only to wait on it.
template <typename T>
void copy_or_wait(Ref<T> src, Ref<T> dst, DmaSemaphore sem, bool wait) {
  AsyncCopyDescriptor cp = make_async_copy(src, dst, sem);
  if (wait)
    cp.wait();
  else
    cp.start();
}

}  // namespace

void streamindex_scores_kernel(
    const Static& s,
    // Scalar prefetch (SMEM).
    const std::int32_t* seq_lens, const std::int32_t* page_indices,
    const std::int32_t* cu_q_lens,
    const std::int32_t* start_end_seq_idx,  // [2]
    std::int32_t* sem_ids,                  // [3]: bq, bkv, bo slot
    std::int32_t* bo_sz,                    // [2]
    // HBM. The cache is viewed as [total_num_pages * page_size_per_kv_packing,
    // kv_packing, lkv_dim]; the scores are aliased to their -inf initial value.
    Ref<bf16> q_hbm, Ref<float> indexer_weights_hbm, Ref<fp8> cache_kv_hbm,
    Ref<float> scores_hbm,
    // VMEM scratch: [2, seq_batch_size, ...], the scores [2, seq_batch_size *
    // bq_sz, ...].
    Ref<fp8> bkv_x2, Ref<bf16> bq_x2, Ref<float> bq_weights_x2,
    Ref<float> scores_block_x2,
    SemaphoreArray<DmaSemaphore> sems) {  // DMA((4, 2, seq_batch_size))
  const std::int32_t ps_pk = s.page_size_per_kv_packing;
  const std::int32_t pages_per_seq = s.num_page_indices / s.max_num_seqs;
  const std::int32_t bkv_sz_per_kv_packing = s.bkv_p * ps_pk;
  const std::int32_t bkv_sz = bkv_sz_per_kv_packing * s.kv_packing;
  const std::int32_t num_sublanes_bkv = bkv_sz / 128;
  const std::int32_t max_hbm_pages = s.total_num_pages * ps_pk;

  const std::int32_t start_seq_idx = start_end_seq_idx[0];
  const std::int32_t end_seq_idx = start_end_seq_idx[1];
  const std::int32_t batch_start_seq_idx =
      start_seq_idx + program_id(0) * s.seq_batch_size;
  const std::int32_t batch_end_seq_idx =
      batch_start_seq_idx + s.seq_batch_size - 1;

  // The block of scores in slot `bo_slot` left in an earlier (bq, bkv) or grid
  // step: wait its send before the slot is written again.
  auto wait_send_scores = [&](std::int32_t bo_slot) {
    const std::int32_t old_sz = bo_sz[bo_slot];
    if (old_sz >= 0) {
      Ref<float> dst =
          scores_block_x2.at(bo_slot).slice(0, s.seq_batch_size * old_sz);
      copy_or_wait(dst, dst, sems.at(kBoSem, bo_slot, 0), true);
    }
  };

  // One DMA for the whole batch: every sequence has the same row count.
  auto start_send_scores = [&](std::int32_t bo_slot, std::int32_t sz,
                               std::int32_t token_start, std::int32_t bkv_idx) {
    bo_sz[bo_slot] = sz;
    const std::int32_t rows = s.seq_batch_size * sz;
    copy_or_wait(scores_block_x2.at(bo_slot).slice(0, rows),
                 sublane_groups(scores_hbm.slice(token_start, rows),
                                bkv_idx * num_sublanes_bkv, num_sublanes_bkv),
                 sems.at(kBoSem, bo_slot, 0), false);
  };

  // KV block `bkv_idx` of each sequence of the batch into slot `slot`.
  auto fetch_bkv = [&](std::int32_t seq_idx, std::int32_t bkv_idx,
                       std::int32_t slot, bool wait) {
    for (std::int32_t b = 0; b < s.seq_batch_size; ++b) {
      const DmaSemaphore sem = sems.at(kBkvSem, slot, b);
      Ref<fp8> bkv_vmem = bkv_x2.at(slot).at(b);
      const std::int32_t first_page =
          (seq_idx + b) * pages_per_seq + bkv_idx * s.bkv_p;
      if (!wait) {
        for (std::int32_t i = 0; i < s.bkv_p; ++i) {
          const std::int32_t page =
              std::min(first_page + i, s.num_page_indices - 1);
          const std::int32_t hbm_row = std::min(
              page_indices[page] * ps_pk, std::max(0, max_hbm_pages - ps_pk));
          copy_or_wait(cache_kv_hbm.slice(hbm_row, ps_pk),
                       bkv_vmem.slice(i * ps_pk, ps_pk), sem, false);
        }
      } else {
        Ref<fp8> dst_kv = bkv_vmem.slice(0, bkv_sz_per_kv_packing);
        copy_or_wait(dst_kv, dst_kv, sem, true);
      }
    }
  };

  // Query block `bq_idx` of each sequence of the batch, rows and weights.
  auto fetch_bq = [&](std::int32_t seq_idx, std::int32_t bq_idx,
                      std::int32_t slot, bool wait) {
    for (std::int32_t b = 0; b < s.seq_batch_size; ++b) {
      const DmaSemaphore sem = sems.at(kBqSem, slot, b);
      const DmaSemaphore weights_sem = sems.at(kBqWeightsSem, slot, b);
      Ref<bf16> bq_vmem = bq_x2.at(slot).at(b);
      Ref<float> bq_weights_vmem = bq_weights_x2.at(slot).at(b);
      const std::int32_t q_start = cu_q_lens[seq_idx + b] + bq_idx * s.bq_sz;
      const std::int32_t q_end = cu_q_lens[seq_idx + b + 1];
      const std::int32_t sz = std::max(0, std::min(s.bq_sz, q_end - q_start));
      if (!wait) {
        copy_or_wait(q_hbm.slice(q_start, sz), bq_vmem.slice(0, sz), sem, false);
        copy_or_wait(indexer_weights_hbm.slice(q_start, sz),
                     bq_weights_vmem.slice(0, sz), weights_sem, false);
      } else {
        Ref<bf16> dst = bq_vmem.slice(0, sz);
        copy_or_wait(dst, dst, sem, true);
        Ref<float> dst_w = bq_weights_vmem.slice(0, sz);
        copy_or_wait(dst_w, dst_w, weights_sem, true);
      }
    }
  };

  auto start_fetch_bkv = [&](std::int32_t seq_idx, std::int32_t bkv_idx,
                             std::int32_t slot) {
    fetch_bkv(seq_idx, bkv_idx, slot, false);
  };
  auto wait_fetch_bkv = [&](std::int32_t seq_idx, std::int32_t bkv_idx,
                            std::int32_t slot) {
    fetch_bkv(seq_idx, bkv_idx, slot, true);
  };
  auto start_fetch_bq = [&](std::int32_t seq_idx, std::int32_t bq_idx,
                            std::int32_t slot) {
    fetch_bq(seq_idx, bq_idx, slot, false);
  };
  auto wait_fetch_bq = [&](std::int32_t seq_idx, std::int32_t bq_idx,
                           std::int32_t slot) {
    fetch_bq(seq_idx, bq_idx, slot, true);
  };

  // ------- Kernel start -------

  if (batch_start_seq_idx == start_seq_idx) {
    start_fetch_bq(start_seq_idx, 0, 0);
    start_fetch_bkv(start_seq_idx, 0, 0);
  }

  // process(): the longest sequence of the batch sets the number of KV blocks.
  std::int32_t kv_len_max = 0;
  for (std::int32_t b = 0; b < s.seq_batch_size; ++b)
    kv_len_max = std::max(kv_len_max,
                          seq_lens[batch_start_seq_idx + b] / s.compression_ratio);
  const std::int32_t num_bkv = std::max(1, cdiv(kv_len_max, bkv_sz));
  const std::int32_t q_len0 =
      cu_q_lens[batch_start_seq_idx + 1] - cu_q_lens[batch_start_seq_idx];
  const std::int32_t num_bq = std::max(
      1, cdiv(s.static_q_len < 0 ? q_len0 : s.static_q_len, s.bq_sz));

  for (std::int32_t bq_idx = 0; bq_idx < num_bq; ++bq_idx) {
    const std::int32_t bq_slot = sem_ids[0];
    const bool is_last_bq = bq_idx + 1 == num_bq;
    const std::int32_t next_bq_idx = is_last_bq ? 0 : bq_idx + 1;
    const std::int32_t next_bq_seq_idx =
        is_last_bq ? batch_start_seq_idx + s.seq_batch_size : batch_start_seq_idx;
    const std::int32_t next_bq_slot = bq_slot == 0 ? 1 : 0;

    // Prefetch the next bq, then wait for the current one.
    if (next_bq_seq_idx < end_seq_idx) {
      sem_ids[0] = next_bq_slot;
      start_fetch_bq(next_bq_seq_idx, next_bq_idx, next_bq_slot);
    }
    wait_fetch_bq(batch_start_seq_idx, bq_idx, bq_slot);

    // With more than one sequence per batch the query length is 1: every
    // sequence sends the same number of rows.
    const std::int32_t token_start =
        cu_q_lens[batch_start_seq_idx] + bq_idx * s.bq_sz;
    const std::int32_t q_end = cu_q_lens[batch_start_seq_idx + 1];
    const std::int32_t sz = std::max(0, std::min(s.bq_sz, q_end - token_start));

    for (std::int32_t bkv_idx = 0; bkv_idx < num_bkv; ++bkv_idx) {
      const std::int32_t bkv_slot = sem_ids[1];
      const bool is_last_bkv = bkv_idx + 1 == num_bkv;
      const std::int32_t next_bkv_idx = is_last_bkv ? 0 : bkv_idx + 1;
      const std::int32_t next_kv_bq_idx = is_last_bkv ? bq_idx + 1 : bq_idx;
      const std::int32_t next_bkv_seq_idx =
          next_kv_bq_idx == num_bq ? batch_start_seq_idx + s.seq_batch_size
                                   : batch_start_seq_idx;
      const std::int32_t next_bkv_slot = bkv_slot == 0 ? 1 : 0;

      // Prefetch the next bkv, then wait for the current one.
      if (next_bkv_seq_idx < end_seq_idx) {
        sem_ids[1] = next_bkv_slot;
        start_fetch_bkv(next_bkv_seq_idx, next_bkv_idx, next_bkv_slot);
      }
      wait_fetch_bkv(batch_start_seq_idx, bkv_idx, bkv_slot);

      // Scores through a double-buffered VMEM slot: reuse a slot only once its
      // previous send has drained, so the HBM write overlaps the next compute.
      const std::int32_t bo_slot = sem_ids[2];
      wait_send_scores(bo_slot);
      compute_scores(bq_x2.at(bq_slot), bq_weights_x2.at(bq_slot),
                     bkv_x2.at(bkv_slot), seq_lens, cu_q_lens,
                     batch_start_seq_idx, s.seq_batch_size, bq_idx, bkv_idx,
                     s.compression_ratio, scores_block_x2.at(bo_slot));
      start_send_scores(bo_slot, sz, token_start, bkv_idx);
      sem_ids[2] = bo_slot == 0 ? 1 : 0;
    }
  }

  if (batch_end_seq_idx == end_seq_idx - 1) {
    for (std::int32_t i = 0; i < 2; ++i) wait_send_scores(i);
  }

  // ------- Kernel end -------
}
