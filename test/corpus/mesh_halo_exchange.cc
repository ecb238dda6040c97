// CHECKS: -*,dma-*
//
// 2-D halo exchange on a ("x", "y") device mesh, after the remote-DMA model and
// the DeviceIdType notes of docs/pallas/tpu/distributed.md (MESH ids are a
// tuple of mesh coordinates; LOGICAL ids are one integer). Each device sends
// its four boundary strips to its mesh neighbours with remote copies addressed
// by DeviceId{x, y} in MESH form. At the edge of the (non-periodic) mesh there
// is no neighbour, and the strip is mirrored into our own ghost cells with a
// local copy instead, so each element of the C array `halo` is remote or local
// depending on the device; the send side is waited only when a bool that holds
// d.is_remote() says so. After the step every device sends its residual to
// device 0, addressed by a LOGICAL id. The kernel is a template instantiated
// for two element types. Exercises: a C array of descriptors, bool guard,
// DeviceId{x, y} with kMesh and DeviceId(id) with kLogical, a moved
// descriptor, a pointer, templates. Expected: no diagnostics.

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

  // Residuals go to device 0 by logical id; each lands in its own row.
  const std::int32_t logical_id = x * ny + y;
  AsyncCopyDescriptor to_root = make_async_remote_copy(
      residual, residuals_on_root.at(logical_id), residual_send_sem,
      residual_recv_sem, DeviceId(0), DeviceIdType::kLogical);
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
