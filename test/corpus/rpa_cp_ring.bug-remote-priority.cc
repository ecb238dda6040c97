// CHECKS: -*,dma-*
//
// Port of _ragged_paged_attention_kernel_loop in
// tpu_inference/kernels/experimental/rpa_v3_cp/kernel.py (vllm-project/
// tpu-inference b8692ff01f), context-parallel ring configuration
// (pcp_ring_axis_name set, update_kv_cache off, as the ring path requires).
// The kernel loops over sequences; per sequence, over query blocks (bq) and,
// per bq, over KV blocks times cp_group_size rounds. The local pipeline is the
// RPA v3 one (sems (5, 2): bkv fetch, bq fetch, bo send per slot, plus the LSE
// copy), with the start-or-wait closure `_async_copy` and (dst, dst) waits.
// New here: each round sends the KV slot being attended to the next rank of
// the ring (a remote copy into the other slot, built every round, started and
// waited with wait() except in the last round), and a regular semaphore
// `ring_sync_sem` that the receiver signals back to its ring predecessor to
// release the slot (waited before each send except in the last round and the
// very first one). Planted bug (one):
// the remote KV rotation is started with priority 1.

#include <tpu/dma.h>

#include <algorithm>
#include <cstdint>

using namespace tpu;

struct bf16 {
  std::uint16_t bits;
};

template <class F> void when(bool c, F f) {
  if (c)
    f();
}

// Flash-attention arithmetic on VMEM blocks (no DMA).
void reset_accumulators(Ref<float> l, Ref<float> m, Ref<float> acc);
void attend(Ref<bf16> bq, Ref<bf16> bkv, std::int32_t kv_tokens,
            std::int32_t processed_q_len, std::int32_t processed_kv_len,
            Ref<float> l, Ref<float> m, Ref<float> acc);
void finish_output(Ref<float> l, Ref<float> m, Ref<float> acc, Ref<bf16> bo,
                   bool with_lse);

namespace {

constexpr std::int32_t kPageSize = 16;
constexpr std::int32_t kBkvSz = 128;
constexpr std::int32_t kBkvP = kBkvSz / kPageSize;
constexpr std::int32_t kBqSz = 32;
constexpr std::int32_t kCpGroupSize = 4;
constexpr bool kReturnLse = true;

std::int32_t cdiv(std::int32_t a, std::int32_t b) { return (a + b - 1) / b; }

}  // namespace

struct Prefetch {
  const std::int32_t *kv_lens;
  const std::int32_t *kv_cache_lens;
  const std::int32_t *page_indices;
  const std::int32_t *cu_q_lens;
  std::int32_t *sem_ids;  // bq, bkv, bo slot
  std::int32_t *bo_ids;   // seq of bo slot 0/1, bq of bo slot 0/1
  const std::int32_t *cp_rank;
  std::int32_t pages_per_seq;
  std::int32_t num_page_indices;
};

struct BkvFetch {
  std::int32_t offset, sz_frm_new, sz_frm_cache;
};

