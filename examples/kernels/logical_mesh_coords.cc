// A device id given as two mesh coordinates but declared LOGICAL (Pallas:
// "LOGICAL device_id_type does not support device_id as a tuple").
// dmalint: dma-device-id-type-mismatch (fix: kMesh).
#include <tpu/dma.h>

#include <cstdint>

using namespace tpu;

void send_to_origin(Ref<float> src, Ref<float> dst, DmaSemaphore send_sem,
                    DmaSemaphore recv_sem) {
  const bool is_origin = axis_index("x") == 0 && axis_index("y") == 0;
  if (is_origin) return;

  AsyncCopyDescriptor copy = make_async_remote_copy(
      src, dst, send_sem, recv_sem, DeviceId{0, 1},
      DeviceIdType::kLogical);  // BUG: {0, 1} is a mesh position
  copy.start();
  copy.wait_send();
}
