// CHECKS: -*,dma-*
//
// Port of tpu_inference/kernels/causal_conv1d/causal_conv1d.py (vllm-project/
// tpu-inference b8692ff01f): ragged causal conv1d over token tiles. Two buffer
// wrappers (activations, conv state) derive from an abstract base with
// copy_in / wait_in / copy_out / wait_out; every read of both wrappers uses the
// kernel's one recv semaphore and every write its one send semaphore, for both
// VMEM slots. The tile loop waits the current tile (placeholder waits on
// slot 0), waits the previous tile's writes (zero-size on the first tile),
// then prefetches the next tile into the other slot (zero-size past the end),
// computes, and starts the writes of this tile. Expected: no diagnostics.

#include <tpu/dma.h>

#include <cstdint>

using namespace tpu;

struct bf16 {
  std::uint16_t bits;
};

namespace {

constexpr index_t kTileSize = 64;
constexpr index_t kKernelSize = 4;
constexpr index_t kPrevKernelSize = kKernelSize - 1;

}  // namespace

struct MetadataRef {
  const std::int32_t *num_tiles;
  const std::int32_t *b_idx_to_s_idx;
  const std::int32_t *b_idx_to_sz_from_old;
  const std::int32_t *b_idx_should_write;
  const std::int32_t *s_idx_to_state_idx;
  const std::int32_t *s_idx_has_initial_state;
};

// The VPU work of one tile (strided loads, the sliding window, the stores).
void conv_tile(Ref<bf16> x_slot, Ref<float> state_slot, Ref<float> prev_x,
               Ref<float> weight, Ref<float> bias, const MetadataRef &md,
               index_t b_start);

template <typename T> class BufferWrapper {
public:
  BufferWrapper(Ref<T> hbm, Ref<T> vmem, const MetadataRef &md)
      : hbm_ref_(hbm), vmem_ref_(vmem), md_(md) {}
  virtual ~BufferWrapper() = default;

  Ref<T> slot_vmem(index_t slot) const { return vmem_ref_.at(slot); }
  bool is_lower_oob(index_t row) const { return row < 0; }
  bool is_upper_oob(index_t row) const {
    return row >= index_t(*md_.num_tiles) * kTileSize;
  }

  virtual void copy_in(index_t b_start, index_t slot, DmaSemaphore sem) const = 0;
  virtual void wait_in(index_t b_start, index_t slot, DmaSemaphore sem) const = 0;
  virtual void copy_out(index_t b_start, index_t slot, DmaSemaphore sem) const = 0;
  virtual void wait_out(index_t b_start, index_t slot, DmaSemaphore sem) const = 0;

protected:
  Ref<T> hbm_ref_;
  Ref<T> vmem_ref_;
  const MetadataRef &md_;
};

class XBuffer final : public BufferWrapper<bf16> {
public:
  using BufferWrapper<bf16>::BufferWrapper;

  void copy_in(index_t b_start, index_t slot, DmaSemaphore sem) const override {
    const bool no_op = is_upper_oob(b_start);
    const index_t dma_size = no_op ? 0 : kTileSize;
    b_start = no_op ? 0 : b_start;
    make_async_copy(hbm_ref_.slice(b_start, dma_size),
                    slot_vmem(slot).slice(0, dma_size), sem)
        .start();
  }

  void wait_in(index_t, index_t, DmaSemaphore sem) const override {
    make_async_copy(vmem_ref_.at(0), vmem_ref_.at(0), sem).wait();
  }

  void copy_out(index_t b_start, index_t slot, DmaSemaphore sem) const override {
    make_async_copy(slot_vmem(slot), hbm_ref_.slice(b_start, kTileSize), sem)
        .start();
  }

  void wait_out(index_t b_start, index_t, DmaSemaphore sem) const override {
    const index_t dma_size = is_lower_oob(b_start) ? 0 : kTileSize;
    make_async_copy(vmem_ref_.at(0).slice(0, dma_size),
                    vmem_ref_.at(0).slice(0, dma_size), sem)
        .wait();
  }
};

class ConvStateBuffer final : public BufferWrapper<float> {
public:
  using BufferWrapper<float>::BufferWrapper;

  void copy_in(index_t b_start, index_t slot, DmaSemaphore sem) const override {
    const bool no_op = is_upper_oob(b_start);
    b_start = no_op ? 0 : b_start;
    for (index_t idx = 0; idx < kTileSize; ++idx) {
      const index_t b_idx = b_start + idx;
      const std::int32_t s_idx = md_.b_idx_to_s_idx[b_idx];
      const std::int32_t state_idx = md_.s_idx_to_state_idx[s_idx];
      index_t sz_from_old = md_.b_idx_to_sz_from_old[b_idx];
      const index_t start_from_old = kPrevKernelSize - sz_from_old;
      sz_from_old = no_op ? 0 : sz_from_old;
      make_async_copy(hbm_ref_.at(state_idx).slice(start_from_old, sz_from_old),
                      slot_vmem(slot).at(idx).slice(0, sz_from_old), sem)
          .start();
    }
  }

