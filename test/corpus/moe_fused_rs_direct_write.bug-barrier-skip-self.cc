// CHECKS: -*,dma-*
//
// Port of kernel_main_fused_rs in
// tpu_inference/kernels/experimental/fused_moe/gmm_fused_rs_nodedup.py with
// its helpers from gmm_v2_gather_scatter.py (vllm-project/tpu-inference
// b8692ff01f), bf16 path (no fp8 direct write, no scales or biases; the w2
// weight stream is the same as w1 and left out). Fused gather + GMM1 + GMM2 +
// reduce-scatter by direct write: a barrier over every device of the expert
// axis (signal each, wait ep_size) opens and closes the kernel; the output
// is zero-filled with priority-1 local copies waited on the first tile; per
// gm tile the token rows are gathered into one of two VMEM slots (next tile
// prefetched into the other slot, on per-slot semaphores, waited by a
// placeholder); w1 tiles rotate through num_w1_bufs buffers with one
// semaphore each; every output row is written to its owner from one of three
// staging slots, as a remote copy (should_send rows) and a local copy
// (should_local rows), both unconditionally with zero sizes; a staging slot's
// sends and local writes are drained, by counts kept in SMEM, through local
// placeholder descriptors on the send semaphore before the slot is reused and
// at the end; after the closing barrier the receive semaphore is drained by
// the total count. Planted bug (one):
// the barrier helper signals every other device but waits ep_size.

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

namespace {
constexpr const char *kEpAxis = "ep";
constexpr std::int32_t kTileM = 16;
constexpr std::int32_t kNumK1 = 4;
constexpr std::int32_t kNumN1 = 2;
constexpr std::int32_t kPk1 = 256;
constexpr std::int32_t kNumW1Bufs = 3;
constexpr std::int32_t kTopK = 8;
constexpr std::int32_t kSublanes = 16;  // bf16 sublane tiling
constexpr bool kCanCacheW1 = kNumW1Bufs >= kNumN1 * kNumK1;
}  // namespace

// MXU/VPU work and metadata (no DMA).
std::int32_t fill_metadata(const std::int32_t *group_sizes,
                           const std::int32_t *group_offset,
                           std::int32_t *gm_to_group, std::int32_t *gm_to_m);
void gmm1_tile(Ref<bf16> lhs, Ref<bf16> w1_tile, std::int32_t n, std::int32_t k);
void gmm2_and_stage(Ref<bf16> staging_slot);

struct Metadata {
  std::int32_t *gm_id_to_group_id;
  std::int32_t *gm_id_to_m_offset;
};

static void sync_barrier(Semaphore barrier_sem) {
  const std::int32_t ep_size = axis_size(kEpAxis);
  const std::int32_t my_id = axis_index(kEpAxis);
  for (std::int32_t i = 0; i < ep_size; ++i) {
    if (i == my_id)
      continue;
    semaphore_signal(barrier_sem, 1, DeviceId{i}, DeviceIdType::kMesh);
  }
  semaphore_wait(barrier_sem, ep_size);  // BUG
// CHECK-MESSAGES: :[[@LINE-1]]:{{[0-9]+}}: warning: {{.*}} [dma-semaphore-imbalance]
}

static std::int32_t zero_out_start_3d(Ref<bf16> out_ref, Ref<bf16> zero_src,
                                      SemaphoreArray<DmaSemaphore> sem,
                                      std::int32_t total_rows) {
  const std::int32_t row_size = kTileM;
  const std::int32_t num_loops = (total_rows + row_size - 1) / row_size;
  std::int32_t zero_size = 0;
  for (std::int32_t i = 0; i < num_loops; ++i) {
    const std::int32_t dma_start = i * row_size;
    const std::int32_t dma_size =
        std::min(dma_start + row_size, total_rows) - dma_start;
    make_async_copy(zero_src.slice(0, dma_size),
                    out_ref.slice(dma_start, dma_size), sem.at(0))
        .start(1);
    zero_size += dma_size;
  }
  return zero_size;
}

static void zero_out_end_3d(Ref<bf16> out_ref, SemaphoreArray<DmaSemaphore> sem,
                            std::int32_t zero_size) {
  make_async_copy(out_ref.slice(0, zero_size), out_ref.slice(0, zero_size),
                  sem.at(0))
      .wait();
}

static void dma_gather_gm_start(Ref<bf16> src, Ref<bf16> dst, DmaSemaphore sem,
                                const Metadata &md, const std::int32_t *lhs_idx,
                                std::int32_t gm_id, std::int32_t size_m) {
  const std::int32_t m_start = md.gm_id_to_m_offset[gm_id];
  const std::int32_t num_rows = md.gm_id_to_m_offset[gm_id + 1] - m_start;
  const std::int32_t m_start_local = m_start % kSublanes;
  for (std::int32_t i = 0; i < kTileM; ++i) {
    const std::int32_t m_idx = std::min(m_start + i, size_m - 1);
    const std::int32_t src_row = lhs_idx[m_idx] / kTopK;
    const std::int32_t should_gather = i < num_rows ? 1 : 0;
    make_async_copy(src.slice(src_row, should_gather),
                    dst.slice(m_start_local + i, should_gather), sem)
        .start();
  }
}