void rpa_cp_ring_seq(std::int32_t seq_idx, const Prefetch &p,
                     Ref<bf16> q_hbm, Ref<bf16> kv_hbm, Ref<bf16> kv_cache_hbm,
                     Ref<bf16> o_hbm, Ref<float> lse_hbm, Ref<bf16> bkv_x2,
                     Ref<bf16> bq_x2, Ref<bf16> bo_x2,
                     SemaphoreArray<DmaSemaphore> sems, Ref<float> l_ref,
                     Ref<float> m_ref, Ref<float> acc_ref,
                     SemaphoreArray<DmaSemaphore> ring_dma_sems,
                     Semaphore ring_sync_sem, std::int32_t start_seq_idx,
                     std::int32_t end_seq_idx) {
  const std::int32_t q_start = p.cu_q_lens[seq_idx];
  const std::int32_t q_end = p.cu_q_lens[seq_idx + 1];
  const std::int32_t q_len = q_end - q_start;
  const std::int32_t cp_rank = p.cp_rank[0];

  auto cp_local_size_of_rank = [&](std::int32_t x, std::int32_t rank) {
    return (x + kCpGroupSize - 1 - rank) / kCpGroupSize;
  };
  auto kv_new_len_of = [&](std::int32_t s) {
    return p.kv_lens[s] - p.kv_cache_lens[s];
  };
  auto kv_new_end_of = [&](std::int32_t s) { return kv_new_len_of(s); };
  auto kv_cache_len_global = [&](std::int32_t s) {
    return p.kv_lens[s] - kv_new_len_of(s);
  };
  auto kv_cache_len_local = [&](std::int32_t s) {
    return cp_local_size_of_rank(kv_cache_len_global(s), cp_rank);
  };

  // The ring: ranks along "cp", the device's own coordinate along "dp".
  const std::int32_t my_ring_id = axis_index("cp");
  const std::int32_t my_dp = axis_index("dp");
  const DeviceId ring_next_id{my_dp, (my_ring_id + 1) % kCpGroupSize};
  const DeviceId ring_prev_id{my_dp,
                              (my_ring_id + kCpGroupSize - 1) % kCpGroupSize};

  const std::int32_t cur_seq_start_bkv_idx = 0;  // no sliding window

  // _async_copy: start the copy, or rebuild it only to wait on it.
  auto async_copy = [&](auto src, auto dst, DmaSemaphore sem, bool wait) {
    auto cp = make_async_copy(src, dst, sem);
    if (wait)
      cp.wait();
    else
      cp.start();
  };

  auto fetch_bkv = [&](std::int32_t s, std::int32_t bkv_idx,
                       std::int32_t bkv_sem_idx, bool wait) -> BkvFetch {
    const DmaSemaphore sem = sems.at(0, bkv_sem_idx);
    Ref<bf16> vmem = bkv_x2.at(bkv_sem_idx);
    const std::int32_t total_kv_len = p.kv_lens[s];
    const std::int32_t new_len = kv_new_len_of(s);
    const std::int32_t new_end = kv_new_end_of(s);
    const std::int32_t kv_len_local = kv_cache_len_local(s) + new_len;

    const std::int32_t kv_len_start = bkv_idx * kBkvSz;
    const std::int32_t kv_p_start = bkv_idx * kBkvP;
    const std::int32_t kv_left = std::max(kv_len_local - kv_len_start, 0);
    // update_kv_cache is off: everything comes from the cache.
    const std::int32_t kv_left_frm_cache = kv_left;
    const std::int32_t kv_left_frm_new = kv_left - kv_left_frm_cache;
    const std::int32_t sz_frm_cache = std::min(kv_left_frm_cache, kBkvSz);
    const std::int32_t sz_frm_new =
        std::min(kBkvSz - sz_frm_cache, kv_left_frm_new);
    const std::int32_t page_indices_offset =
        s * p.pages_per_seq + kv_p_start;

    if (!wait) {
      for (std::int32_t i = 0; i < kBkvP; ++i) {
        const std::int32_t sz =
            std::clamp(kv_left_frm_cache - i * kPageSize, 0, kPageSize);
        const std::int32_t page_idx =
            std::min(page_indices_offset + i, p.num_page_indices - 1);
        async_copy(
            kv_cache_hbm.slice(index_t(p.page_indices[page_idx]) * kPageSize,
                               sz),
            vmem.slice(i * kPageSize, sz), sem, false);
      }
      const std::int32_t new_kv_len_start = new_end - kv_left_frm_new;
      async_copy(kv_hbm.slice(new_kv_len_start, sz_frm_new),
                 vmem.slice(sz_frm_cache, sz_frm_new), sem, wait);
    } else {
      Ref<bf16> dst = vmem.slice(0, sz_frm_cache + sz_frm_new);
      async_copy(dst, dst, sem, true);
    }
    const std::int32_t new_kv_len_start = new_len - kv_left_frm_new;
    return {new_kv_len_start + (total_kv_len - new_len), sz_frm_new,
            sz_frm_cache};
  };

  auto fetch_bq = [&](std::int32_t s, std::int32_t bq_idx,
                      std::int32_t bq_sem_idx, bool wait) {
    const DmaSemaphore sem = sems.at(1, bq_sem_idx);
    const std::int32_t q_len_start = p.cu_q_lens[s] + bq_idx * kBqSz;
    const std::int32_t sz = std::min(kBqSz, p.cu_q_lens[s + 1] - q_len_start);
    async_copy(q_hbm.slice(q_len_start, sz), bq_x2.at(bq_sem_idx).slice(0, sz),
               sem, wait);
  };

  auto send_bo = [&](std::int32_t s, std::int32_t bo_idx,
                     std::int32_t bo_sem_idx, bool wait) {
    const DmaSemaphore sem = sems.at(2, bo_sem_idx);
    const std::int32_t q_len_start = p.cu_q_lens[s] + bo_idx * kBqSz;
    const std::int32_t sz = std::min(kBqSz, p.cu_q_lens[s + 1] - q_len_start);
    async_copy(bo_x2.at(bo_sem_idx).slice(0, sz), o_hbm.slice(q_len_start, sz),
               sem, wait);
  };

  auto start_fetch_bkv = [&](std::int32_t s, std::int32_t b, std::int32_t i) {
    return fetch_bkv(s, b, i, false);
  };
  auto wait_fetch_bkv = [&](std::int32_t s, std::int32_t b, std::int32_t i) {
    return fetch_bkv(s, b, i, true);
  };
  auto start_fetch_bq = [&](std::int32_t s, std::int32_t b, std::int32_t i) {
    fetch_bq(s, b, i, false);
  };
  auto wait_fetch_bq = [&](std::int32_t s, std::int32_t b, std::int32_t i) {
    fetch_bq(s, b, i, true);
  };
  auto start_send_bo = [&](std::int32_t s, std::int32_t b, std::int32_t i) {
    p.bo_ids[i] = s;
    p.bo_ids[i + 2] = b;
    send_bo(s, b, i, false);
  };
  auto wait_send_bo = [&](std::int32_t bo_sem_idx) {
    const std::int32_t old_seq_idx = p.bo_ids[bo_sem_idx];
    const std::int32_t old_bo_idx = p.bo_ids[bo_sem_idx + 2];
    when(start_seq_idx <= old_seq_idx && old_seq_idx <= seq_idx,
         [&] { send_bo(old_seq_idx, old_bo_idx, bo_sem_idx, true); });
  };

  auto process = [&] {
    const std::int32_t num_bq = cdiv(q_len, kBqSz);
    const std::int32_t global_cache_len = kv_cache_len_global(seq_idx);
    const std::int32_t max_local_len =
        cp_local_size_of_rank(global_cache_len, 0);
    const std::int32_t ring_num_bkv =
        std::max(cdiv(max_local_len, kBkvSz), 1);
    const std::int32_t kv_q_gap = kv_cache_len_local(seq_idx);

    for (std::int32_t bq_idx = 0; bq_idx < num_bq; ++bq_idx) {
      reset_accumulators(l_ref, m_ref, acc_ref);

      const std::int32_t bq_sem_idx = p.sem_ids[0];
      // get_next_bq_ids
      std::int32_t next_bq_idx = bq_idx + 1;
      const bool is_last_bq = next_bq_idx == num_bq;
      next_bq_idx = is_last_bq ? 0 : next_bq_idx;
      const std::int32_t next_q_seq_idx = is_last_bq ? seq_idx + 1 : seq_idx;
      const std::int32_t next_bq_sem_idx = bq_sem_idx == 0 ? 1 : 0;

      const std::int32_t processed_q_len = kv_q_gap + bq_idx * kBqSz;
      const std::int32_t start_bkv_idx = 0;
      const std::int32_t end_bkv_idx = ring_num_bkv * kCpGroupSize;

      when(next_q_seq_idx < end_seq_idx, [&] {
        p.sem_ids[0] = next_bq_sem_idx;
        start_fetch_bq(next_q_seq_idx, next_bq_idx, next_bq_sem_idx);
      });

      for (std::int32_t it = start_bkv_idx; it < end_bkv_idx; ++it) {
        // get_next_bkv_ids
        std::int32_t next_it = it + 1;
        const bool is_last_bkv = next_it == end_bkv_idx;
        std::int32_t next_bkv_bq_idx = is_last_bkv ? bq_idx + 1 : bq_idx;
        const bool next_is_last_bq = next_bkv_bq_idx == num_bq;
        const std::int32_t next_seq_idx =
            next_is_last_bq ? seq_idx + 1 : seq_idx;
        next_it = is_last_bkv ? 0 : next_it;
        next_it = next_is_last_bq
                      ? 0 // start bkv of the next sequence: no sliding window
                      : next_it;

        const std::int32_t round_idx = it % kCpGroupSize;
        const std::int32_t bkv_idx = it / kCpGroupSize;
        const std::int32_t next_bkv_idx = next_it / kCpGroupSize;
        const std::int32_t bkv_sem_idx = round_idx % 2;
        const std::int32_t next_bkv_sem_idx = 0;
        const bool is_last_round = round_idx == kCpGroupSize - 1;
        const std::int32_t processed_kv_len = bkv_idx * kBkvSz;

        when(next_seq_idx < end_seq_idx && is_last_round, [&] {
          p.sem_ids[1] = next_bkv_sem_idx;
          start_fetch_bkv(next_seq_idx, next_bkv_idx, next_bkv_sem_idx);
        });

        when(bkv_idx == start_bkv_idx && round_idx == 0,
             [&] { wait_fetch_bq(seq_idx, bq_idx, bq_sem_idx); });

        when(round_idx == 0,
             [&] { wait_fetch_bkv(seq_idx, bkv_idx, bkv_sem_idx); });

        // Send my bkv to the next rank of the ring.
        const std::int32_t src_rank =
            (my_ring_id + kCpGroupSize - round_idx) % kCpGroupSize;
        const std::int32_t effective_kv_len =
            cp_local_size_of_rank(global_cache_len, src_rank);
        const std::int32_t next_slot = 1 - bkv_sem_idx;
        const bool is_first_launch = seq_idx == start_seq_idx &&
                                     bq_idx == 0 && bkv_idx == 0 &&
                                     round_idx == 0;

        when(!is_last_round && !is_first_launch,
             [&] { semaphore_wait(ring_sync_sem, 1); });

        auto remote_op = make_async_remote_copy(
            bkv_x2.at(bkv_sem_idx).slice(0, kBkvSz),
            bkv_x2.at(next_slot).slice(0, kBkvSz), ring_dma_sems.at(0),
            ring_dma_sems.at(1), ring_next_id, DeviceIdType::kMesh);

        when(!is_last_round, [&] { remote_op.start(1); });  // BUG
// CHECK-MESSAGES: :[[@LINE-1]]:{{[0-9]+}}: warning: {{.*}} [dma-start-priority]

        const std::int32_t effective_bkv_sz =
            std::max(std::min(effective_kv_len - bkv_idx * kBkvSz, kBkvSz), 0);
        attend(bq_x2.at(bq_sem_idx), bkv_x2.at(bkv_sem_idx), effective_bkv_sz,
               processed_q_len, processed_kv_len, l_ref, m_ref, acc_ref);

        when(!is_last_round, [&] {
          remote_op.wait();
          // Tell the sender its next write target is free.
          when(round_idx < kCpGroupSize - 2, [&] {
            semaphore_signal(ring_sync_sem, 1, ring_prev_id,
                             DeviceIdType::kMesh);
          });
        });

        const bool is_last_launch = seq_idx == end_seq_idx - 1 &&
                                    bq_idx == num_bq - 1 &&
                                    bkv_idx == ring_num_bkv - 1 &&
                                    is_last_round;
        when(is_last_round && !is_last_launch, [&] {
          semaphore_signal(ring_sync_sem, 1, ring_prev_id,
                           DeviceIdType::kMesh);
        });
      }

      const std::int32_t bo_sem_idx = p.sem_ids[2];
      finish_output(l_ref, m_ref, acc_ref, bo_x2.at(bo_sem_idx), kReturnLse);

      if (kReturnLse) {
        const std::int32_t bq_q_start = q_start + bq_idx * kBqSz;
        const std::int32_t rows = std::min(kBqSz, q_end - bq_q_start);
        auto cp = make_async_copy(l_ref.slice(0, rows),
                                  lse_hbm.slice(bq_q_start, rows),
                                  sems.at(4, 0));
        cp.start();
        cp.wait();
      }

      // The previous output of this slot must have left before it is reused.
      p.sem_ids[2] = bo_sem_idx == 0 ? 1 : 0;
      wait_send_bo(bo_sem_idx);
      start_send_bo(seq_idx, bq_idx, bo_sem_idx);
    }
  };

  when(seq_idx == start_seq_idx, [&] {
    start_fetch_bq(start_seq_idx, 0, 0);
    start_fetch_bkv(start_seq_idx, cur_seq_start_bkv_idx, 0);
  });

  when(start_seq_idx <= seq_idx && seq_idx < end_seq_idx, process);

  when(seq_idx == end_seq_idx - 1, [&] {
    for (std::int32_t i = 0; i < 2; ++i)
      wait_send_bo(i);
  });
}