  void wait_in(index_t b_start, index_t, DmaSemaphore sem) const override {
    index_t all_sz_from_old = 0;
    for (index_t idx = 0; idx < kTileSize; ++idx)
      all_sz_from_old += md_.b_idx_to_sz_from_old[b_start + idx];
    make_async_copy(vmem_ref_.at(0).at(0).slice(0, all_sz_from_old),
                    vmem_ref_.at(0).at(0).slice(0, all_sz_from_old), sem)
        .wait();
  }

  void copy_out(index_t b_start, index_t slot, DmaSemaphore sem) const override {
    for (index_t idx = 0; idx < kTileSize; ++idx) {
      const index_t b_idx = b_start + idx;
      const std::int32_t s_idx = md_.b_idx_to_s_idx[b_idx];
      const std::int32_t state_idx = md_.s_idx_to_state_idx[s_idx];
      const index_t should_write = md_.b_idx_should_write[b_idx];
      make_async_copy(slot_vmem(slot).slice(idx, should_write),
                      hbm_ref_.slice(state_idx, should_write), sem)
          .start();
    }
  }

  void wait_out(index_t b_start, index_t, DmaSemaphore sem) const override {
    const bool no_op = is_lower_oob(b_start);
    b_start = no_op ? 0 : b_start;
    index_t all_writes = 0;
    for (index_t idx = 0; idx < kTileSize; ++idx)
      all_writes += md_.b_idx_should_write[b_start + idx];
    all_writes = no_op ? 0 : all_writes;
    make_async_copy(vmem_ref_.at(0).slice(0, all_writes),
                    vmem_ref_.at(0).slice(0, all_writes), sem)
        .wait();
  }
};

static void inner_kernel(index_t p_id, const XBuffer &x_buffer,
                         const ConvStateBuffer &conv_state_buffer,
                         SemaphoreArray<DmaSemaphore> sem_ref,
                         const MetadataRef &md, Ref<float> weight,
                         Ref<float> bias, Ref<float> prev_x_scratch) {
  const index_t b_start = p_id * kTileSize;
  const index_t prev_b_start = b_start - kTileSize;
  const index_t next_b_start = b_start + kTileSize;

  DmaSemaphore recv_sem = sem_ref.at(0);
  DmaSemaphore send_sem = sem_ref.at(1);

  const index_t slot = p_id % 2;
  const index_t other_slot = (slot + 1) % 2;

  // Step 1: the current tile has arrived; the previous tile's writes are done
  // (zero-size on the first tile); then the next tile is prefetched
  // (zero-size past the last tile).
  x_buffer.wait_in(b_start, slot, recv_sem);
  conv_state_buffer.wait_in(b_start, slot, recv_sem);

  x_buffer.wait_out(prev_b_start, other_slot, send_sem);
  conv_state_buffer.wait_out(prev_b_start, other_slot, send_sem);

  x_buffer.copy_in(next_b_start, other_slot, recv_sem);
  conv_state_buffer.copy_in(next_b_start, other_slot, recv_sem);

  // Step 2: compute in place in the slot.
  conv_tile(x_buffer.slot_vmem(slot), conv_state_buffer.slot_vmem(slot),
            prev_x_scratch, weight, bias, md, b_start);

  // Step 3: write this tile back.
  x_buffer.copy_out(b_start, slot, send_sem);
  conv_state_buffer.copy_out(b_start, slot, send_sem);
}

void causal_conv1d_kernel(const MetadataRef &md, Ref<bf16> x_ref,
                          Ref<float> conv_state_ref, Ref<float> weight,
                          Ref<float> bias, Ref<bf16> x_scratch_ref,
                          Ref<float> conv_state_scratch_ref,
                          Ref<float> prev_x_scratch_ref,
                          SemaphoreArray<DmaSemaphore> sem_ref) {
  XBuffer x_buffer(x_ref, x_scratch_ref, md);
  ConvStateBuffer conv_state_buffer(conv_state_ref, conv_state_scratch_ref, md);

  DmaSemaphore recv_sem = sem_ref.at(0);
  DmaSemaphore send_sem = sem_ref.at(1);

  // Prologue: the first tile into slot 0.
  x_buffer.copy_in(0, 0, recv_sem);
  conv_state_buffer.copy_in(0, 0, recv_sem);

  const std::int32_t num_tiles = *md.num_tiles;
  for (std::int32_t p_id = 0; p_id < num_tiles; ++p_id)
    inner_kernel(p_id, x_buffer, conv_state_buffer, sem_ref, md, weight, bias,
                 prev_x_scratch_ref);

  // Epilogue: the last tile's writes.
  const index_t last_b_start = index_t(num_tiles - 1) * kTileSize;
  x_buffer.wait_out(last_b_start, 0, send_sem);
  conv_state_buffer.wait_out(last_b_start, 0, send_sem);
}
