// CHECKS: -*,dma-*
//
// Multi-latent attention over a ragged paged KV cache, after
// _mla_ragged_paged_attention_kernel in tpu_inference/kernels/mla/v1/kernel.py;
// a copy of mla_ragged_paged_attention.cc with one planted bug: the
// start-or-wait lambda (Python's `_async_copy`) finishes a copy with
// `wait_send()`, as code written for remote DMAs does, but every copy it
// builds is a local make_async_copy (KV pages, query parts, output block):
// there is no send side to wait on (Pallas: "Cannot `wait_send` on a local
// copy."). The lambda is generic and the kernel a template instantiated
// twice: one dma-wait-send-on-local-copy finding, at the lambda's wait_send.

#include <tpu/dma.h>

#include <algorithm>
#include <cstdint>
#include <optional>

using namespace tpu;

struct bf16 { std::uint16_t bits; };
struct fp8 { std::uint8_t bits; };

template <class F> void when(bool c, F f) { if (c) f(); }

inline std::int32_t cdiv(std::int32_t a, std::int32_t b) { return (a + b - 1) / b; }

// `ref[..., start:start + size]`: a view along the minor (lane) dimension.
// Ref::slice only cuts the majormost dimension.
template <typename T> Ref<T> lanes(Ref<T> ref, index_t start, index_t size);

// The online-softmax update and the final normalisation (no DMA).
template <typename QT, typename KVT>
void flash_attention(Ref<QT> q_nope, Ref<QT> q_pe, Ref<KVT> kv_c, Ref<KVT> k_pe,
                     std::int32_t q_rows, std::int32_t kv_rows, std::int32_t bq_idx,
                     std::int32_t bkv_idx, Ref<float> l, Ref<float> m,
                     Ref<float> acc);
template <typename QT>
void store_output(Ref<float> l, Ref<float> acc, Ref<QT> bo_slot);

namespace {

constexpr int kBkvSems = 0;
constexpr int kBqSems = 1;
constexpr int kBoSems = 2;

struct Static {  // the kernel's static (trace-time) parameters
  std::int32_t bkv_p, bq_sz, page_size_per_kv_packing, kv_packing;
  std::int32_t pages_per_seq, nope_dim, r_dim;
  std::optional<std::int32_t> chunk_prefill_size;
  bool debug_mode;
};

struct NextIds {
  std::int32_t seq, bq, bkv, slot;
};

}  // namespace

