// CHECKS: -*,dma-*
//
// Ragged paged attention, after _ragged_paged_attention_kernel_loop in
// tpu_inference/kernels/ragged_paged_attention/v3/kernel.py (vllm-project/
// tpu-inference), which extends ragged_paged_attention/kernel.py of jax. One
// grid step per sequence; inside, a loop over query blocks (bq) and, per bq, a
// loop over KV blocks (bkv). Every stream is double-buffered in VMEM and has
// one semaphore per buffer slot, in one (4, 2) array: row 0 the KV fetch, row
// 1 the query fetch, row 2 the output send, row 3 the write-back of new KV
// into the paged cache. The slot in use for each stream lives in SMEM
// (sem_ids), so the pipeline runs on across grid steps. The next block is
// prefetched into the other slot before the current one is waited; the wait
// is the `_async_copy(src, dst, sem, wait)` idiom: the same helper starts a
// copy (wait=false) or rebuilds it only to wait (wait=true), and for the KV
// block, fetched with one DMA per page plus one for the new tokens, the wait
// is one aggregate (dst, dst) descriptor over the whole filled range on the
// slot's semaphore. A slot's KV buffer is refilled only after its write-back
// to the cache has been waited; the epilogue drains both slots' output sends
// and write-backs. Exercises: per-slot semaphores through helpers of the
// translation unit (sems.at(row, slot) with the slot a helper parameter),
// start-or-wait helpers called with constant and with variable `wait`,
// aggregate placeholder waits, zero-size page copies (sz == 0) started
// without a branch, starts and waits in different grid steps. Expected: no
// diagnostics.

#include <tpu/dma.h>

#include <algorithm>
#include <cstdint>
#include <utility>

using namespace tpu;

struct bf16 {
  std::uint16_t bits;
};

// The flash-attention arithmetic on VMEM blocks (no DMA).
void reset_accumulators(Ref<float> l, Ref<float> m, Ref<float> acc);
void attend(Ref<bf16> q_block, Ref<bf16> kv_block, std::int32_t kv_tokens,
            Ref<float> l, Ref<float> m, Ref<float> acc);
void finish_output(Ref<float> l, Ref<float> acc, Ref<bf16> o_block);

