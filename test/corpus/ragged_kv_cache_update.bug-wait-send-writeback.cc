// CHECKS: -*,dma-*
//
// Ragged KV-cache update, after _kv_cache_update_kernel in
// tpu_inference/kernels/ragged_paged_attention/v2/ragged_kv_cache_update.py
// (vllm-project/tpu-inference). Each grid step handles a fixed number of
// slices (a trace-time constant, here a template parameter); a slice is a run
// of new tokens that lands inside one page of the flat cache, described in
// SMEM by (cache start, new-token start, length). The step moves its slices in
// two phases through a VMEM staging buffer with one row per slice: first every
// slice is copied HBM -> VMEM, then every row VMEM -> HBM into the cache
// (which is aliased to the output). Every copy of both phases signals the one
// DMA semaphore of the kernel. Each phase starts all of its copies, collecting
// the descriptors in one std::vector, then waits every collected descriptor
// in a range-for; the vector is cleared and reused for the second phase.
// Slices past the real slice count (padding of the last step) become
// zero-size copies from offset 0, with no branch. Exercises: a std::vector of
// descriptors filled by push_back of a started local, cleared and refilled;
// one semaphore for many in-flight copies, all drained in the same step;
// zero-size copies; a kernel templated on element type and slice count with
// two explicit instantiations.
//
// Planted bug: phase 2 is a write-back ("send") to HBM, and its drain loop
// waits the send side, `copy.wait_send()`, on every collected descriptor;
// they are all local copies (make_async_copy), which have no send side
// (Pallas: "Cannot `wait_send` on a local copy").

#include <tpu/dma.h>

#include <cstdint>
#include <vector>

using namespace tpu;

struct bf16 {
  std::uint16_t bits;
};

namespace {

// Rows of the SMEM slice table, laid out [3][padded_num_slices].
constexpr int kCacheStartRow = 0;
constexpr int kNewStartRow = 1;
constexpr int kLengthRow = 2;

// One entry of the table, or 0 for a padded slice past the real count.
inline std::int32_t slice_field(const std::int32_t *slices,
                                std::int32_t padded_num_slices,
                                std::int32_t num_slices, int row,
                                std::int32_t s) {
  return s < num_slices ? slices[row * padded_num_slices + s] : 0;
}

}  // namespace

template <typename T, int kSlicesPerBlock>
void kv_cache_update_kernel(
    // scalar prefetch (SMEM)
    const std::int32_t *slices, std::int32_t padded_num_slices,
    const std::int32_t *num_slices_ref,
    // operands (HBM); the cache is aliased to the output
    Ref<T> new_kv_hbm, Ref<T> kv_cache_hbm, Ref<T> /*kv_cache_out*/,
    // scratch: [kSlicesPerBlock, page_size, ...] in VMEM, and one DMA semaphore
    Ref<T> staging, DmaSemaphore sem) {
  const std::int32_t block = program_id(0);
  const std::int32_t num_slices = num_slices_ref[0];
  std::vector<AsyncCopyDescriptor> pending;

  // Phase 1: the new tokens of every slice into its staging row.
  for (int i = 0; i < kSlicesPerBlock; ++i) {
    const std::int32_t s = block * kSlicesPerBlock + i;
    const std::int32_t src_start =
        slice_field(slices, padded_num_slices, num_slices, kNewStartRow, s);
    const std::int32_t len =
        slice_field(slices, padded_num_slices, num_slices, kLengthRow, s);
    AsyncCopyDescriptor gather = make_async_copy(
        new_kv_hbm.slice(src_start, len), staging.at(i).slice(0, len), sem);
    gather.start();
    pending.push_back(gather);
  }
  for (AsyncCopyDescriptor &copy : pending)
    copy.wait();

  // Phase 2: every staging row into its place in the paged cache.
  pending.clear();
  for (int i = 0; i < kSlicesPerBlock; ++i) {
    const std::int32_t s = block * kSlicesPerBlock + i;
    const std::int32_t dst_start =
        slice_field(slices, padded_num_slices, num_slices, kCacheStartRow, s);
    const std::int32_t len =
        slice_field(slices, padded_num_slices, num_slices, kLengthRow, s);
    AsyncCopyDescriptor scatter = make_async_copy(
        staging.at(i).slice(0, len), kv_cache_hbm.slice(dst_start, len), sem);
    scatter.start();
    pending.push_back(scatter);
  }
  for (AsyncCopyDescriptor &copy : pending)
    copy.wait_send();
// CHECK-MESSAGES: :[[@LINE-1]]:{{[0-9]+}}: warning: {{.*}} [dma-wait-send-on-local-copy]
// CHECK-FIXES: {{^}}    copy.wait_recv();{{$}}
}

template void kv_cache_update_kernel<bf16, 64>(
    const std::int32_t *, std::int32_t, const std::int32_t *, Ref<bf16>,
    Ref<bf16>, Ref<bf16>, Ref<bf16>, DmaSemaphore);
template void kv_cache_update_kernel<std::int8_t, 16>(
    const std::int32_t *, std::int32_t, const std::int32_t *, Ref<std::int8_t>,
    Ref<std::int8_t>, Ref<std::int8_t>, Ref<std::int8_t>, DmaSemaphore);
