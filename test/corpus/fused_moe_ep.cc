// CHECKS: -*,dma-*
//
// Fused expert-parallel MoE, after _fused_ep_moe_kernel in
// tpu_inference/kernels/fused_moe/v1/kernel.py (vllm-project/tpu-inference),
// reduced to one weight matrix per FFN half. Tokens are processed in blocks
// (bt); for each block the gating rows are fetched (the next block's into the
// other slot first), the tokens are scattered to the devices that own their
// experts (all-to-all: for every token and choice, a local copy and a remote
// copy of which one has size 0, started without a branch), each local expert
// runs its FFN over tiles of its weights, double-buffered in VMEM, and the
// results are gathered back (again a local and a remote copy per device) and
// accumulated row by row. Every wait is an aggregate (dst, dst) descriptor on
// the semaphore all the copies it stands for signalled: the scatter's receive
// and send sides per expert slot (recv_sems[e], send_sems[e]), the gather's
// receive side (gather_sem) and send side (send_sems[e] again, after the FFN
// of the expert two steps later), the weight tiles per VMEM slot
// (local_sems.at(slot, k)), the row gathers of the accumulation (acc_sem).
// Devices synchronise with a barrier on every device (signal each once, wait
// for all). Exercises: per-slot semaphores through helpers, aggregate and
// placeholder waits, the send semaphore of remote copies drained through a
// local descriptor, zero-size copies, starts and waits in different helpers
// and loop iterations, start(1) on local prefetches. Barrier: sync_barrier.
// Expected: no diagnostics.

#include <tpu/dma.h>

#include <cstdint>

using namespace tpu;

struct bf16 {
  std::uint16_t bits;
};

// Routing and arithmetic on VMEM/SMEM values (no DMA).
void route_tokens(Ref<bf16> gating, std::int32_t block, std::int32_t *t2e,
                  std::int32_t *expert_starts, std::int32_t *expert_sizes);
void ffn_tile(Ref<bf16> tokens, Ref<bf16> weights, Ref<float> acc,
              std::int32_t rows, bool first);
void combine_choices(Ref<float> choices, Ref<bf16> out_block);

