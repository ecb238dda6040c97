// CHECKS: -*,dma-*
//
// 2-D halo exchange with a planted bug; a copy of mesh_halo_exchange.cc (after
// the remote-DMA model and DeviceIdType notes of docs/pallas/tpu/distributed.md).
// The residual of every device goes to the root device. The author thinks of
// the root as mesh position (0, 0) and writes DeviceId{0, 0}, but keeps
// DeviceIdType::kLogical from the logical-id version of the code. Pallas
// asserts "LOGICAL device_id_type does not support device_id as a tuple or
// dict." The kernel is a template with two instantiations; the finding is
// reported once. Expected: one dma-device-id-type-mismatch warning at the
// kLogical argument (fix: kMesh); nothing else.

#include <tpu/dma.h>

#include <cstdint>
#include <utility>

using namespace tpu;

struct bf16 { std::uint16_t bits; };
template <typename T> void stencil_step(Ref<T> grid, Ref<T> residual);

enum Side { kNorth, kSouth, kWest, kEast };

template <typename T>
void halo_exchange_kernel(Ref<T> edges, Ref<T> ghosts, Ref<T> grid,
                          Ref<T> residual, Ref<T> residuals_on_root,
                          DmaSemaphore local_sem,
                          SemaphoreArray<DmaSemaphore> send_sems,
                          SemaphoreArray<DmaSemaphore> recv_sems,
                          DmaSemaphore residual_send_sem,
                          DmaSemaphore residual_recv_sem, Semaphore done_sem) {
  const std::int32_t x = axis_index("x");
  const std::int32_t y = axis_index("y");
  const std::int32_t nx = axis_size("x");
  const std::int32_t ny = axis_size("y");
  const std::int32_t dx[4] = {0, 0, -1, 1};
  const std::int32_t dy[4] = {-1, 1, 0, 0};

  // Our strip `side` lands in the neighbour's ghost cells of the opposite side.
  auto make_halo = [&](int side) {
    const std::int32_t tx = x + dx[side];
    const std::int32_t ty = y + dy[side];
    const int opposite = side ^ 1;
    const bool at_edge = tx < 0 || tx >= nx || ty < 0 || ty >= ny;
    return at_edge
               ? make_async_copy(edges.at(side), ghosts.at(side), local_sem)
               : make_async_remote_copy(edges.at(side), ghosts.at(opposite),
                                        send_sems[side], recv_sems[opposite],
                                        DeviceId{tx, ty}, DeviceIdType::kMesh);
  };
  AsyncCopyDescriptor halo[4] = {make_halo(kNorth), make_halo(kSouth),
                                 make_halo(kWest), make_halo(kEast)};
  for (int side = kNorth; side <= kEast; ++side) halo[side].start();

  for (int side = kNorth; side <= kEast; ++side) {
    const bool remote = halo[side].is_remote();
    if (remote) halo[side].wait_send();
  }
  AsyncCopyDescriptor* last = &halo[kEast];
  for (AsyncCopyDescriptor* d = halo; d != last; ++d) d->wait_recv();
  last->wait_recv();

  stencil_step(grid, residual);

  // Residuals go to the root device; each lands in its own row.
  const std::int32_t logical_id = x * ny + y;
  AsyncCopyDescriptor to_root = make_async_remote_copy(
      residual, residuals_on_root.at(logical_id), residual_send_sem,
      residual_recv_sem, DeviceId{0, 0}, DeviceIdType::kLogical);
  // CHECK-MESSAGES: :[[@LINE-1]]:{{[0-9]+}}: warning: {{.*}} [dma-device-id-type-mismatch]
  // CHECK-FIXES: {{^}}      residual_recv_sem, DeviceId{0, 0}, DeviceIdType::kMesh);{{$}}
  AsyncCopyDescriptor pending = std::move(to_root);
  pending.start();
  pending.wait_send();
  semaphore_signal(done_sem, 1, DeviceId(0), DeviceIdType::kLogical);
  if (logical_id == 0) {
    semaphore_wait(done_sem, nx * ny);
    // Everything that landed on residual_recv_sem, in one wait.
    make_async_copy(residuals_on_root, residuals_on_root, residual_recv_sem)
        .wait();
  }
}

template void halo_exchange_kernel<float>(
    Ref<float>, Ref<float>, Ref<float>, Ref<float>, Ref<float>, DmaSemaphore,
    SemaphoreArray<DmaSemaphore>, SemaphoreArray<DmaSemaphore>, DmaSemaphore,
    DmaSemaphore, Semaphore);
template void halo_exchange_kernel<bf16>(
    Ref<bf16>, Ref<bf16>, Ref<bf16>, Ref<bf16>, Ref<bf16>, DmaSemaphore,
    SemaphoreArray<DmaSemaphore>, SemaphoreArray<DmaSemaphore>, DmaSemaphore,
    DmaSemaphore, Semaphore);
