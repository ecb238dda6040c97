// CHECKS: -*,dma-*
//
// All-gather on a ring, after ag_kernel in
// jax/experimental/pallas/ops/tpu/all_gather.py as of jax a155c5a999 ("Each of
// left and right neighbors increment a core's sync flag by one not two"). The
// kernel runs on a two-axis mesh and gathers along kRingAxis. Each device
// copies its own shard into its output slot, finds its two ring neighbours
// with get_neighbor (a mesh tuple: the neighbour's index on the ring axis,
// computed as rem(idx + 1, size) or where(idx - 1 < 0, idx - 1 + size,
// idx - 1), and this device's own index on the other axis), synchronises
// with them on the barrier semaphore (one signal to each, a wait for two),
// then forwards half of the data to the right and half to the left for
// size - 1 hops, waiting each direction's previous DMA before the next.
// Exercises: a barrier whose targets come from a helper returning a mesh
// tuple and whose counts balance (1 + 1 against 2); std::optional
// descriptors reassigned in a loop. Expected: no diagnostics.

#include <tpu/dma.h>

#include <cassert>
#include <cstdint>
#include <optional>

using namespace tpu;

namespace {

constexpr const char *kRingAxis = "x";
constexpr const char *kOtherAxis = "y";

// The mesh index of a ring neighbour: the neighbour on kRingAxis, this
// device's own index on the other axis.
DeviceId get_neighbor(std::int32_t idx, bool right) {
  const std::int32_t size = axis_size(kRingAxis);
  const std::int32_t left = idx - 1;
  const std::int32_t next = right ? (idx + 1) % size : (left < 0 ? left + size : left);
  return DeviceId{next, axis_index(kOtherAxis)};
}

}  // namespace

void ag_kernel(Ref<float> x_ref, Ref<float> o_ref, SemaphoreArray<DmaSemaphore> send_sem,
               SemaphoreArray<DmaSemaphore> recv_sem, Semaphore barrier_sem) {
  const std::int32_t my_id = axis_index(kRingAxis);

  // initial_copy
  async_copy(x_ref, o_ref.at(my_id), recv_sem[0]).wait();

  // neighbour_lookup
  const std::int32_t size = axis_size(kRingAxis);
  const DeviceId left_neighbor = get_neighbor(my_id, /*right=*/false);
  const DeviceId right_neighbor = get_neighbor(my_id, /*right=*/true);

  // main_barrier: each neighbour adds one to this device's flag.
  semaphore_signal(barrier_sem, 1, left_neighbor);
  semaphore_signal(barrier_sem, 1, right_neighbor);
  semaphore_wait(barrier_sem, 2);

  // Carve the shard in two and send each half around the ring.
  const index_t shard_size = x_ref.size();
  std::optional<AsyncCopyDescriptor> right_dma;
  std::optional<AsyncCopyDescriptor> left_dma;
  for (std::int32_t i = 0; i < size - 1; ++i) {
    const std::int32_t right_slot = my_id - i;
    const std::int32_t slot = right_slot < 0 ? size + right_slot : right_slot;
    Ref<float> right_half = o_ref.at(slot).slice(shard_size / 2, shard_size / 2);
    if (right_dma)
      right_dma->wait();
    right_dma = async_remote_copy(right_half, right_half, send_sem[1], recv_sem[1],
                                  right_neighbor);

    const std::int32_t left_slot = (my_id + i) % size;
    Ref<float> left_half = o_ref.at(left_slot).slice(0, shard_size / 2);
    if (left_dma)
      left_dma->wait();
    left_dma = async_remote_copy(left_half, left_half, send_sem[0], recv_sem[0], left_neighbor);
  }

  // wait_all_dma
  assert(right_dma.has_value() && left_dma.has_value());
  right_dma->wait();
  left_dma->wait();
}
