// CHECKS: -*,dma-*
//
// Expert-parallel MoE down-projection with a direct-write reduce-scatter over
// ICI, after kernel_main_scatter_ici_dedup in
// tpu_inference/kernels/experimental/fused_moe/gmm_fused/gmm_v2_ag_rs.py
// (vllm-project/tpu-inference 878eb5e686); a copy of moe_scatter_ici_dedup.cc
// with one planted bug: the write of a finished row to the device that owns
// its token (a remote copy, inside the row-loop lambda) is started with
// start(1), the priority the kernel gives its local zero-fill copies. Remote
// DMAs take priority 0 only. Expected: one dma-start-priority warning at the
// marked line, nothing else.

#include <tpu/dma.h>

#include <algorithm>
#include <cstdint>

using namespace tpu;

struct bf16 {
  std::uint16_t bits;
};

// Vector-unit stand-ins (no DMA).
void fill_zeros(Ref<bf16> tile);
void grouped_matmul_tile(Ref<bf16> lhs, Ref<bf16> w, Ref<float> w_scale,
                         Ref<bf16> w_bias, Ref<bf16> out, Ref<float> acc,
                         std::int32_t k_id, std::int32_t num_k);
void store_tile(Ref<bf16> dst, Ref<bf16> src);
void add_weighted_row(Ref<bf16> acc_row, Ref<bf16> new_row, float weight);

// Per row tile: its expert and its first row (m offsets has one more entry).
struct Metadata {
  std::int32_t *gm_id_to_group_id;
  std::int32_t *gm_id_to_m_offset;
};

std::int32_t fill_metadata(const std::int32_t *group_sizes,
                           const std::int32_t *group_offset, Metadata md);

// The collective's barrier semaphore (pltpu.get_barrier_semaphore()).
Semaphore get_barrier_semaphore();

namespace {

constexpr const char *kEpAxis = "expert";
constexpr index_t kSublanes = 16;  // sublane tiling of bf16 rows

struct Tiling {
  std::int32_t tile_m;
  std::int32_t num_n, num_k;   // weight tiles along N and K
  std::int32_t num_w_bufs;     // VMEM weight buffers
  index_t pk, nqb;             // packed K rows / quant blocks of one weight tile
  bool has_scale, has_bias, zero_init;
};

// Weights laid out [expert][n tile][k rows ...] so that one weight tile is a
// row range of one (expert, n tile).
struct Weights {
  Ref<bf16> weight;
  Ref<float> scale;
  Ref<bf16> bias;
};

// Every device of the expert axis has reached this point: one signal to each
// device of the axis (this one included), then a wait for all of them.
void sync_barrier() {
  const Semaphore barrier = get_barrier_semaphore();
  const std::int32_t ep_size = axis_size(kEpAxis);
  for (std::int32_t i = 0; i < ep_size; ++i)
    semaphore_signal(barrier, 1, DeviceId{i}, DeviceIdType::kMesh);
  semaphore_wait(barrier, ep_size);
}

// Zero every row of `out` from a zeroed VMEM tile; returns the rows issued.
index_t zero_out_start_3d(Ref<bf16> out, index_t total_rows, Ref<bf16> zeros,
                          index_t tile_rows, SemaphoreArray<DmaSemaphore> sem) {
  fill_zeros(zeros);
  const index_t num_loops = (total_rows + tile_rows - 1) / tile_rows;
  index_t zero_size = 0;
  for (index_t i = 0; i < num_loops; ++i) {
    const index_t first = i * tile_rows;
    const index_t rows = std::min(first + tile_rows, total_rows) - first;
    make_async_copy(zeros.slice(0, rows), out.slice(first, rows), sem.at(0))
        .start(1);
    zero_size += rows;
  }
  return zero_size;
}

void zero_out_end_3d(Ref<bf16> out, SemaphoreArray<DmaSemaphore> sem,
                     index_t zero_size) {
  make_async_copy(out.slice(0, zero_size), out.slice(0, zero_size), sem.at(0))
      .wait();
}

// Rows indices[m] of src -> consecutive rows of dst, one DMA per row.
void dma_gather_gm_start(Ref<bf16> src, Ref<bf16> dst, const std::int32_t *indices,
                         DmaSemaphore sem, std::int32_t gm_id, Metadata md) {
  const std::int32_t m_start = md.gm_id_to_m_offset[gm_id];
  const std::int32_t m_end = md.gm_id_to_m_offset[gm_id + 1];
  const index_t m_start_local = m_start % kSublanes;
  for (std::int32_t i = 0; i < m_end - m_start; ++i) {
    const std::int32_t src_row = indices[m_start + i];
    make_async_copy(src.slice(src_row, 1), dst.slice(m_start_local + i, 1), sem)
        .start();
  }
}

void dma_gather_gm_wait(Ref<bf16> dst, DmaSemaphore sem, std::int32_t gm_id,
                        Metadata md) {
  const std::int32_t m_start = md.gm_id_to_m_offset[gm_id];
  const std::int32_t rows = md.gm_id_to_m_offset[gm_id + 1] - m_start;
  Ref<bf16> landed = dst.slice(m_start % kSublanes, rows);
  make_async_copy(landed, landed, sem).wait();
}

// Consecutive rows of src -> rows indices[m] of dst, one DMA per row.
void dma_scatter_gm_start(Ref<bf16> src, Ref<bf16> dst, const std::int32_t *indices,
                          DmaSemaphore sem, std::int32_t gm_id, Metadata md) {
  const std::int32_t m_start = md.gm_id_to_m_offset[gm_id];
  const std::int32_t m_end = md.gm_id_to_m_offset[gm_id + 1];
  const index_t m_start_local = m_start % kSublanes;
  for (std::int32_t i = 0; i < m_end - m_start; ++i) {
    const std::int32_t dst_row = indices[m_start + i];
    make_async_copy(src.slice(m_start_local + i, 1), dst.slice(dst_row, 1), sem)
        .start();
  }
}

void dma_scatter_gm_wait(Ref<bf16> src, DmaSemaphore sem, std::int32_t gm_id,
                         Metadata md) {
  const std::int32_t m_start = md.gm_id_to_m_offset[gm_id];
  const std::int32_t rows = md.gm_id_to_m_offset[gm_id + 1] - m_start;
  Ref<bf16> sent = src.slice(m_start % kSublanes, rows);
  make_async_copy(sent, sent, sem).wait();
}

}  // namespace

