// CHECKS: -*,dma-*
//
// Fused recurrent gated delta rule (GDN) forward, after _recurrent_gdn_main in
// tpu_inference/kernels/gdn/v1/fused_gdn_recurrent_kernel.py
// (vllm-project/tpu-inference b8692ff01f); a copy of gdn_recurrent_state.cc
// with one planted bug, the one jax fixed in paged attention (0e690c1a88): the
// initial states of both state slots are loaded on ONE semaphore, `h_load_sem`,
// instead of `h_load_sems[slot]`. The state slot is still carried across the
// block loop (`h_next = 1 - h_slot`, `h_slot = h_next;` at a sequence end, after
// the waits). On a sequence of one block, the next sequence's initial state is
// prefetched into the other slot, on that semaphore, before this sequence's
// state is waited, and nothing waits the prefetch before the iteration ends:
// the wait can return on the prefetch's bytes and the recurrence start from a
// half-loaded state. dma-semaphore-race reports the wait, with a note at the
// prefetch.

#include <tpu/dma.h>

#include <algorithm>
#include <cstdint>

using namespace tpu;

struct bf16 { std::uint16_t bits; };

// Scalar-prefetch metadata in SMEM, written by calculate_chunk_indices.
struct ChunkIndices {
  std::int32_t num_blocks;
  const std::int32_t* block_to_seq;  // [num_blocks + 1], -1 after the last block
  const std::int32_t* block_to_t;    // [num_blocks + 1], first token of a block
};

struct GdnParams {
  float scale;
  bool use_qk_l2norm;
  bool use_gate_in_kernel;
  bool has_dt_bias;
};

// The per-token recurrence over one block in VMEM (no DMA): updates h in place
// and writes the block's output rows.
void gdn_recurrent_block(Ref<bf16> q, Ref<bf16> k, Ref<bf16> v, Ref<float> g,
                         Ref<bf16> beta, Ref<float> a_log, Ref<float> dt_bias,
                         Ref<float> h, Ref<bf16> o, index_t len,
                         const GdnParams& params);
void fill_zero(Ref<float> h);

namespace {

// The pipeline's token streams: rows of the (stream, slot) semaphore array.
enum Stream { kQ = 0, kK = 1, kV = 2, kG = 3, kBeta = 4 };

// One BlockSpec input of the pipeline: rows [t_start, t_start + len) of a
// token-major HBM array into one VMEM slot, started (a prefetch) or rebuilt
// with the same rows and semaphore and waited.
template <typename T>
void stream_rows(Ref<T> hbm, Ref<T> slot_buf, DmaSemaphore sem, index_t t_start,
                 index_t len, bool wait) {
  auto rows =
      make_async_copy(hbm.slice(t_start, len), slot_buf.slice(0, len), sem);
  if (wait)
    rows.wait();
  else
    rows.start();
}

}  // namespace