namespace {

constexpr const char *kDataAxis = "data";
constexpr const char *kExpertAxis = "expert";

// SMEM tables and sizes the helpers share.
struct MoeMeta {
  std::int32_t *t2e;            // [bt * top_k]: expert of each token choice
  std::int32_t *expert_starts;  // [num_experts]: first row in the owner's buffer
  std::int32_t *expert_sizes;   // [num_experts]: rows routed to each expert
  std::int32_t *gather_rows;    // [num_devices]: rows this device returns to each
  std::int32_t bt, top_k, local_experts, num_devices, weight_tiles;
  index_t tile_rows;
};

DeviceId device(std::int32_t ep_rank) {
  return DeviceId{axis_index(kDataAxis), ep_rank};
}

// Every device of the expert axis has reached this point.
void sync_barrier(Semaphore barrier, std::int32_t num_devices) {
  for (std::int32_t d = 0; d < num_devices; ++d)
    semaphore_signal(barrier, 1, device(d), DeviceIdType::kMesh);
  semaphore_wait(barrier, num_devices);
}

void start_fetch_gating(Ref<bf16> gating_hbm, Ref<bf16> gating_x2,
                        SemaphoreArray<DmaSemaphore> local_sems,
                        std::int32_t block, std::int32_t bt) {
  const std::int32_t slot = block % 2;
  make_async_copy(gating_hbm.slice(block * bt, bt), gating_x2.at(slot),
                  local_sems.at(slot, 0))
      .start(1);
}

void wait_fetch_gating(Ref<bf16> gating_x2, SemaphoreArray<DmaSemaphore> local_sems,
                       std::int32_t block) {
  const std::int32_t slot = block % 2;
  make_async_copy(gating_x2.at(slot), gating_x2.at(slot), local_sems.at(slot, 0))
      .wait();
}

// Sends every token routed to local expert `local_e` of some device to it.
void start_scatter(const MoeMeta &m, Ref<bf16> tokens_hbm, Ref<bf16> scatter_x2,
                   SemaphoreArray<DmaSemaphore> send_sems,
                   SemaphoreArray<DmaSemaphore> recv_sems, std::int32_t block,
                   std::int32_t e_slot, std::int32_t local_e) {
  const std::int32_t my_id = axis_index(kExpertAxis);
  for (std::int32_t t = 0; t < m.bt; ++t) {
    for (std::int32_t k = 0; k < m.top_k; ++k) {
      const std::int32_t e = m.t2e[t * m.top_k + k];
      const std::int32_t owner = e / m.local_experts;
      const std::int32_t rows = e % m.local_experts == local_e ? 1 : 0;
      const std::int32_t local_rows = owner == my_id ? rows : 0;
      const std::int32_t remote_rows = owner == my_id ? 0 : rows;
      const std::int32_t at = m.expert_starts[e];
      m.expert_starts[e] = at + rows;
      const std::int32_t token = block * m.bt + t;
      make_async_copy(tokens_hbm.slice(token, local_rows),
                      scatter_x2.at(e_slot).slice(at, local_rows), recv_sems[e_slot])
          .start();
      make_async_remote_copy(tokens_hbm.slice(token, remote_rows),
                             scatter_x2.at(e_slot).slice(at, remote_rows),
                             send_sems[e_slot], recv_sems[e_slot], device(owner),
                             DeviceIdType::kMesh)
          .start();
    }
  }
}

// The rows every device sent to expert slot `e_slot` have arrived.
void wait_scatter_recv(Ref<bf16> scatter_x2, SemaphoreArray<DmaSemaphore> recv_sems,
                       std::int32_t e_slot, std::int32_t rows) {
  Ref<bf16> received = scatter_x2.at(e_slot).slice(0, rows);
  make_async_copy(received, received, recv_sems[e_slot]).wait();
}

// What this device sent from slot `e_slot` has left (the send semaphore of
// the remote copies, drained through a local descriptor).
void wait_send_side(Ref<bf16> buffer, SemaphoreArray<DmaSemaphore> send_sems,
                    std::int32_t e_slot, std::int32_t rows) {
  Ref<bf16> sent = buffer.slice(0, rows);
  make_async_copy(sent, sent, send_sems[e_slot]).wait();
}

void start_fetch_weights(const MoeMeta &m, Ref<bf16> weights_hbm,
                         Ref<bf16> weights_x2,
                         SemaphoreArray<DmaSemaphore> local_sems,
                         std::int32_t local_e, std::int32_t tile, std::int32_t slot) {
  make_async_copy(weights_hbm.at(local_e).slice(tile * m.tile_rows, m.tile_rows),
                  weights_x2.at(slot), local_sems.at(slot, 1))
      .start();
}

void wait_fetch_weights(Ref<bf16> weights_x2, SemaphoreArray<DmaSemaphore> local_sems,
                        std::int32_t slot) {
  make_async_copy(weights_x2.at(slot), weights_x2.at(slot), local_sems.at(slot, 1))
      .wait();
}

// The expert's FFN over its weight tiles: tile 0 was started by the caller;
// each tile prefetches the next into the other slot before it waits its own.
void expert_ffn(const MoeMeta &m, Ref<bf16> weights_hbm, Ref<bf16> weights_x2,
                SemaphoreArray<DmaSemaphore> local_sems, Ref<bf16> tokens,
                Ref<float> acc, std::int32_t local_e, std::int32_t rows) {
  std::int32_t slot = 0;
  for (std::int32_t tile = 0; tile < m.weight_tiles; ++tile) {
    if (tile + 1 < m.weight_tiles)
      start_fetch_weights(m, weights_hbm, weights_x2, local_sems, local_e, tile + 1,
                          (slot + 1) % 2);
    wait_fetch_weights(weights_x2, local_sems, slot);
    ffn_tile(tokens, weights_x2.at(slot), acc, rows, tile == 0);
    slot = (slot + 1) % 2;
  }
}

// Returns the expert's results to the devices their tokens came from.
void start_gather(const MoeMeta &m, Ref<bf16> results_x2, Ref<bf16> gathered_hbm,
                  SemaphoreArray<DmaSemaphore> send_sems, DmaSemaphore gather_sem,
                  std::int32_t e_slot, std::int32_t expert) {
  const std::int32_t my_id = axis_index(kExpertAxis);
  std::int32_t start = 0;
  for (std::int32_t d = 0; d < m.num_devices; ++d) {
    const std::int32_t rows = m.gather_rows[d];
    const std::int32_t local_rows = d == my_id ? rows : 0;
    const std::int32_t remote_rows = d == my_id ? 0 : rows;
    make_async_copy(results_x2.at(e_slot).slice(start, local_rows),
                    gathered_hbm.at(expert).slice(0, local_rows), gather_sem)
        .start();
    make_async_remote_copy(results_x2.at(e_slot).slice(start, remote_rows),
                           gathered_hbm.at(expert).slice(0, remote_rows),
                           send_sems[e_slot], gather_sem, device(d),
                           DeviceIdType::kMesh)
        .start();
    start += rows;
  }
}

// Gathers the top_k results of every token of the block into rows of
// `choices`, one row copy each, and waits them all at once.
void accumulate_choices(const MoeMeta &m, Ref<bf16> gathered_hbm,
                        Ref<bf16> choices, DmaSemaphore acc_sem,
                        std::int32_t *offsets) {
  for (std::int32_t t = 0; t < m.bt; ++t) {
    for (std::int32_t k = 0; k < m.top_k; ++k) {
      const std::int32_t e = m.t2e[t * m.top_k + k];
      const std::int32_t row = offsets[e];
      offsets[e] = row + 1;
      make_async_copy(gathered_hbm.at(e).slice(row, 1), choices.at(k).slice(t, 1),
                      acc_sem)
          .start();
    }
  }
  make_async_copy(choices, choices, acc_sem).wait();
}

void start_send_output(Ref<bf16> out_x2, Ref<bf16> output_hbm,
                       SemaphoreArray<DmaSemaphore> local_sems, std::int32_t block,
                       std::int32_t bt) {
  const std::int32_t slot = block % 2;
  make_async_copy(out_x2.at(slot), output_hbm.slice(block * bt, bt),
                  local_sems.at(slot, 4))
      .start();
}

// The output block sent two blocks ago (from the same slot) has left; a
// block before the first is a zero-size wait.
void wait_send_output(Ref<bf16> output_hbm, SemaphoreArray<DmaSemaphore> local_sems,
                      std::int32_t block, std::int32_t bt, std::int32_t num_blocks) {
  const std::int32_t rows = 0 <= block && block < num_blocks ? bt : 0;
  Ref<bf16> sent = output_hbm.slice(0, rows);
  make_async_copy(sent, sent, local_sems.at((block + 2) % 2, 4)).wait();
}

}  // namespace

