// A DMA started with a negative priority (Pallas: "DMA start priority must be
// non-negative"); the TPU compiler accepts only 0 or 1, and only 0 for a
// remote copy. dmalint: dma-start-priority.
#include <tpu/dma.h>

#include <cstdint>

using namespace tpu;

void prefetch_next(Ref<float> hbm, Ref<float> vmem, SemaphoreArray<DmaSemaphore> sems) {
  const std::int32_t step = program_id(0);
  const std::int32_t slot = step % 2;

  // Prefetch the next block "in the background".
  AsyncCopyDescriptor next =
      make_async_copy(hbm.at(step + 1), vmem.at(1 - slot), sems[1 - slot]);
  next.start(-1);  // BUG: priority must be 0 or 1

  // Wait for the block the previous step prefetched (rebuilt only to wait).
  make_async_copy(hbm.at(step), vmem.at(slot), sems[slot]).wait();
}
