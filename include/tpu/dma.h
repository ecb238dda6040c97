// The reference kernel DMA API (Pallas TPU semantics) that dmalint checks by default.
//
// This header is a contract: names, parameter order and defaults follow
// shared/design/kernel-api.md exactly, because kernels, fixtures and outside
// corpora are written against them. Everything is a declaration: a kernel
// compiles with -fsyntax-only and needs no library; dmalint knows the
// semantics from its API model, not from bodies.
#ifndef TPU_DMA_H
#define TPU_DMA_H

#include <cstdint>
#include <initializer_list>
#include <optional>

namespace tpu {

using index_t = std::int64_t;

// A typed view of a buffer (HBM, VMEM or SMEM). Copyable, cheap.
template <typename T> class Ref {
public:
  Ref at(index_t i) const;  // sub-view along the majormost dim
  Ref slice(index_t start, index_t size) const;  // pl.ds(start, size)
  index_t size() const;  // element count
};

class DmaSemaphore {};  // a scalar DMA semaphore: counts bytes
class Semaphore {};     // a scalar regular (or barrier) semaphore: counts signals

// A shaped allocation of semaphores, e.g. SemaphoreType.DMA((2, 4)).
// Indexing yields one scalar semaphore.
template <typename Sem> class SemaphoreArray {
public:
  Sem operator[](index_t i) const;
  Sem at(index_t i) const;
  Sem at(index_t i, index_t j) const;
  Sem at(index_t i, index_t j, index_t k) const;
};

enum class DeviceIdType { kMesh, kLogical };

// The device that a remote copy or a remote signal targets.
class DeviceId {
public:
  DeviceId(std::int32_t logical_id);  // logical id
  DeviceId(std::initializer_list<std::int32_t> mesh_coords);  // mesh coordinates
};

class AsyncCopyDescriptor {
public:
  // The general form (Pallas' dma_start): src_sem and device_id must be both
  // set (a remote copy) or both unset (a local copy).
  template <typename T>
  AsyncCopyDescriptor(Ref<T> src, Ref<T> dst, DmaSemaphore dst_sem,
                      std::optional<DmaSemaphore> src_sem = std::nullopt,
                      std::optional<DeviceId> device_id = std::nullopt,
                      DeviceIdType device_id_type = DeviceIdType::kMesh);

  bool is_remote() const;  // constructed with src_sem and device_id
  void start(int priority = 0);  // priority >= 0; 0 or 1; remote: only 0
  void wait();       // remote: wait_send() then wait_recv(); local: wait_recv()
  void wait_send();  // remote only: waits on src_sem
  void wait_recv();  // waits on dst_sem
};

template <typename T>
AsyncCopyDescriptor make_async_copy(Ref<T> src, Ref<T> dst, DmaSemaphore sem);
template <typename T>
AsyncCopyDescriptor make_async_remote_copy(
    Ref<T> src, Ref<T> dst, DmaSemaphore send_sem, DmaSemaphore recv_sem,
    DeviceId device_id, DeviceIdType device_id_type = DeviceIdType::kMesh);
// make_* then start(): the returned descriptor is already started.
template <typename T>
AsyncCopyDescriptor async_copy(Ref<T> src, Ref<T> dst, DmaSemaphore sem);
template <typename T>
AsyncCopyDescriptor async_remote_copy(
    Ref<T> src, Ref<T> dst, DmaSemaphore send_sem, DmaSemaphore recv_sem,
    DeviceId device_id, DeviceIdType device_id_type = DeviceIdType::kMesh);
template <typename T> void sync_copy(Ref<T> src, Ref<T> dst);  // start + wait

void semaphore_signal(Semaphore sem, std::int32_t inc = 1,
                      std::optional<DeviceId> device_id = std::nullopt,
                      DeviceIdType device_id_type = DeviceIdType::kMesh);
void semaphore_wait(Semaphore sem, std::int32_t value = 1);
std::int32_t semaphore_read(Semaphore sem);

std::int32_t program_id(int axis);    // this grid step's index on an axis
std::int32_t num_programs(int axis);  // the grid's extent on an axis
std::int32_t axis_index(const char* axis);  // this device's position on a mesh axis
std::int32_t axis_size(const char* axis);   // the mesh's extent on that axis

}  // namespace tpu

#endif  // TPU_DMA_H
