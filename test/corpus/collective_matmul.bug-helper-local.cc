// CHECKS: -*,dma-*
//
// All-gather collective matmul with a planted bug; a copy of
// collective_matmul.cc (collective matmul built on the ring all-gather of
// docs/pallas/tpu/distributed.md and jax/experimental/pallas/ops/tpu/all_gather.py).
// To "finish everything in one place" the author appends the local store of
// the output block to the list of in-flight remote sends and hands the list to
// drain(), a helper that calls wait_send on every element. The store is a
// local copy, so the helper's wait_send fails on it ("Cannot `wait_send` on a
// local copy."). Expected: one dma-wait-send-on-local-copy warning at the call
// of drain() (with a note at the wait_send inside the helper); nothing else.

#include <tpu/dma.h>

#include <cstdint>
#include <vector>

using namespace tpu;

template <class F> void when(bool c, F f) { if (c) f(); }

struct bf16 { std::uint16_t bits; };
void matmul_tile(Ref<bf16> lhs, Ref<bf16> rhs, Ref<float> out);  // out = lhs @ rhs

namespace {

void start_all(std::vector<AsyncCopyDescriptor>& dmas) {
  for (AsyncCopyDescriptor& d : dmas) d.start();
}

// Finishes a list of remote copies: the send side (our buffer may be reused),
// then the receive side (our neighbour's chunk has landed).
void drain(std::vector<AsyncCopyDescriptor>& sends) {
  for (AsyncCopyDescriptor& d : sends) {
    d.wait_send();
    d.wait_recv();
  }
}

// Finishes any DMA, local or remote.
void finish(AsyncCopyDescriptor& d) {
  if (d.is_remote()) d.wait_send();
  d.wait_recv();
}

}  // namespace

void all_gather_matmul_kernel(Ref<bf16> lhs_hbm, Ref<bf16> rhs_hbm,
                              Ref<float> out_hbm, Ref<bf16> lhs_vmem,
                              Ref<bf16> rhs_vmem, Ref<float> acc_vmem,
                              SemaphoreArray<DmaSemaphore> send_sems,
                              SemaphoreArray<DmaSemaphore> recv_sems,
                              SemaphoreArray<DmaSemaphore> load_sems,
                              Semaphore barrier_sem) {
  const std::int32_t step = program_id(0);
  const std::int32_t my_id = axis_index("x");
  const std::int32_t n = axis_size("x");
  const std::int32_t right = (my_id + 1) % n;
  const std::int32_t left = (my_id - 1 + n) % n;
  const std::int32_t working = step % 2;
  const std::int32_t receiving = 1 - working;

  when(step == 0, [&] {
    semaphore_signal(barrier_sem, 1, DeviceId{left});
    semaphore_signal(barrier_sem, 1, DeviceId{right});
    semaphore_wait(barrier_sem, 2);
  });

  // Forward the chunk we hold, except on the last step.
  std::vector<AsyncCopyDescriptor> inflight;
  if (step < n - 1)
    inflight.emplace_back(make_async_remote_copy(
        lhs_hbm.at(working), lhs_hbm.at(receiving), send_sems[working],
        recv_sems[receiving], DeviceId{right}));

  // Stage this step's operands into VMEM.
  std::vector<AsyncCopyDescriptor> loads = {
      make_async_copy(lhs_hbm.at(working), lhs_vmem, load_sems[0]),
      make_async_copy(rhs_hbm, rhs_vmem, load_sems[1])};
  start_all(inflight);
  start_all(loads);
  for (AsyncCopyDescriptor& d : loads) finish(d);

  matmul_tile(lhs_vmem, rhs_vmem, acc_vmem);

  // The chunk we hold is LHS rows block (my_id - step) mod n.
  const std::int32_t chunk = (my_id - step + n) % n;
  AsyncCopyDescriptor store =
      make_async_copy(acc_vmem, out_hbm.at(chunk), load_sems[2]);
  store.start();
  inflight.push_back(store);

  drain(inflight);
  // CHECK-MESSAGES: :[[@LINE-1]]:{{[0-9]+}}: warning: {{.*}} [dma-wait-send-on-local-copy]
}