void recurrent_gdn_kernel(
    const ChunkIndices& meta, Ref<bf16> q_hbm, Ref<bf16> k_hbm, Ref<bf16> v_hbm,
    Ref<float> g_hbm, Ref<bf16> beta_hbm, const std::int32_t* state_indices,
    Ref<float> a_log_hbm, Ref<float> dt_bias_hbm,
    const std::int32_t* has_initial_state, Ref<bf16> o_hbm,
    Ref<float> state_hbm,
    // VMEM scratch: the state double buffer, the pipeline's slots.
    Ref<float> h_bufs, Ref<bf16> q_vmem, Ref<bf16> k_vmem, Ref<bf16> v_vmem,
    Ref<float> g_vmem, Ref<bf16> beta_vmem, Ref<bf16> o_vmem,
    Ref<float> a_log_vmem, Ref<float> dt_bias_vmem,
    DmaSemaphore h_load_sem,                    // one for both slots
    SemaphoreArray<DmaSemaphore> h_store_sems,  // DMA((2,))
    SemaphoreArray<DmaSemaphore> in_sems,       // DMA((5, 2)): stream, slot
    SemaphoreArray<DmaSemaphore> out_sems,      // DMA((2,))
    const GdnParams& params) {
  const std::int32_t num_blocks = meta.num_blocks;
  if (num_blocks == 0) return;
  const std::int32_t* block_to_seq = meta.block_to_seq;
  const std::int32_t* block_to_t = meta.block_to_t;

  // Blocks whose index never changes are fetched once.
  if (params.use_gate_in_kernel) {
    sync_copy(a_log_hbm, a_log_vmem);
    if (params.has_dt_bias) sync_copy(dt_bias_hbm, dt_bias_vmem);
  }

  // Prologue: the first block's rows into slot 0, and the first sequence's
  // initial state into state slot 0; neither is waited here.
  const std::int32_t first_seq = block_to_seq[0];
  {
    const index_t t0 = block_to_t[0];
    const index_t len0 = block_to_t[1] - t0;
    stream_rows(q_hbm, q_vmem.at(0), in_sems.at(kQ, 0), t0, len0, false);
    stream_rows(k_hbm, k_vmem.at(0), in_sems.at(kK, 0), t0, len0, false);
    stream_rows(v_hbm, v_vmem.at(0), in_sems.at(kV, 0), t0, len0, false);
    stream_rows(g_hbm, g_vmem.at(0), in_sems.at(kG, 0), t0, len0, false);
    stream_rows(beta_hbm, beta_vmem.at(0), in_sems.at(kBeta, 0), t0, len0,
                false);
  }
  make_async_copy(state_hbm.at(state_indices[first_seq]), h_bufs.at(0),
                  h_load_sem)
      .start();

  std::int32_t h_slot = 0;
  for (std::int32_t blk = 0; blk < num_blocks; ++blk) {
    const std::int32_t seq = block_to_seq[blk];
    const std::int32_t next_seq = block_to_seq[blk + 1];
    const bool is_new_seq = blk == 0 || block_to_seq[blk - 1] != seq;
    const bool is_seq_end = next_seq != seq;
    const std::int32_t h_next = 1 - h_slot;
    const std::int32_t state = state_indices[seq];
    const std::int32_t next_state = state_indices[std::max(next_seq, 0)];
    const index_t t_start = block_to_t[blk];
    const index_t len = block_to_t[blk + 1] - t_start;

    // Token rows: the next block's into the other slot, then this block's.
    if (blk + 1 < num_blocks) {
      const index_t n_start = block_to_t[blk + 1];
      const index_t n_len = block_to_t[blk + 2] - n_start;
      stream_rows(q_hbm, q_vmem.at((blk + 1) % 2), in_sems.at(kQ, (blk + 1) % 2),
                  n_start, n_len, false);
      stream_rows(k_hbm, k_vmem.at((blk + 1) % 2), in_sems.at(kK, (blk + 1) % 2),
                  n_start, n_len, false);
      stream_rows(v_hbm, v_vmem.at((blk + 1) % 2), in_sems.at(kV, (blk + 1) % 2),
                  n_start, n_len, false);
      stream_rows(g_hbm, g_vmem.at((blk + 1) % 2), in_sems.at(kG, (blk + 1) % 2),
                  n_start, n_len, false);
      stream_rows(beta_hbm, beta_vmem.at((blk + 1) % 2),
                  in_sems.at(kBeta, (blk + 1) % 2), n_start, n_len, false);
    }
    stream_rows(q_hbm, q_vmem.at(blk % 2), in_sems.at(kQ, blk % 2), t_start, len,
                true);
    stream_rows(k_hbm, k_vmem.at(blk % 2), in_sems.at(kK, blk % 2), t_start, len,
                true);
    stream_rows(v_hbm, v_vmem.at(blk % 2), in_sems.at(kV, blk % 2), t_start, len,
                true);
    stream_rows(g_hbm, g_vmem.at(blk % 2), in_sems.at(kG, blk % 2), t_start, len,
                true);
    stream_rows(beta_hbm, beta_vmem.at(blk % 2), in_sems.at(kBeta, blk % 2),
                t_start, len, true);

    // Initial states: the next sequence's into the other slot on this one's
    // last block, then this sequence's on its first block.
    auto prefetch = make_async_copy(state_hbm.at(next_state), h_bufs.at(h_next),
                                    h_load_sem);
    auto load = make_async_copy(state_hbm.at(state), h_bufs.at(h_slot),
                                h_load_sem);
    if (is_seq_end && next_seq >= 0) {
      // The other slot still holds the previous sequence's final state on its
      // way to HBM.
      if (seq != first_seq)
        make_async_copy(h_bufs.at(h_next), state_hbm.at(state),
                        h_store_sems[h_next])
            .wait();
      prefetch.start();
    }
    if (is_new_seq) {
      load.wait();
      // CHECK-MESSAGES: :[[@LINE-1]]:{{[0-9]+}}: warning: {{.*}} [dma-semaphore-race]
      // A freshly allocated pool entry holds a previous tenant's state.
      if (has_initial_state[seq] == 0) fill_zero(h_bufs.at(h_slot));
    }

    gdn_recurrent_block(q_vmem.at(blk % 2), k_vmem.at(blk % 2),
                        v_vmem.at(blk % 2), g_vmem.at(blk % 2),
                        beta_vmem.at(blk % 2), a_log_vmem, dt_bias_vmem,
                        h_bufs.at(h_slot), o_vmem.at(blk % 2), len, params);

    // This block's output rows out; the previous block's are waited now,
    // before the next block writes into their slot.
    make_async_copy(o_vmem.at(blk % 2).slice(0, len), o_hbm.slice(t_start, len),
                    out_sems[blk % 2])
        .start();
    if (blk > 0) {
      const index_t p_start = block_to_t[blk - 1];
      const index_t p_len = t_start - p_start;
      make_async_copy(o_vmem.at((blk - 1) % 2).slice(0, p_len),
                      o_hbm.slice(p_start, p_len), out_sems[(blk - 1) % 2])
          .wait();
    }

    // The sequence's final state back to its pool entry; the next sequence
    // takes the other slot.
    if (is_seq_end) {
      make_async_copy(h_bufs.at(h_slot), state_hbm.at(state),
                      h_store_sems[h_slot])
          .start();
      h_slot = h_next;
    }
  }

  // Epilogue: the last block's output rows, then the last sequence's store
  // (the slot before the final flip) and, with two sequences or more, the one
  // before it.
  const std::int32_t last = num_blocks - 1;
  const index_t last_start = block_to_t[last];
  const index_t last_len = block_to_t[last + 1] - last_start;
  make_async_copy(o_vmem.at(last % 2).slice(0, last_len),
                  o_hbm.slice(last_start, last_len), out_sems[last % 2])
      .wait();
  const std::int32_t last_seq = block_to_seq[last];
  make_async_copy(h_bufs.at(1 - h_slot), state_hbm.at(0),
                  h_store_sems[1 - h_slot])
      .wait();
  if (last_seq != first_seq)
    make_async_copy(h_bufs.at(h_slot), state_hbm.at(0), h_store_sems[h_slot])
        .wait();
}