template <typename QT, typename KVT>
void mla_ragged_paged_attention_kernel(
    const Static &s,
    // Scalar prefetch (SMEM).
    const std::int32_t *kv_lens, const std::int32_t *page_indices,
    const std::int32_t *cu_q_lens, const std::int32_t *distribution,
    std::int32_t *sem_ids,  // [3]: bq, bkv, bo slot
    std::int32_t *bo_ids,   // [4]: seq of bo slot 0, 1; bq of bo slot 0, 1
    // HBM. The cache is viewed as [pages * page_size_per_kv_packing, ...].
    Ref<QT> ql_nope_hbm, Ref<QT> q_pe_hbm, Ref<KVT> cache_kv_hbm,
    Ref<QT> o_hbm,
    // VMEM scratch, each [2, ...].
    Ref<KVT> bkvc_x2, Ref<KVT> bkpe_x2, Ref<QT> bq_nope_x2,
    Ref<QT> bq_rope_x2, Ref<QT> bo_x2, SemaphoreArray<DmaSemaphore> sems,
    Ref<float> l_ref, Ref<float> m_ref, Ref<float> acc_ref) {
  const std::int32_t ps_pk = s.page_size_per_kv_packing;
  const std::int32_t page_size = ps_pk * s.kv_packing;
  const std::int32_t bkv_sz = s.bkv_p * ps_pk * s.kv_packing;
  const std::int32_t seq_idx = program_id(0);
  const std::int32_t num_seqs = num_programs(0);
  const std::int32_t decode_end = distribution[0];
  const std::int32_t prefill_end = distribution[1];
  const std::int32_t mixed_end = distribution[2];
  const std::int32_t q_len = cu_q_lens[seq_idx + 1] - cu_q_lens[seq_idx];
  const std::int32_t kv_len = kv_lens[seq_idx];

  // Start a copy, or rebuild it only to wait on it.
  auto copy_or_wait = [&](auto src, auto dst, DmaSemaphore sem, bool wait) {
    if (s.debug_mode) return;
    AsyncCopyDescriptor cp = make_async_copy(src, dst, sem);
    if (wait)
      cp.wait_send();
      // CHECK-MESSAGES: :[[@LINE-1]]:{{[0-9]+}}: warning: {{.*}} [dma-wait-send-on-local-copy]
      // CHECK-FIXES: {{^}}      cp.wait_recv();{{$}}
    else
      cp.start();
  };

  // KV block `bkv` of `seq` into slot `slot`: per page, its latent lanes
  // into bkvc and its rope lanes into bkpe, both on the slot's semaphore.
  auto fetch_bkv = [&](std::int32_t seq, std::int32_t bkv, std::int32_t slot,
                       bool wait) {
    const DmaSemaphore sem = sems.at(kBkvSems, slot);
    Ref<KVT> c_vmem = bkvc_x2.at(slot);
    Ref<KVT> pe_vmem = bkpe_x2.at(slot);
    const std::int32_t kv_left = kv_lens[seq] - bkv * bkv_sz;
    const std::int32_t kv_left_pk = cdiv(kv_left, s.kv_packing);
    const std::int32_t first = seq * s.pages_per_seq + bkv * s.bkv_p;
    const std::int32_t pages = std::min(cdiv(kv_left, page_size), s.bkv_p);
    for (std::int32_t i = 0; i < pages; ++i) {
      const std::int32_t rows = std::min(ps_pk, kv_left_pk - i * ps_pk);
      Ref<KVT> page = cache_kv_hbm.slice(page_indices[first + i] * ps_pk, rows);
      copy_or_wait(lanes(page, 0, s.nope_dim), c_vmem.slice(i * ps_pk, rows),
                   sem, wait);
      copy_or_wait(lanes(page, s.nope_dim, s.r_dim),
                   pe_vmem.slice(i * ps_pk, rows), sem, wait);
    }
  };

  // Query block `bq` of `seq`: its nope and rope parts on the slot's semaphore.
  auto fetch_bq = [&](std::int32_t seq, std::int32_t bq, std::int32_t slot,
                      bool wait) {
    const DmaSemaphore sem = sems.at(kBqSems, slot);
    const std::int32_t start = cu_q_lens[seq] + bq * s.bq_sz;
    const std::int32_t rows = std::min(s.bq_sz, cu_q_lens[seq + 1] - start);
    copy_or_wait(ql_nope_hbm.slice(start, rows),
                 bq_nope_x2.at(slot).slice(0, rows), sem, wait);
    copy_or_wait(q_pe_hbm.slice(start, rows), bq_rope_x2.at(slot).slice(0, rows),
                 sem, wait);
  };

  // Output block `bo` of `seq` from slot `slot` back to HBM.
  auto send_bo = [&](std::int32_t seq, std::int32_t bo, std::int32_t slot,
                     bool wait) {
    const std::int32_t start = cu_q_lens[seq] + bo * s.bq_sz;
    const std::int32_t rows = std::min(s.bq_sz, cu_q_lens[seq + 1] - start);
    copy_or_wait(bo_x2.at(slot).slice(0, rows), o_hbm.slice(start, rows),
                 sems.at(kBoSems, slot), wait);
  };

  auto start_fetch_bkv = [&](std::int32_t seq, std::int32_t bkv,
                             std::int32_t slot) { fetch_bkv(seq, bkv, slot, false); };
  auto wait_fetch_bkv = [&](std::int32_t seq, std::int32_t bkv,
                            std::int32_t slot) { fetch_bkv(seq, bkv, slot, true); };
  auto start_fetch_bq = [&](std::int32_t seq, std::int32_t bq,
                            std::int32_t slot) { fetch_bq(seq, bq, slot, false); };
  auto wait_fetch_bq = [&](std::int32_t seq, std::int32_t bq,
                           std::int32_t slot) { fetch_bq(seq, bq, slot, true); };
  auto start_send_bo = [&](std::int32_t seq, std::int32_t bo, std::int32_t slot) {
    bo_ids[slot] = seq;
    bo_ids[slot + 2] = bo;
    send_bo(seq, bo, slot, false);
  };
  // Whatever slot `slot` sent last (this step or an earlier one) has left.
  auto wait_send_bo = [&](std::int32_t slot) {
    const std::int32_t old_seq = bo_ids[slot];
    const std::int32_t old_bo = bo_ids[slot + 2];
    when(0 <= old_seq && old_seq <= seq_idx,
         [&] { send_bo(old_seq, old_bo, slot, true); });
  };

  auto process = [&](std::optional<std::int32_t> static_q_len) {
    const std::int32_t num_bkv = cdiv(kv_len, bkv_sz);
    std::int32_t actual_bq_sz = s.bq_sz;
    std::int32_t num_bq = cdiv(q_len, actual_bq_sz);
    if (static_q_len) {
      actual_bq_sz = std::min(s.bq_sz, *static_q_len);
      num_bq = cdiv(*static_q_len, actual_bq_sz);
    }

    auto next_bq_ids = [&](std::int32_t seq, std::int32_t bq, std::int32_t slot) {
      const bool last_bq = bq + 1 == num_bq;
      return NextIds{last_bq ? seq + 1 : seq, last_bq ? 0 : bq + 1, 0,
                     slot == 0 ? 1 : 0};
    };
    auto next_bkv_ids = [&](std::int32_t seq, std::int32_t bq, std::int32_t bkv,
                            std::int32_t slot) {
      const bool last_bkv = bkv + 1 == num_bkv;
      std::int32_t next_bq = last_bkv ? bq + 1 : bq;
      const bool last_bq = next_bq == num_bq;
      next_bq = last_bq ? 0 : next_bq;
      return NextIds{last_bq ? seq + 1 : seq, next_bq, last_bkv ? 0 : bkv + 1,
                     slot == 0 ? 1 : 0};
    };

    for (std::int32_t bq = 0; bq < num_bq; ++bq) {
      const std::int32_t bq_slot = sem_ids[0];
      const NextIds nq = next_bq_ids(seq_idx, bq, bq_slot);
      when(nq.seq < num_seqs, [&] {
        sem_ids[0] = nq.slot;
        start_fetch_bq(nq.seq, nq.bq, nq.slot);
      });

      for (std::int32_t bkv = 0; bkv < num_bkv; ++bkv) {
        const std::int32_t kv_rows = std::min(bkv_sz, kv_len - bkv * bkv_sz);
        const std::int32_t bkv_slot = sem_ids[1];
        const NextIds nk = next_bkv_ids(seq_idx, bq, bkv, bkv_slot);
        when(nk.seq < num_seqs, [&] {
          sem_ids[1] = nk.slot;
          start_fetch_bkv(nk.seq, nk.bkv, nk.slot);
        });
        when(bkv == 0, [&] { wait_fetch_bq(seq_idx, bq, bq_slot); });
        wait_fetch_bkv(seq_idx, bkv, bkv_slot);
        if (s.debug_mode) continue;
        flash_attention(bq_nope_x2.at(bq_slot), bq_rope_x2.at(bq_slot),
                        bkvc_x2.at(bkv_slot), bkpe_x2.at(bkv_slot),
                        actual_bq_sz, kv_rows, bq, bkv, l_ref, m_ref, acc_ref);
      }

      // The output slot may be overwritten once its previous send has left.
      const std::int32_t bo_slot = sem_ids[2];
      sem_ids[2] = bo_slot == 0 ? 1 : 0;
      wait_send_bo(bo_slot);
      store_output(l_ref, acc_ref, bo_x2.at(bo_slot));
      start_send_bo(seq_idx, bq, bo_slot);
    }
  };

  when(seq_idx == 0, [&] {
    start_fetch_bq(0, 0, 0);
    start_fetch_bkv(0, 0, 0);
  });
  when(seq_idx < decode_end, [&] { process(1); });
  when(decode_end <= seq_idx && seq_idx < prefill_end,
       [&] { process(s.chunk_prefill_size); });
  when(prefill_end <= seq_idx && seq_idx < mixed_end,
       [&] { process(std::nullopt); });
  when(seq_idx == num_seqs - 1, [&] {
    for (std::int32_t slot = 0; slot < 2; ++slot) wait_send_bo(slot);
  });
}

#define MLA_KERNEL_ARGS(QT, KVT)                                              \
  const Static &, const std::int32_t *, const std::int32_t *,                 \
      const std::int32_t *, const std::int32_t *, std::int32_t *,             \
      std::int32_t *, Ref<QT>, Ref<QT>, Ref<KVT>, Ref<QT>, Ref<KVT>, Ref<KVT>, \
      Ref<QT>, Ref<QT>, Ref<QT>, SemaphoreArray<DmaSemaphore>, Ref<float>,     \
      Ref<float>, Ref<float>

template void mla_ragged_paged_attention_kernel<bf16, bf16>(MLA_KERNEL_ARGS(bf16, bf16));
template void mla_ragged_paged_attention_kernel<bf16, fp8>(MLA_KERNEL_ARGS(bf16, fp8));
