// CHECKS: -*,dma-*
//
// Ring attention (context parallelism) written with start-or-wait helpers, after
// the `_async_copy(src, dst, sem, wait)` and `_fetch_bkv(..., wait=False)`
// helpers of jax/experimental/pallas/ops/tpu/ragged_paged_attention/kernel.py
// (v3) and the ring of docs/pallas/tpu/distributed.md. A helper builds one
// descriptor and either starts it or waits it, depending on a `bool wait`
// argument: the same call site shape issues a DMA in one grid step and, with
// the descriptor rebuilt from the same arguments, waits it in the next. The
// KV block rotates around the ring with remote copies (do_send), the query
// block is fetched once and the output stored once with local copies
// (do_copy); the final store is waited through a (dst, dst) descriptor of the
// same size, as ragged paged attention does for its output. Exercises: start
// with no wait and wait with no start in one function, rebuilt descriptors,
// wait_send inside a helper that only builds remote copies. Expected: no
// diagnostics.

#include <tpu/dma.h>

#include <cstdint>

using namespace tpu;

template <class F> void when(bool c, F f) { if (c) f(); }

struct bf16 { std::uint16_t bits; };
void attend(Ref<bf16> q, Ref<bf16> kv, Ref<float> o, std::int32_t kv_block);

namespace {

void do_copy(bool wait, Ref<float> src, Ref<float> dst, DmaSemaphore sem) {
  AsyncCopyDescriptor cp = make_async_copy(src, dst, sem);
  if (wait)
    cp.wait();
  else
    cp.start();
}

void do_copy(bool wait, Ref<bf16> src, Ref<bf16> dst, DmaSemaphore sem) {
  AsyncCopyDescriptor cp = make_async_copy(src, dst, sem);
  if (wait)
    cp.wait();
  else
    cp.start();
}

// The remote counterpart: start, or wait both sides of the same copy.
void do_send(bool wait, Ref<bf16> src, Ref<bf16> dst, DmaSemaphore send_sem,
             DmaSemaphore recv_sem, DeviceId to) {
  AsyncCopyDescriptor cp =
      make_async_remote_copy(src, dst, send_sem, recv_sem, to);
  if (wait) {
    cp.wait_send();
    cp.wait_recv();
  } else {
    cp.start();
  }
}

}  // namespace

void ring_attention_kernel(Ref<bf16> q_hbm, Ref<bf16> kv_hbm, Ref<float> o_hbm,
                           Ref<bf16> q_vmem, Ref<bf16> kv_vmem,
                           Ref<float> o_vmem, DmaSemaphore q_sem,
                           DmaSemaphore o_sem,
                           SemaphoreArray<DmaSemaphore> send_sems,
                           SemaphoreArray<DmaSemaphore> recv_sems,
                           Semaphore barrier_sem) {
  const std::int32_t step = program_id(0);
  const std::int32_t num_steps = num_programs(0);
  const std::int32_t my_id = axis_index("cp");
  const std::int32_t n = axis_size("cp");
  const DeviceId right{(my_id + 1) % n};
  const DeviceId left{(my_id - 1 + n) % n};
  const std::int32_t working = step % 2;
  const std::int32_t receiving = 1 - working;

  auto rotate_kv = [&](bool wait, std::int32_t from_slot) {
    do_send(wait, kv_vmem.at(from_slot), kv_vmem.at(1 - from_slot),
            send_sems[from_slot], recv_sems[1 - from_slot], right);
  };

  when(step == 0, [&] {
    semaphore_signal(barrier_sem, 1, left);
    semaphore_signal(barrier_sem, 1, right);
    semaphore_wait(barrier_sem, 2);
    sync_copy(kv_hbm.at(my_id), kv_vmem.at(working));
    do_copy(/*wait=*/false, q_hbm.at(my_id), q_vmem, q_sem);
  });
  // The rotation started by the previous step delivered our working block.
  when(step > 0, [&] { rotate_kv(/*wait=*/true, receiving); });
  // Pass the working block on; the next step waits for it.
  when(step + 1 < num_steps, [&] { rotate_kv(/*wait=*/false, working); });
  when(step == 0, [&] { do_copy(/*wait=*/true, q_hbm.at(my_id), q_vmem, q_sem); });

  attend(q_vmem, kv_vmem.at(working), o_vmem, (my_id - step + n) % n);

  when(step + 1 == num_steps, [&] {
    do_copy(/*wait=*/false, o_vmem, o_hbm.at(my_id), o_sem);
    // Wait the store through a descriptor of the same size on o_sem.
    do_copy(/*wait=*/true, o_hbm.at(my_id), o_hbm.at(my_id), o_sem);
  });
}