namespace {

constexpr int kKvFetch = 0;
constexpr int kQFetch = 1;
constexpr int kOutSend = 2;
constexpr int kKvUpdate = 3;

// The scalar-prefetch and SMEM state the kernel's closures share.
struct Meta {
  const std::int32_t *kv_lens;
  const std::int32_t *page_indices;  // [num_seqs * pages_per_seq]
  const std::int32_t *cu_q_lens;     // [num_seqs + 1]
  std::int32_t *sem_ids;             // [3]: bq, bkv, bo slots
  std::int32_t *bo_ids;              // [4]: seq and bq index sent from each bo slot
  std::int32_t *update_ids;          // [6]: seq, offset, size written back per kv slot
  std::int32_t pages_per_seq, page_size, pages_per_bkv, bq_sz;
};

// _async_copy: start the copy, or rebuild it only to wait on it.
template <typename T>
void async_copy_or_wait(Ref<T> src, Ref<T> dst, DmaSemaphore sem, bool wait) {
  AsyncCopyDescriptor copy = make_async_copy(src, dst, sem);
  if (wait)
    copy.wait();
  else
    copy.start();
}

// The new KV tokens in bkv slot `slot` go back to the paged cache, one DMA
// per page; with `wait`, one aggregate wait for that write-back instead.
void update_kv_cache(const Meta &m, Ref<bf16> bkv_x2, Ref<bf16> kv_cache,
                     SemaphoreArray<DmaSemaphore> sems, std::int32_t seq,
                     std::int32_t slot, std::int32_t offset, std::int32_t size,
                     bool wait) {
  const DmaSemaphore sem = sems.at(kKvUpdate, slot);
  if (wait) {
    Ref<bf16> written = kv_cache.slice(0, size);
    async_copy_or_wait(written, written, sem, /*wait=*/true);
    return;
  }
  const std::int32_t first_page = offset / m.page_size;
  const std::int32_t last_page = (offset + size + m.page_size - 1) / m.page_size;
  std::int32_t left = size;
  std::int32_t skip = offset % m.page_size;
  for (std::int32_t p = first_page; p < last_page; ++p) {
    const std::int32_t sz = std::min(m.page_size - skip, left);
    const std::int32_t page = m.page_indices[seq * m.pages_per_seq + p];
    async_copy_or_wait(bkv_x2.at(slot).slice((p - first_page) * m.page_size + skip, sz),
                       kv_cache.slice(page * m.page_size + skip, sz), sem,
                       /*wait=*/false);
    left -= sz;
    skip = 0;
  }
}

void wait_update_kv_cache(const Meta &m, Ref<bf16> bkv_x2, Ref<bf16> kv_cache,
                          SemaphoreArray<DmaSemaphore> sems, std::int32_t slot) {
  const std::int32_t size = m.update_ids[slot + 4];
  if (size > 0) {
    m.update_ids[slot + 4] = 0;
    update_kv_cache(m, bkv_x2, kv_cache, sems, m.update_ids[slot], slot,
                    m.update_ids[slot + 2], size, /*wait=*/true);
  }
}

// _fetch_bkv: the pages of KV block `bkv` of `seq` that are in the cache, one
// DMA per page, then the sequence's new tokens; or the one aggregate wait
// for all of them. Returns where the new tokens start and how many there are.
std::pair<std::int32_t, std::int32_t>
fetch_bkv(const Meta &m, Ref<bf16> kv_cache, Ref<bf16> kv_new, Ref<bf16> bkv_x2,
          SemaphoreArray<DmaSemaphore> sems, std::int32_t seq, std::int32_t bkv,
          std::int32_t slot, bool wait) {
  const DmaSemaphore sem = sems.at(kKvFetch, slot);
  Ref<bf16> vmem = bkv_x2.at(slot);
  const std::int32_t bkv_sz = m.pages_per_bkv * m.page_size;
  const std::int32_t q_len = m.cu_q_lens[seq + 1] - m.cu_q_lens[seq];
  const std::int32_t kv_left = m.kv_lens[seq] - bkv * bkv_sz;
  const std::int32_t from_cache = std::min(std::max(kv_left - q_len, 0), bkv_sz);
  const std::int32_t from_new = std::min(bkv_sz - from_cache, kv_left - from_cache);
  if (!wait) {
    // The write-back out of this slot must be done before it is refilled.
    wait_update_kv_cache(m, bkv_x2, kv_cache, sems, slot);
    const std::int32_t first = seq * m.pages_per_seq + bkv * m.pages_per_bkv;
    for (std::int32_t i = 0; i < m.pages_per_bkv; ++i) {
      // Past the sequence's end: a zero-size copy, no branch.
      const std::int32_t sz =
          std::min(std::max(from_cache - i * m.page_size, 0), m.page_size);
      const std::int32_t page = m.page_indices[first + i];
      async_copy_or_wait(kv_cache.slice(page * m.page_size, sz),
                         vmem.slice(i * m.page_size, sz), sem, /*wait=*/false);
    }
    const std::int32_t new_start = m.cu_q_lens[seq + 1] - (kv_left - from_cache);
    async_copy_or_wait(kv_new.slice(new_start, from_new),
                       vmem.slice(from_cache, from_new), sem, wait);
  } else {
    // Every DMA above signalled `sem`: one wait for all of their bytes.
    Ref<bf16> filled = vmem.slice(0, from_cache + from_new);
    async_copy_or_wait(filled, filled, sem, /*wait=*/true);
  }
  return {bkv * bkv_sz + from_cache, from_new};
}

// _fetch_bq and _send_bo: one copy each, started or waited.
void fetch_bq(const Meta &m, Ref<bf16> q_hbm, Ref<bf16> bq_x2,
              SemaphoreArray<DmaSemaphore> sems, std::int32_t seq, std::int32_t bq,
              std::int32_t slot, bool wait) {
  const std::int32_t start = m.cu_q_lens[seq] + bq * m.bq_sz;
  const std::int32_t sz = std::min(m.bq_sz, m.cu_q_lens[seq + 1] - start);
  async_copy_or_wait(q_hbm.slice(start, sz), bq_x2.at(slot).slice(0, sz),
                     sems.at(kQFetch, slot), wait);
}

void send_bo(const Meta &m, Ref<bf16> bo_x2, Ref<bf16> o_hbm,
             SemaphoreArray<DmaSemaphore> sems, std::int32_t seq, std::int32_t bo,
             std::int32_t slot, bool wait) {
  const std::int32_t start = m.cu_q_lens[seq] + bo * m.bq_sz;
  const std::int32_t sz = std::min(m.bq_sz, m.cu_q_lens[seq + 1] - start);
  async_copy_or_wait(bo_x2.at(slot).slice(0, sz), o_hbm.slice(start, sz),
                     sems.at(kOutSend, slot), wait);
}

// The output block sent from `slot` earlier (in this grid step or an
// earlier one) has left VMEM.
void wait_send_bo(const Meta &m, Ref<bf16> bo_x2, Ref<bf16> o_hbm,
                  SemaphoreArray<DmaSemaphore> sems, std::int32_t slot,
                  std::int32_t first_seq, std::int32_t seq) {
  const std::int32_t old_seq = m.bo_ids[slot];
  if (first_seq <= old_seq && old_seq <= seq)
    send_bo(m, bo_x2, o_hbm, sems, old_seq, m.bo_ids[slot + 2], slot, /*wait=*/true);
}

}  // namespace

