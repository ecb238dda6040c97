// CHECKS: -*,dma-*
//
// Paged attention with cross-step K/V prefetch, after paged_flash_attention_kernel
// and MultiPageAsyncCopyDescriptor in
// jax/experimental/pallas/ops/tpu/paged_attention/paged_attention_kernel.py.
// K/V pages of one compute block are fetched from HBM into one slot of a
// double-buffered VMEM scratch by a struct that holds a std::vector of local
// page copies on one semaphore: the slot's own semaphore for K
// (k_sems[slot]) and for V (v_sems[slot]), as jax 0e690c1a88 made it (with
// one semaphore for everything, the current block's waits could return on
// the prefetch's bytes: paged_attention_block.bug-semaphore-race.cc). Grid
// step 0 starts the first block; every step
// starts the next block's pages (started here, waited in the next step, at
// priority 1 so the prefetch yields to the current block's DMAs), and then
// REBUILDS the current block's descriptors only to wait on them: the same
// semaphore and byte count as the copies some earlier step started. So one
// call holds starts with no wait and waits with no start, by design. Exercises:
// a struct holding descriptors, a wrapper returning a descriptor, a lambda
// returning descriptors, start(1) on local copies. Expected: no diagnostics.

#include <tpu/dma.h>

#include <cstdint>
#include <vector>

using namespace tpu;

template <class F> void when(bool c, F f) { if (c) f(); }

struct bf16 { std::uint16_t bits; };
void attend_block(Ref<float> q, Ref<bf16> k, Ref<bf16> v, Ref<float> o,
                  std::int32_t valid);  // online-softmax update of o

// One page of K or V: a thin wrapper of make_async_copy.
AsyncCopyDescriptor page_copy(Ref<bf16> pages_hbm, std::int32_t page,
                              Ref<bf16> vmem_slot, DmaSemaphore sem) {
  return make_async_copy(pages_hbm.at(page), vmem_slot, sem);
}

class MultiPageCopy {
 public:
  MultiPageCopy(Ref<bf16> pages_hbm, Ref<bf16> vmem_buffer, DmaSemaphore sem,
                const std::int32_t* page_indices, index_t first, int num_pages) {
    for (int p = 0; p < num_pages; ++p)
      copies_.push_back(
          page_copy(pages_hbm, page_indices[first + p], vmem_buffer.at(p), sem));
  }
  void start() {
    for (AsyncCopyDescriptor& c : copies_) c.start();
  }
  // Prefetch of a later block: priority 1 yields to the current block.
  void start_prefetch() {
    for (AsyncCopyDescriptor& c : copies_) c.start(1);
  }
  void wait() {
    for (AsyncCopyDescriptor& c : copies_) c.wait();
  }

 private:
  std::vector<AsyncCopyDescriptor> copies_;
};

struct KvCopies {
  MultiPageCopy k;
  MultiPageCopy v;
};

void paged_attention_kernel(const std::int32_t* lengths,
                            const std::int32_t* page_indices,
                            std::int32_t* buffer_index_ref,
                            std::int32_t* step_ref, Ref<float> q_ref,
                            Ref<bf16> k_pages_hbm, Ref<bf16> v_pages_hbm,
                            Ref<float> o_ref, Ref<bf16> k_vmem,
                            Ref<bf16> v_vmem,
                            SemaphoreArray<DmaSemaphore> k_sems,
                            SemaphoreArray<DmaSemaphore> v_sems,
                            int batch_size, int pages_per_sequence,
                            int pages_per_block, std::int32_t page_size) {
  const std::int32_t b = program_id(0);
  const std::int32_t h = program_id(1);
  const std::int32_t i = program_id(2);
  const std::int32_t block_tokens = page_size * pages_per_block;
  const std::int32_t length = lengths[b];

  auto create_kv_copies = [&](std::int32_t bb, std::int32_t ii,
                              std::int32_t slot) {
    const index_t first = bb * pages_per_sequence + ii * pages_per_block;
    return KvCopies{
        MultiPageCopy(k_pages_hbm.at(h), k_vmem.at(slot), k_sems[slot],
                      page_indices, first, pages_per_block),
        MultiPageCopy(v_pages_hbm.at(h), v_vmem.at(slot), v_sems[slot],
                      page_indices, first, pages_per_block)};
  };

  when(i * block_tokens < length, [&] {
    const std::int32_t step = *step_ref;
    const std::int32_t buffer_index = *buffer_index_ref;

    // prefetch_first_block: started here, waited below in this same step.
    when(step == 0, [&] {
      KvCopies first = create_kv_copies(b, i, buffer_index);
      first.k.start();
      first.v.start();
    });

    // prefetch_next_block: started here, waited by the next grid step.
    const bool last_block = (i + 1) * block_tokens >= length;
    const std::int32_t next_b = last_block ? b + 1 : b;
    const std::int32_t next_i = last_block ? 0 : i + 1;
    when(next_b < batch_size, [&] {
      const std::int32_t next_buffer_index = buffer_index == 0 ? 1 : 0;
      KvCopies next = create_kv_copies(next_b, next_i, next_buffer_index);
      next.k.start_prefetch();
      next.v.start_prefetch();
      *buffer_index_ref = next_buffer_index;
    });

    // Rebuilt only to wait: the current block was started by an earlier step.
    KvCopies current = create_kv_copies(b, i, buffer_index);
    current.k.wait();
    current.v.wait();
    attend_block(q_ref, k_vmem.at(buffer_index), v_vmem.at(buffer_index),
                 o_ref, length - i * block_tokens);
    *step_ref = step + 1;
  });
}