void rpa_cp_ring_kernel(const Prefetch &p, const std::int32_t *distribution,
                        Ref<bf16> q_hbm, Ref<bf16> kv_hbm,
                        Ref<bf16> kv_cache_hbm, Ref<bf16> o_hbm,
                        Ref<float> lse_hbm, Ref<bf16> bkv_x2, Ref<bf16> bq_x2,
                        Ref<bf16> bo_x2, SemaphoreArray<DmaSemaphore> sems,
                        Ref<float> l_ref, Ref<float> m_ref, Ref<float> acc_ref,
                        SemaphoreArray<DmaSemaphore> ring_dma_sems,
                        Semaphore ring_sync_sem) {
  // RpaCase.MIXED: sequences [distribution[1], distribution[2]).
  const std::int32_t start_seq_idx = distribution[1];
  const std::int32_t end_seq_idx = distribution[2];
  for (std::int32_t seq_idx = start_seq_idx; seq_idx < end_seq_idx; ++seq_idx)
    rpa_cp_ring_seq(seq_idx, p, q_hbm, kv_hbm, kv_cache_hbm, o_hbm, lse_hbm,
                    bkv_x2, bq_x2, bo_x2, sems, l_ref, m_ref, acc_ref,
                    ring_dma_sems, ring_sync_sem, start_seq_idx, end_seq_idx);
}