void ragged_paged_attention_v3_kernel(
    const Meta &m, Ref<bf16> q_hbm, Ref<bf16> kv_new, Ref<bf16> kv_cache,
    Ref<bf16> o_hbm, Ref<bf16> bq_x2, Ref<bf16> bkv_x2, Ref<bf16> bo_x2,
    SemaphoreArray<DmaSemaphore> sems, Ref<float> l_ref, Ref<float> m_ref,
    Ref<float> acc_ref, std::int32_t first_seq, std::int32_t end_seq) {
  const std::int32_t seq = program_id(0);
  const std::int32_t q_len = m.cu_q_lens[seq + 1] - m.cu_q_lens[seq];
  const std::int32_t bkv_sz = m.pages_per_bkv * m.page_size;
  const std::int32_t num_bq = (q_len + m.bq_sz - 1) / m.bq_sz;
  const std::int32_t num_bkv = (m.kv_lens[seq] + bkv_sz - 1) / bkv_sz;

  // Prologue: the first sequence of this kernel fetches its own first blocks.
  if (seq == first_seq) {
    fetch_bq(m, q_hbm, bq_x2, sems, first_seq, 0, 0, /*wait=*/false);
    fetch_bkv(m, kv_cache, kv_new, bkv_x2, sems, first_seq, 0, 0, /*wait=*/false);
  }

  if (first_seq <= seq && seq < end_seq) {
    for (std::int32_t bq = 0; bq < num_bq; ++bq) {
      reset_accumulators(l_ref, m_ref, acc_ref);
      const std::int32_t bq_slot = m.sem_ids[0];
      const bool last_bq = bq + 1 == num_bq;
      const std::int32_t next_bq_seq = last_bq ? seq + 1 : seq;
      if (next_bq_seq < end_seq) {
        const std::int32_t next_bq_slot = bq_slot == 0 ? 1 : 0;
        m.sem_ids[0] = next_bq_slot;
        fetch_bq(m, q_hbm, bq_x2, sems, next_bq_seq, last_bq ? 0 : bq + 1,
                 next_bq_slot, /*wait=*/false);
      }
      for (std::int32_t bkv = 0; bkv < num_bkv; ++bkv) {
        const std::int32_t bkv_slot = m.sem_ids[1];
        const bool last_bkv = bkv + 1 == num_bkv;
        const std::int32_t next_seq = last_bkv && last_bq ? seq + 1 : seq;
        if (next_seq < end_seq) {
          const std::int32_t next_bkv_slot = bkv_slot == 0 ? 1 : 0;
          m.sem_ids[1] = next_bkv_slot;
          fetch_bkv(m, kv_cache, kv_new, bkv_x2, sems, next_seq,
                    last_bkv ? 0 : bkv + 1, next_bkv_slot, /*wait=*/false);
        }
        if (bkv == 0)
          fetch_bq(m, q_hbm, bq_x2, sems, seq, bq, bq_slot, /*wait=*/true);
        const auto [offset, update_sz] =
            fetch_bkv(m, kv_cache, kv_new, bkv_x2, sems, seq, bkv, bkv_slot,
                      /*wait=*/true);
        if (update_sz > 0 && last_bq) {
          m.update_ids[bkv_slot] = seq;
          m.update_ids[bkv_slot + 2] = offset;
          m.update_ids[bkv_slot + 4] = update_sz;
          update_kv_cache(m, bkv_x2, kv_cache, sems, seq, bkv_slot, offset,
                          update_sz, /*wait=*/false);
        }
        attend(bq_x2.at(bq_slot), bkv_x2.at(bkv_slot),
               std::min(m.kv_lens[seq] - bkv * bkv_sz, bkv_sz), l_ref, m_ref,
               acc_ref);
      }
      // The output slot is free once what it sent last has left.
      const std::int32_t bo_slot = m.sem_ids[2];
      m.sem_ids[2] = bo_slot == 0 ? 1 : 0;
      wait_send_bo(m, bo_x2, o_hbm, sems, bo_slot, first_seq, seq);
      finish_output(l_ref, acc_ref, bo_x2.at(bo_slot));
      m.bo_ids[bo_slot] = seq;
      m.bo_ids[bo_slot + 2] = bq;
      send_bo(m, bo_x2, o_hbm, sems, seq, bq, bo_slot, /*wait=*/false);
    }
  }

  // Epilogue: nothing may be in flight when the kernel ends.
  if (seq == end_seq - 1) {
    for (std::int32_t slot = 0; slot < 2; ++slot) {
      wait_send_bo(m, bo_x2, o_hbm, sems, slot, first_seq, seq);
      wait_update_kv_cache(m, bkv_x2, kv_cache, sems, slot);
    }
  }
}
