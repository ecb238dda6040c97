// A blocked copy pipeline against <tpu/dma.h> in the style of emit_pipeline:
// the caller hands in index maps and a completion hook as pointers to
// functions (and a reference to one), which the analysis cannot see into.
// Calls through them once crashed dmalint (a call with no callee). The
// kernel is clean: every copy is local, started, and waited on the receive
// side only; what a hook does with a copy it is handed is unknown, so
// nothing about that copy is reported. dmalint must report nothing.
#include <tpu/dma.h>

#include <array>
#include <cstdint>

using namespace tpu;

namespace blocked {

using IndexMap = index_t (*)(std::int32_t);
using Done = void (*)(AsyncCopyDescriptor &);

struct Spec {
  IndexMap in_map;
  IndexMap out_map;
  Done on_done;
};

index_t identity(std::int32_t step) { return step; }
index_t reversed(std::int32_t step) { return 7 - step; }
void keep(AsyncCopyDescriptor &copy) { copy.wait_recv(); }

// Double-buffered: the copy of block step + 1 is started before block step
// is waited.
void pipeline_kernel(Ref<float> in_hbm, Ref<float> out_hbm, Ref<float> buf,
                     SemaphoreArray<DmaSemaphore> sems, const Spec &spec, std::int32_t steps) {
  auto fetch = [&](std::int32_t step) {
    const std::int32_t slot = step % 2;
    return make_async_copy(in_hbm.at((*spec.in_map)(step)), buf.at(slot), sems.at(slot));
  };
  fetch(0).start();
  for (std::int32_t step = 0; step < steps; ++step) {
    if (step + 1 < steps)
      fetch(step + 1).start();
    fetch(step).wait_recv();
    const std::int32_t slot = step % 2;
    auto out = make_async_copy(buf.at(slot), out_hbm.at(spec.out_map(step)), sems.at(slot));
    out.start();
    spec.on_done(out);
  }
}

// A pointer parameter and a reference to a function, called directly.
void gather_kernel(Ref<float> in_hbm, Ref<float> out, DmaSemaphore sem, IndexMap map,
                   void (&finish)(AsyncCopyDescriptor &), std::int32_t n) {
  for (std::int32_t i = 0; i < n; ++i) {
    auto copy = make_async_copy(in_hbm.at(map(i)), out.at(i), sem);
    copy.start();
    finish(copy);
  }
}

void run(Ref<float> in_hbm, Ref<float> out_hbm, Ref<float> buf,
         SemaphoreArray<DmaSemaphore> sems) {
  const Spec spec{&identity, reversed, keep};
  pipeline_kernel(in_hbm, out_hbm, buf, sems, spec, 8);
  gather_kernel(in_hbm, out_hbm, sems.at(0), &reversed, keep, 8);
}

} // namespace blocked
