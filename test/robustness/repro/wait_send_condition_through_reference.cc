// Reproducer (found writing test/robustness/real/kernel_pipeline_json.cpp):
// dma-wait-send-on-local-copy reports a "maybe" on a wait_send guarded by the
// very condition that chose the remote construction, when that condition is
// read through a reference or a pointer (a `const Step&` parameter, a
// `const bool&`, `p->forward`). The same code with the struct or the bool
// taken by value is clean, as docs/checks/dma-wait-send-on-local-copy.md
// ("Guards it understands": the correlated condition) says it should be.
// Nothing writes the condition in between; none of the four functions below
// should be reported.
//
//   dmalint test/robustness/repro/wait_send_condition_through_reference.cc -- -std=c++17 -Iinclude
//
// dmalint 0.1.0 (main at 5a291e8) reports lines 25, 35 and 45, exit status 1.
#include <tpu/dma.h>
using namespace tpu;

struct Step { bool forward = false; };

void by_const_ref(const Step& last, Ref<float> a, Ref<float> b, DmaSemaphore local_sem,
                  DmaSemaphore send_sem, DmaSemaphore recv_sem, int right) {
  AsyncCopyDescriptor out = last.forward
      ? make_async_remote_copy(a, b, send_sem, recv_sem, DeviceId{right})
      : make_async_copy(a, b, local_sem);
  out.start();
  if (last.forward) out.wait_send();  // reported: "a local copy on some paths"
  out.wait_recv();
}

void bool_by_const_ref(const bool& forward, Ref<float> a, Ref<float> b, DmaSemaphore local_sem,
                       DmaSemaphore send_sem, DmaSemaphore recv_sem, int right) {
  AsyncCopyDescriptor out = forward
      ? make_async_remote_copy(a, b, send_sem, recv_sem, DeviceId{right})
      : make_async_copy(a, b, local_sem);
  out.start();
  if (forward) out.wait_send();  // reported
  out.wait_recv();
}

void through_pointer(const Step* last, Ref<float> a, Ref<float> b, DmaSemaphore local_sem,
                     DmaSemaphore send_sem, DmaSemaphore recv_sem, int right) {
  AsyncCopyDescriptor out = last->forward
      ? make_async_remote_copy(a, b, send_sem, recv_sem, DeviceId{right})
      : make_async_copy(a, b, local_sem);
  out.start();
  if (last->forward) out.wait_send();  // reported
  out.wait_recv();
}

void by_value(Step last, Ref<float> a, Ref<float> b, DmaSemaphore local_sem,
              DmaSemaphore send_sem, DmaSemaphore recv_sem, int right) {
  AsyncCopyDescriptor out = last.forward
      ? make_async_remote_copy(a, b, send_sem, recv_sem, DeviceId{right})
      : make_async_copy(a, b, local_sem);
  out.start();
  if (last.forward) out.wait_send();  // clean, as expected
  out.wait_recv();
}