void moe_scatter_ici_dedup_kernel(
    // scalar prefetch (SMEM)
    const std::int32_t *group_sizes, const std::int32_t *group_offset,
    const std::int32_t *output_indices, const float *topk_weights,
    const std::int32_t *is_last_ref, const std::int32_t *total_recv_count,
    // inputs (HBM)
    Ref<bf16> lhs_ref, Weights rhs,
    // outputs (HBM)
    Ref<bf16> out_buf_ref, index_t out_rows, Ref<bf16> accumulator_ref,
    index_t acc_rows,
    // scratch
    Metadata metadata, Metadata fused_metadata, Ref<bf16> tiled_out_2x,
    Ref<bf16> scatter_staging, index_t staging_rows, Ref<float> acc_vmem,
    std::int32_t *count_ref, SemaphoreArray<DmaSemaphore> out_zero_sem,
    SemaphoreArray<DmaSemaphore> acc_zero_sem,
    SemaphoreArray<DmaSemaphore> send_sem,
    SemaphoreArray<DmaSemaphore> local_write_sem,
    SemaphoreArray<DmaSemaphore> recv_sem,
    SemaphoreArray<DmaSemaphore> staging_sem,
    SemaphoreArray<DmaSemaphore> output_sem, Ref<bf16> w_buf,
    Ref<float> w_scale_buf, Ref<bf16> w_bias_buf,
    SemaphoreArray<DmaSemaphore> w_sem, Ref<bf16> gathered_lhs_2x,
    SemaphoreArray<DmaSemaphore> gather_sem, Ref<bf16> acc_gather_2x,
    // static configuration
    const Tiling &t, std::int32_t chunk_size) {
  const std::int32_t my_id = axis_index(kEpAxis);
  const std::int32_t ep_size = axis_size(kEpAxis);  // the static ep_size

  auto start_w_dma = [&](std::int32_t buf_id, std::int32_t expert_id,
                         std::int32_t n_id, std::int32_t k_id) {
    make_async_copy(rhs.weight.at(expert_id).at(n_id).slice(k_id * t.pk, t.pk),
                    w_buf.at(buf_id), w_sem.at(buf_id))
        .start();
    if (t.has_scale)
      make_async_copy(rhs.scale.at(expert_id).at(n_id).slice(k_id * t.nqb, t.nqb),
                      w_scale_buf.at(buf_id), w_sem.at(buf_id))
          .start();
    if (t.has_bias)
      make_async_copy(rhs.bias.at(expert_id).at(n_id), w_bias_buf, w_sem.at(buf_id))
          .start();
  };

  auto wait_w_dma = [&](std::int32_t buf_id) {
    make_async_copy(w_buf.at(buf_id), w_buf.at(buf_id), w_sem.at(buf_id)).wait();
    if (t.has_scale)
      make_async_copy(w_scale_buf.at(buf_id), w_scale_buf.at(buf_id), w_sem.at(buf_id))
          .wait();
    if (t.has_bias)
      make_async_copy(w_bias_buf, w_bias_buf, w_sem.at(buf_id)).wait();
  };

  auto compute_tile = [&](std::int32_t buf_id, std::int32_t n_id, std::int32_t k_id,
                          std::int32_t gm_id) {
    const std::int32_t sem_id = gm_id % 2;
    (void)n_id;
    grouped_matmul_tile(gathered_lhs_2x.at(sem_id), w_buf.at(buf_id),
                        w_scale_buf.at(buf_id), w_bias_buf, tiled_out_2x.at(sem_id),
                        acc_vmem, k_id, t.num_k);
  };

  sync_barrier();

  const std::int32_t num_gm = fill_metadata(group_sizes, group_offset, metadata);

  index_t zero_size_out = 0;
  index_t zero_size_acc = 0;
  if (t.zero_init) {
    zero_size_out = zero_out_start_3d(out_buf_ref, out_rows, scatter_staging,
                                      staging_rows, out_zero_sem);
    zero_size_acc = zero_out_start_3d(accumulator_ref, acc_rows, scatter_staging,
                                      staging_rows, acc_zero_sem);
  }

  count_ref[0] = 0;  // tile
  count_ref[1] = 0;  // rows sent to other devices
  count_ref[2] = 0;  // rows written locally

  const std::int32_t total_w_steps = t.num_n * t.num_k;
  const bool can_cache_w = t.num_w_bufs >= total_w_steps;

  for (std::int32_t gm_id = 0; gm_id < num_gm; ++gm_id) {
    const std::int32_t sem_id = gm_id % 2;

    // 1. The previous tile's scatter back to HBM must be done before its
    //    gather slot is reused.
    if (gm_id > 0)
      dma_scatter_gm_wait(acc_gather_2x.at(1 - sem_id), staging_sem.at(0),
                          gm_id - 1, metadata);

    // 2. Metadata of this tile.
    fused_metadata.gm_id_to_group_id[0] = metadata.gm_id_to_group_id[gm_id];
    fused_metadata.gm_id_to_m_offset[0] = metadata.gm_id_to_m_offset[gm_id];
    fused_metadata.gm_id_to_m_offset[1] = metadata.gm_id_to_m_offset[gm_id + 1];
    const std::int32_t expert_id = fused_metadata.gm_id_to_group_id[0];

    // LHS rows: the first tile, then the next tile into the other slot.
    if (gm_id == 0) {
      const std::int32_t m0 = metadata.gm_id_to_m_offset[0];
      make_async_copy(lhs_ref.slice(m0 - m0 % kSublanes, t.tile_m),
                      gathered_lhs_2x.at(0), gather_sem.at(0))
          .start();
    }
    if (gm_id + 1 < num_gm) {
      const std::int32_t m_next = metadata.gm_id_to_m_offset[gm_id + 1];
      make_async_copy(lhs_ref.slice(m_next - m_next % kSublanes, t.tile_m),
                      gathered_lhs_2x.at(1 - sem_id), gather_sem.at(1 - sem_id))
          .start();
    }
    make_async_copy(gathered_lhs_2x.at(sem_id), gathered_lhs_2x.at(sem_id),
                    gather_sem.at(sem_id))
        .wait();

    // 3. Weights, kept across tiles of one expert when they all fit.
    const std::int32_t prev_expert =
        metadata.gm_id_to_group_id[std::max(gm_id - 1, 0)];
    const bool is_new_expert = gm_id == 0 || prev_expert != expert_id;
    const bool is_same_w = !is_new_expert && can_cache_w;

    if (gm_id == 0)
      for (std::int32_t b = 0; b < std::min(t.num_w_bufs, total_w_steps); ++b)
        start_w_dma(b, expert_id, b / t.num_k, b % t.num_k);

    // 4. Matmul over the (N, K) weight tiles.
    for (std::int32_t step = 0; step < total_w_steps; ++step) {
      const std::int32_t n_id = step / t.num_k;
      const std::int32_t k_id = step % t.num_k;
      const std::int32_t buf_id = step % t.num_w_bufs;
      if (!is_same_w)
        wait_w_dma(buf_id);
      if (step + t.num_w_bufs < total_w_steps) {
        const std::int32_t ns = step + t.num_w_bufs;
        start_w_dma(ns % t.num_w_bufs, expert_id, ns / t.num_k, ns % t.num_k);
      }
      compute_tile(buf_id, n_id, k_id, gm_id);
      if (step == 0 && gm_id + 1 < num_gm) {
        const std::int32_t next_e = metadata.gm_id_to_group_id[gm_id + 1];
        const bool next_same = next_e == expert_id && can_cache_w;
        if (!next_same)
          start_w_dma(0, next_e, 0, 0);
      }
    }
    if (gm_id + 1 < num_gm) {
      const std::int32_t next_e = metadata.gm_id_to_group_id[gm_id + 1];
      const bool next_same = next_e == expert_id && can_cache_w;
      if (!next_same)
        for (std::int32_t b = 1; b < std::min(t.num_w_bufs, total_w_steps); ++b)
          start_w_dma(b, next_e, b / t.num_k, b % t.num_k);
    }

    // 5. The zero fills, waited once, before the staging tile is overwritten.
    if (t.zero_init && gm_id == 0) {
      zero_out_end_3d(out_buf_ref, out_zero_sem, zero_size_out);
      zero_out_end_3d(accumulator_ref, acc_zero_sem, zero_size_acc);
    }

    // 6. This tile's rows of the running weighted sum.
    dma_gather_gm_start(accumulator_ref, acc_gather_2x.at(sem_id), output_indices,
                        output_sem.at(0), gm_id, metadata);

    // 7. Weighted update, and the write of finished rows to their owner.
    const std::int32_t m_st = metadata.gm_id_to_m_offset[gm_id];
    const std::int32_t m_en = metadata.gm_id_to_m_offset[gm_id + 1];
    const std::int32_t ml = m_st % kSublanes;
    const std::int32_t num_valid = m_en - m_st;

    store_tile(scatter_staging, tiled_out_2x.at(sem_id));
    dma_gather_gm_wait(acc_gather_2x.at(sem_id), output_sem.at(0), gm_id, metadata);

    Ref<bf16> acc_slot = acc_gather_2x.at(sem_id);
    auto weighted_add_and_send = [&](std::int32_t &send_sz, std::int32_t &local_sz) {
      for (std::int32_t i = 0; i < num_valid; ++i) {
        const std::int32_t row_idx = ml + i;
        const float w = topk_weights[m_st + i];
        const std::int32_t token_g = output_indices[m_st + i];
        const std::int32_t is_last = is_last_ref[m_st + i];
        const std::int32_t dest_chip = token_g / chunk_size;
        const std::int32_t local_row = token_g % chunk_size;
        const std::int32_t write_pos = local_row * ep_size + my_id;
        const bool is_local = dest_chip == my_id;

        add_weighted_row(acc_slot.slice(row_idx, 1), scatter_staging.slice(row_idx, 1),
                         w);

        if (is_last == 1 && !is_local)
          make_async_remote_copy(acc_slot.slice(row_idx, 1),
                                 out_buf_ref.slice(write_pos, 1), send_sem.at(0),
                                 recv_sem.at(0), DeviceId{dest_chip},
                                 DeviceIdType::kMesh)
              .start(1);
        // CHECK-MESSAGES: :[[@LINE-1]]:{{[0-9]+}}: warning: {{.*}} [dma-start-priority]
        if (is_last == 1 && is_local)
          make_async_copy(acc_slot.slice(row_idx, 1), out_buf_ref.slice(write_pos, 1),
                          local_write_sem.at(0))
              .start();

        send_sz += (is_last == 1 && !is_local) ? 1 : 0;
        local_sz += (is_last == 1 && is_local) ? 1 : 0;
      }
    };
    std::int32_t sz_send = 0;
    std::int32_t sz_local = 0;
    weighted_add_and_send(sz_send, sz_local);
    count_ref[1] = count_ref[1] + sz_send;
    count_ref[2] = count_ref[2] + sz_local;

    // The updated rows back to HBM, waited in the next iteration.
    dma_scatter_gm_start(acc_gather_2x.at(sem_id), accumulator_ref, output_indices,
                         staging_sem.at(0), gm_id, metadata);
  }

  if (t.zero_init && num_gm == 0) {
    zero_out_end_3d(out_buf_ref, out_zero_sem, zero_size_out);
    zero_out_end_3d(accumulator_ref, acc_zero_sem, zero_size_acc);
  }

  if (num_gm > 0) {
    const std::int32_t last_sem_id = (num_gm - 1) % 2;
    dma_scatter_gm_wait(acc_gather_2x.at(last_sem_id), staging_sem.at(0), num_gm - 1,
                        metadata);
  }

  sync_barrier();

  // Drain the row writes: what this device sent, wrote locally, received.
  const std::int32_t total_send = count_ref[1];
  make_async_copy(out_buf_ref.slice(0, total_send), out_buf_ref.slice(0, total_send),
                  send_sem.at(0))
      .wait();
  const std::int32_t total_local = count_ref[2];
  make_async_copy(out_buf_ref.slice(0, total_local), out_buf_ref.slice(0, total_local),
                  local_write_sem.at(0))
      .wait();
  const std::int32_t total_recv = total_recv_count[0];
  make_async_copy(out_buf_ref.slice(0, total_recv), out_buf_ref.slice(0, total_recv),
                  recv_sem.at(0))
      .wait();
}
