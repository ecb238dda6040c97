// CHECKS: -*,dma-*
//
// Port of _decode_kernel_main in
// tpu_inference/kernels/gdn/v1/fused_gdn_decode_kernel.py (vllm-project/
// tpu-inference b8692ff01f): gated delta-rule decoding, one token per request.
// The recurrent states of a block of bt requests are gathered from HBM by
// state index, one DMA per token, into one of two VMEM state slots, and
// written back after the update. emit_pipeline's grid is written out as a
// loop over token blocks calling the inner kernel (q/k/v/g/o blocks are
// pipelined by emit_pipeline and reach the inner kernel as VMEM refs). Per
// block: prefetch the next block's states into the other slot on that slot's
// load semaphore (one DMA per valid token, under `when`), wait the current
// slot with one aggregate descriptor of block_len rows, update, wait the
// stores made from this slot two blocks ago, then store this block from this
// slot on its store semaphore. The prologue loads block 0 into slot 0; the
// epilogue drains the last two blocks' stores. Expected: no diagnostics.

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

// The per-token delta-rule update of one state row (VPU/MXU work, no DMA).
void update_token(Ref<bf16> q, Ref<bf16> k, Ref<bf16> v, Ref<float> g,
                  Ref<float> b, Ref<float> h, Ref<bf16> o, std::int32_t i_t);

namespace {
constexpr std::int32_t kBt = 8;  // tokens (requests) per block
std::int32_t cdiv(std::int32_t a, std::int32_t b) { return (a + b - 1) / b; }
}  // namespace

static void decode_block(std::int32_t block_id, std::int32_t decode_end,
                         const std::int32_t *state_indices, Ref<bf16> q_blk,
                         Ref<bf16> k_blk, Ref<bf16> v_blk, Ref<float> g_blk,
                         Ref<float> b_blk, Ref<bf16> o_blk,
                         Ref<float> state_hbm, Ref<float> h_bufs,
                         SemaphoreArray<DmaSemaphore> h_load_sems,
                         SemaphoreArray<DmaSemaphore> h_store_sems) {
  const std::int32_t t_start = block_id * kBt;
  const std::int32_t block_len = std::min(kBt, decode_end - t_start);
  const std::int32_t buf_idx = block_id % 2;
  const std::int32_t next_buf_idx = (block_id + 1) % 2;

  // Step 1: prefetch the next block's states into the other slot.
  const std::int32_t next_t_start = t_start + kBt;
  const std::int32_t next_block_len =
      std::max(std::min(kBt, decode_end - next_t_start), 0);
  for (std::int32_t i_t = 0; i_t < kBt; ++i_t) {
    when(i_t < next_block_len, [&] {
      const std::int32_t next_si = state_indices[next_t_start + i_t];
      make_async_copy(state_hbm.slice(next_si, 1),
                      h_bufs.at(next_buf_idx).slice(i_t, 1),
                      h_load_sems.at(next_buf_idx))
          .start();
    });
  }

  // Step 2: the current block's states (one wait for block_len rows).
  make_async_copy(state_hbm.slice(0, block_len),
                  h_bufs.at(buf_idx).slice(0, block_len),
                  h_load_sems.at(buf_idx))
      .wait();

  // Step 3: compute.
  for (std::int32_t i_t = 0; i_t < kBt; ++i_t)
    when(i_t < block_len, [&] {
      update_token(q_blk, k_blk, v_blk, g_blk, b_blk, h_bufs.at(buf_idx),
                   o_blk, i_t);
    });

  // Step 4: the stores made from this slot two blocks ago.
  const std::int32_t prev_t_start = std::max((block_id - 2) * kBt, 0);
  const std::int32_t prev_block_len =
      block_id >= 2 ? std::min(kBt, decode_end - prev_t_start) : 0;
  when(prev_block_len > 0, [&] {
    make_async_copy(h_bufs.at(buf_idx).slice(0, prev_block_len),
                    state_hbm.slice(0, prev_block_len),
                    h_store_sems.at(buf_idx))
        .wait();
  });

  // Step 5: store this block's states.
  for (std::int32_t i_t = 0; i_t < kBt; ++i_t) {
    when(i_t < block_len, [&] {
      const std::int32_t si = state_indices[t_start + i_t];
      make_async_copy(h_bufs.at(buf_idx).slice(i_t, 1), state_hbm.slice(si, 1),
                      h_store_sems.at(buf_idx))
          .start();
    });
  }
}

void gdn_decode_kernel(const std::int32_t *state_indices,
                       const std::int32_t *distribution, Ref<bf16> q_blk,
                       Ref<bf16> k_blk, Ref<bf16> v_blk, Ref<float> g_blk,
                       Ref<float> b_blk, Ref<bf16> o_blk,
                       Ref<float> state_hbm, Ref<float> h_bufs,
                       SemaphoreArray<DmaSemaphore> h_load_sems,
                       SemaphoreArray<DmaSemaphore> h_store_sems) {
  const std::int32_t decode_end = distribution[0];
  const std::int32_t nb_t = cdiv(decode_end, kBt);

  // Prologue: block 0's states into slot 0.
  for (std::int32_t i_t = 0; i_t < kBt; ++i_t) {
    when(i_t < decode_end, [&] {
      const std::int32_t si = state_indices[i_t];
      make_async_copy(state_hbm.slice(si, 1), h_bufs.at(0).slice(i_t, 1),
                      h_load_sems.at(0))
          .start();
    });
  }

  for (std::int32_t block_id = 0; block_id < nb_t; ++block_id)
    decode_block(block_id, decode_end, state_indices, q_blk, k_blk, v_blk,
                 g_blk, b_blk, o_blk, state_hbm, h_bufs, h_load_sems,
                 h_store_sems);

  // Epilogue: drain the outstanding stores.
  const std::int32_t last_buf_idx = (nb_t - 1) % 2;
  const std::int32_t other_buf_idx = nb_t % 2;
  const std::int32_t last_block_len =
      std::min(kBt, decode_end - (nb_t - 1) * kBt);
  make_async_copy(h_bufs.at(last_buf_idx).slice(0, last_block_len),
                  state_hbm.slice(0, last_block_len),
                  h_store_sems.at(last_buf_idx))
      .wait();

  const std::int32_t other_block_len =
      nb_t >= 2 ? std::min(kBt, decode_end - (nb_t - 2) * kBt) : 0;
  when(other_block_len > 0, [&] {
    make_async_copy(h_bufs.at(other_buf_idx).slice(0, other_block_len),
                    state_hbm.slice(0, other_block_len),
                    h_store_sems.at(other_buf_idx))
        .wait();
  });
}