static void dma_gather_gm_wait(Ref<bf16> dst, DmaSemaphore sem,
                               const Metadata &md, std::int32_t gm_id) {
  const std::int32_t m_start = md.gm_id_to_m_offset[gm_id];
  const std::int32_t num_rows = md.gm_id_to_m_offset[gm_id + 1] - m_start;
  const std::int32_t m_start_local = m_start % kSublanes;
  make_async_copy(dst.slice(m_start_local, num_rows),
                  dst.slice(m_start_local, num_rows), sem)
      .wait();
}

void moe_fused_rs_kernel(
    const std::int32_t *lhs_group_sizes, const std::int32_t *group_offset,
    const std::int32_t *lhs_indices, const std::int32_t *max_num_gm_ref,
    const std::int32_t *total_recv_count_ref, Ref<bf16> hidden_states,
    Ref<bf16> w1, Ref<bf16> out_buf, const Metadata &md,
    Ref<bf16> gathered_lhs_2x, Ref<bf16> staging_3x,
    SemaphoreArray<DmaSemaphore> gather_sem,
    SemaphoreArray<DmaSemaphore> zero_sem, std::int32_t *gm_id_ref,
    Ref<bf16> w1_buf, SemaphoreArray<DmaSemaphore> w1_sem,
    SemaphoreArray<DmaSemaphore> send_sems,
    SemaphoreArray<DmaSemaphore> local_write_sems,
    SemaphoreArray<DmaSemaphore> recv_sem, Semaphore barrier_sem,
    std::int32_t size_m, std::int32_t chunk_size) {
  const std::int32_t my_id = axis_index(kEpAxis);
  const std::int32_t max_num_gm = max_num_gm_ref[0];

  sync_barrier(barrier_sem);

  const std::int32_t local_num_gm = fill_metadata(
      lhs_group_sizes, group_offset, md.gm_id_to_group_id, md.gm_id_to_m_offset);

  const std::int32_t zero_size = zero_out_start_3d(
      out_buf, staging_3x.at(0), zero_sem, chunk_size * kTopK);

  auto start_w1_dma = [&](std::int32_t buf_id, std::int32_t expert_id,
                          std::int32_t n_id, std::int32_t k_id) {
    make_async_copy(w1.at(expert_id).at(n_id).slice(k_id * kPk1, kPk1),
                    w1_buf.at(buf_id), w1_sem.at(buf_id))
        .start();
  };
  auto wait_w1_dma = [&](std::int32_t buf_id) {
    make_async_copy(w1_buf.at(buf_id), w1_buf.at(buf_id), w1_sem.at(buf_id))
        .wait();
  };

  for (std::int32_t s = 0; s < 3; ++s) {
    gm_id_ref[1 + s] = 0;  // send counts
    gm_id_ref[4 + s] = 0;  // local write counts
  }

  for (std::int32_t gm_id = 0; gm_id < max_num_gm; ++gm_id) {
    const bool is_active = gm_id < local_num_gm;
    const std::int32_t sem_id = gm_id % 2;
    const std::int32_t stg_id = gm_id % 3;

    // Drain the staging slot about to be reused (last used 3 tiles ago).
    when(gm_id >= 3, [&] {
      const std::int32_t prev_send = gm_id_ref[1 + stg_id];
      make_async_copy(staging_3x.at(stg_id).slice(0, prev_send),
                      staging_3x.at(stg_id).slice(0, prev_send),
                      send_sems.at(stg_id))
          .wait();
      const std::int32_t prev_local = gm_id_ref[4 + stg_id];
      make_async_copy(out_buf.slice(0, prev_local),
                      out_buf.slice(0, prev_local),
                      local_write_sems.at(stg_id))
          .wait();
      gm_id_ref[1 + stg_id] = 0;
      gm_id_ref[4 + stg_id] = 0;
    });

    when(is_active, [&] {
      gm_id_ref[0] = gm_id;
      const std::int32_t expert_id = md.gm_id_to_group_id[gm_id];
      const std::int32_t total_w1_steps = kNumN1 * kNumK1;
      const std::int32_t prev_expert =
          md.gm_id_to_group_id[std::max(gm_id - 1, 0)];
      const bool is_new_expert = gm_id == 0 || prev_expert != expert_id;
      const bool is_same_w1 = !is_new_expert && kCanCacheW1;

      when(gm_id == 0, [&] {
        for (std::int32_t i = 0; i < std::min(kNumW1Bufs, total_w1_steps); ++i)
          start_w1_dma(i, expert_id, i / kNumK1, i % kNumK1);
      });

      when(gm_id == 0, [&] {
        dma_gather_gm_start(hidden_states, gathered_lhs_2x.at(sem_id),
                            gather_sem.at(sem_id), md, lhs_indices, 0, size_m);
      });
      when(gm_id + 1 < local_num_gm, [&] {
        dma_gather_gm_start(hidden_states, gathered_lhs_2x.at(1 - sem_id),
                            gather_sem.at(1 - sem_id), md, lhs_indices,
                            gm_id + 1, size_m);
      });
      dma_gather_gm_wait(gathered_lhs_2x.at(sem_id), gather_sem.at(sem_id), md,
                         gm_id);

      // GMM1 over the w1 ring.
      for (std::int32_t step = 0; step < total_w1_steps; ++step) {
        const std::int32_t n1 = step / kNumK1;
        const std::int32_t k1 = step % kNumK1;
        const std::int32_t buf_id = step % kNumW1Bufs;
        when(!is_same_w1, [&] { wait_w1_dma(buf_id); });
        if (step + kNumW1Bufs < total_w1_steps) {
          const std::int32_t ns = step + kNumW1Bufs;
          start_w1_dma(ns % kNumW1Bufs, expert_id, ns / kNumK1, ns % kNumK1);
        }
        gmm1_tile(gathered_lhs_2x.at(sem_id), w1_buf.at(buf_id), n1, k1);
        if (step == 0) {
          when(gm_id + 1 < local_num_gm, [&] {
            const std::int32_t next_e = md.gm_id_to_group_id[gm_id + 1];
            const bool next_same = next_e == expert_id && kCanCacheW1;
            when(!next_same, [&] { start_w1_dma(0, next_e, 0, 0); });
          });
        }
      }
      when(gm_id + 1 < local_num_gm, [&] {
        const std::int32_t next_e = md.gm_id_to_group_id[gm_id + 1];
        const bool next_same = next_e == expert_id && kCanCacheW1;
        when(!next_same, [&] {
          for (std::int32_t i = 1; i < std::min(kNumW1Bufs, total_w1_steps);
               ++i)
            start_w1_dma(i, next_e, i / kNumK1, i % kNumK1);
        });
      });

      gmm2_and_stage(staging_3x.at(stg_id));

      when(gm_id == 0, [&] { zero_out_end_3d(out_buf, zero_sem, zero_size); });

      // Direct write of every row to its owner.
      const std::int32_t m_start = md.gm_id_to_m_offset[gm_id];
      const std::int32_t num_rows = md.gm_id_to_m_offset[gm_id + 1] - m_start;
      const std::int32_t ml = m_start % kSublanes;
      const std::int32_t cs_tk = chunk_size * kTopK;
      std::int32_t send_sz = 0;
      std::int32_t local_sz = 0;
      for (std::int32_t i = 0; i < kTileM; ++i) {
        const std::int32_t m_idx = std::min(m_start + i, size_m - 1);
        const std::int32_t valid = i < num_rows ? 1 : 0;
        const std::int32_t combined = lhs_indices[m_idx];
        const std::int32_t write_pos = combined % cs_tk;
        const std::int32_t dest_chip = combined / cs_tk;
        const bool is_local = dest_chip == my_id;
        const std::int32_t should_send = is_local ? 0 : valid;
        const std::int32_t should_local = is_local ? valid : 0;
        const std::int32_t row_idx = ml + i;

        make_async_remote_copy(staging_3x.at(stg_id).slice(row_idx, should_send),
                               out_buf.slice(write_pos, should_send),
                               send_sems.at(stg_id), recv_sem.at(0),
                               DeviceId{dest_chip}, DeviceIdType::kMesh)
            .start();
        make_async_copy(staging_3x.at(stg_id).slice(row_idx, should_local),
                        out_buf.slice(write_pos, should_local),
                        local_write_sems.at(stg_id))
            .start();
        send_sz += should_send;
        local_sz += should_local;
      }
      gm_id_ref[1 + stg_id] += send_sz;
      gm_id_ref[4 + stg_id] += local_sz;
    });
  }

  when(max_num_gm == 0 || local_num_gm == 0,
       [&] { zero_out_end_3d(out_buf, zero_sem, zero_size); });

  // Epilogue: drain what each staging slot still has in flight.
  when(max_num_gm > 0, [&] {
    for (std::int32_t slot = 0; slot < 3; ++slot) {
      when(max_num_gm > slot, [&] {
        const std::int32_t remaining_send = gm_id_ref[1 + slot];
        make_async_copy(staging_3x.at(slot).slice(0, remaining_send),
                        staging_3x.at(slot).slice(0, remaining_send),
                        send_sems.at(slot))
            .wait();
        const std::int32_t remaining_local = gm_id_ref[4 + slot];
        make_async_copy(out_buf.slice(0, remaining_local),
                        out_buf.slice(0, remaining_local),
                        local_write_sems.at(slot))
            .wait();
      });
    }
  });

  // Every chip has finished sending before any returns.
  sync_barrier(barrier_sem);

  // Each incoming remote row signalled recv_sem once.
  const std::int32_t total_recv = total_recv_count_ref[0];
  make_async_copy(out_buf.slice(0, total_recv), out_buf.slice(0, total_recv),
                  recv_sem.at(0))
      .wait();
}