void fused_ep_moe_kernel(const MoeMeta &m, Ref<bf16> tokens_hbm,
                         Ref<bf16> gating_hbm, Ref<bf16> weights_hbm,
                         Ref<bf16> gathered_hbm, Ref<bf16> output_hbm,
                         Ref<bf16> gating_x2, Ref<bf16> scatter_x2,
                         Ref<bf16> results_x2, Ref<bf16> weights_x2,
                         Ref<bf16> choices, Ref<bf16> out_x2, Ref<float> acc,
                         Ref<float> combined, SemaphoreArray<DmaSemaphore> local_sems,
                         SemaphoreArray<DmaSemaphore> send_sems,
                         SemaphoreArray<DmaSemaphore> recv_sems,
                         DmaSemaphore gather_sem, DmaSemaphore acc_sem,
                         Semaphore barrier, std::int32_t *offsets,
                         std::int32_t num_blocks) {
  const std::int32_t my_id = axis_index(kExpertAxis);
  sync_barrier(barrier, m.num_devices);
  start_fetch_gating(gating_hbm, gating_x2, local_sems, 0, m.bt);

  std::int32_t e_slot = 0;
  for (std::int32_t block = 0; block < num_blocks; ++block) {
    if (block + 1 < num_blocks)
      start_fetch_gating(gating_hbm, gating_x2, local_sems, block + 1, m.bt);
    wait_fetch_gating(gating_x2, local_sems, block);
    route_tokens(gating_x2.at(block % 2), block, m.t2e, m.expert_starts,
                 m.expert_sizes);
    sync_barrier(barrier, m.num_devices);

    start_scatter(m, tokens_hbm, scatter_x2, send_sems, recv_sems, block, e_slot, 0);
    for (std::int32_t local_e = 0; local_e < m.local_experts; ++local_e) {
      start_fetch_weights(m, weights_hbm, weights_x2, local_sems, local_e, 0, 0);
      const std::int32_t next_e_slot = e_slot == 0 ? 1 : 0;
      if (local_e + 1 < m.local_experts)
        start_scatter(m, tokens_hbm, scatter_x2, send_sems, recv_sems, block,
                      next_e_slot, local_e + 1);
      const std::int32_t rows = m.expert_sizes[my_id * m.local_experts + local_e];
      wait_scatter_recv(scatter_x2, recv_sems, e_slot, rows);
      expert_ffn(m, weights_hbm, weights_x2, local_sems, scatter_x2.at(e_slot), acc,
                 local_e, rows);
      start_gather(m, results_x2, gathered_hbm, send_sems, gather_sem, e_slot,
                   my_id * m.local_experts + local_e);
      wait_send_side(scatter_x2, send_sems, e_slot, rows);
      sync_barrier(barrier, m.num_devices);
      e_slot = next_e_slot;
    }

    make_async_copy(gathered_hbm, gathered_hbm, gather_sem).wait();
    sync_barrier(barrier, m.num_devices);
    accumulate_choices(m, gathered_hbm, choices, acc_sem, offsets);
    combine_choices(combined, out_x2.at(block % 2));

    wait_send_output(output_hbm, local_sems, block - 2, m.bt, num_blocks);
    start_send_output(out_x2, output_hbm, local_sems, block, m.bt);
    // The gathers of the last two experts went out on both expert slots.
    wait_send_side(results_x2, send_sems, e_slot, m.bt);
    wait_send_side(results_x2, send_sems, e_slot == 0 ? 1 : 0, m.bt);
    sync_barrier(barrier, m.num_devices);
  }
  wait_send_output(output_hbm, local_sems, num_blocks - 2, m.bt, num_blocks);
  wait_send_output(output_hbm, local_sems, num_blocks - 1, m.bt, num_blocks);
}
