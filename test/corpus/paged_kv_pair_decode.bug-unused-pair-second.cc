// CHECKS: -*,dma-*
//
// Ragged paged decode attention with a planted bug; a copy of
// paged_kv_pair_decode.cc (after paged_flash_attention_kernel in
// jax/experimental/pallas/ops/tpu/paged_attention/paged_attention_kernel.py).
// The prefetch of the next block builds the (K, V) pair of page copies but
// starts only `next.first`: the V page copy held in `next.second` is built
// and never started nor waited, and the pair does not leave the loop body
// (Pallas logs "AsyncCopyDescriptor was not used"); the next step then waits
// a V copy that was never issued and hangs. Expected: one
// dma-unused-descriptor warning at the construction of the V copy; nothing
// else.

#include <tpu/dma.h>

#include <cstdint>
#include <utility>

using namespace tpu;

// Scalar-prefetch and SMEM-scratch accessors of the kernel.
std::int32_t num_kv_blocks(std::int32_t seq);
std::int32_t num_seqs();
std::int32_t page_index(std::int32_t seq, std::int32_t block, int page);
std::int32_t load_buffer_index();
void store_buffer_index(std::int32_t buf);
// Online-softmax update of acc with one KV block.
void attend(Ref<float> q, Ref<float> k, Ref<float> v, Ref<float> acc);

namespace {

constexpr const char *kAxis = "cp";
constexpr int kPagesPerBlock = 2;

using KvCopies = std::pair<AsyncCopyDescriptor, AsyncCopyDescriptor>;

template <bool kToOwner>
void store_output(Ref<float> o_vmem, Ref<float> o_hbm, DmaSemaphore out_sem,
                  DmaSemaphore send_sem, std::int32_t owner) {
  AsyncCopyDescriptor out =
      kToOwner ? make_async_remote_copy(o_vmem, o_hbm, send_sem, out_sem,
                                        DeviceId(owner), DeviceIdType::kLogical)
               : make_async_copy(o_vmem, o_hbm, out_sem);
  out.start(kToOwner ? 0 : 1);
  if (kToOwner)
    out.wait_send();
  out.wait_recv();
}

}  // namespace

void paged_kv_pair_decode_kernel(Ref<float> q_vmem, Ref<float> k_pages_hbm,
                                 Ref<float> v_pages_hbm, Ref<float> k_buf,
                                 Ref<float> v_buf, Ref<float> acc_vmem,
                                 Ref<float> o_hbm,
                                 SemaphoreArray<DmaSemaphore> kv_sems,
                                 DmaSemaphore out_sem, DmaSemaphore send_sem,
                                 bool context_parallel) {
  const std::int32_t seq = program_id(0);
  const std::int32_t blk = program_id(1);
  if (blk >= num_kv_blocks(seq))
    return;  // ragged: this sequence has fewer blocks
  const std::int32_t buf = load_buffer_index();

  // Nobody prefetched the very first block.
  if (seq == 0 && blk == 0) {
    for (int p = 0; p < kPagesPerBlock; ++p) {
      const std::int32_t page = page_index(seq, blk, p);
      KvCopies first{
          make_async_copy(k_pages_hbm.at(page), k_buf.at(buf).at(p), kv_sems.at(0, buf)),
          make_async_copy(v_pages_hbm.at(page), v_buf.at(buf).at(p), kv_sems.at(1, buf))};
      first.first.start();
      first.second.start();
    }
  }

  // Prefetch the next block (of this sequence, or the first of the next one)
  // into the other buffer; the next step waits it.
  const bool last_block = blk + 1 == num_kv_blocks(seq);
  const std::int32_t next_seq = last_block ? seq + 1 : seq;
  const std::int32_t next_blk = last_block ? 0 : blk + 1;
  const std::int32_t next_buf = 1 - buf;
  if (next_seq < num_seqs()) {
    for (int p = 0; p < kPagesPerBlock; ++p) {
      const std::int32_t page = page_index(next_seq, next_blk, p);
      KvCopies next{
          make_async_copy(k_pages_hbm.at(page), k_buf.at(next_buf).at(p), kv_sems.at(0, next_buf)),
          make_async_copy(v_pages_hbm.at(page), v_buf.at(next_buf).at(p), kv_sems.at(1, next_buf))};
          // CHECK-MESSAGES: :[[@LINE-1]]:{{[0-9]+}}: warning: {{.*}} [dma-unused-descriptor]
      next.first.start();
    }
    store_buffer_index(next_buf);
  }

  // The current block: rebuilt (same semaphores, same sizes) only to wait.
  for (int p = 0; p < kPagesPerBlock; ++p) {
    const std::int32_t page = page_index(seq, blk, p);
    auto [k_cur, v_cur] = std::make_pair(
        make_async_copy(k_pages_hbm.at(page), k_buf.at(buf).at(p), kv_sems.at(0, buf)),
        make_async_copy(v_pages_hbm.at(page), v_buf.at(buf).at(p), kv_sems.at(1, buf)));
    k_cur.wait();
    v_cur.wait();
  }
  attend(q_vmem, k_buf.at(buf), v_buf.at(buf), acc_vmem);

  if (last_block) {
    const std::int32_t owner = axis_index(kAxis) ^ 1;
    if (context_parallel)
      store_output<true>(acc_vmem, o_hbm.at(seq), out_sem, send_sem, owner);
    else
      store_output<false>(acc_vmem, o_hbm.at(seq), out_sem, send_sem, owner);
  }
}
