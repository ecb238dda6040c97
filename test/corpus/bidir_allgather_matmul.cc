// CHECKS: -*,dma-*
//
// Bidirectional all-gather matmul, after the all-gather matmul of
// vllm-project/tpu-inference (tpu_inference/kernels/collectives/all_gather_matmul.py:
// a local HBM->VMEM copy of the x block for the MXU next to left and right
// remote copies, send and receive semaphores shaped [2, num_devices - 1]) and
// the two-directional ring of ag_kernel in jax/experimental/pallas/ops/tpu/all_gather.py
// (half of each shard travels left, half right). One grid step per hop: for
// each direction a `Hop` struct holds the local staging copy of the half that
// is here now and the remote copy that forwards it to the next device; the two
// hops live in an array of structs. The step's DMAs are then collected into
// one std::vector and drained through a `const auto &` alias, by value, the
// way generic pipelining code does it: the send side only under an
// is_remote() guard, the receive side for all of them. Tiling constants are
// static constexpr members (the staging priority, whether the last step
// multiplies the halves received last).
// Exercises: an array of structs of descriptors, fields copied into a vector,
// copy-by-value loops over a const alias, is_remote() guards, start(1) on
// local copies, sync_copy, a std::array epilogue, static constexpr conditions.
// Expected: no diagnostics.

#include <tpu/dma.h>

#include <array>
#include <cstdint>
#include <vector>

using namespace tpu;

void matmul_accumulate(Ref<float> out, Ref<float> x, Ref<float> y);  // out += x @ y

namespace {

constexpr const char *kAxis = "x";

struct Tiling {
  static constexpr int kStagePriority = 1;  // staging copies: local, so 0 or 1
  static constexpr bool kMultiplyLastReceived = true;
};

// What one direction does in one hop.
struct Hop {
  AsyncCopyDescriptor stage;    // gathered half -> VMEM, for this step's matmul
  AsyncCopyDescriptor forward;  // the same half -> the next device that way
};

}  // namespace

void bidir_allgather_matmul_kernel(Ref<float> x_hbm, Ref<float> gathered_hbm,
                                   Ref<float> x_vmem, Ref<float> y_vmem,
                                   Ref<float> o_vmem, index_t half_rows,
                                   SemaphoreArray<DmaSemaphore> stage_sems,
                                   SemaphoreArray<DmaSemaphore> send_sems,
                                   SemaphoreArray<DmaSemaphore> recv_sems,
                                   Semaphore barrier_sem) {
  const std::int32_t step = program_id(0);  // 0 .. n - 2
  const std::int32_t n = axis_size(kAxis);
  const std::int32_t my_id = axis_index(kAxis);
  const std::int32_t right = (my_id + 1) % n;
  const std::int32_t left = (my_id - 1 + n) % n;

  if (step == 0) {
    // Our own shard goes into our slot, then both neighbours must be in the
    // kernel before we write into their gathered buffers.
    sync_copy(x_hbm, gathered_hbm.at(my_id));
    semaphore_signal(barrier_sem, 1, DeviceId{left});
    semaphore_signal(barrier_sem, 1, DeviceId{right});
    semaphore_wait(barrier_sem, 2);
  }

  // The left-going half came from my_id + step, the right-going one from
  // my_id - step; both are here since the previous step's drain.
  const std::int32_t left_slot = (my_id + step) % n;
  const std::int32_t right_slot = (my_id - step + n) % n;
  Ref<float> left_half = gathered_hbm.at(left_slot).slice(0, half_rows);
  Ref<float> right_half = gathered_hbm.at(right_slot).slice(half_rows, half_rows);

  Hop hops[2] = {
      {make_async_copy(left_half, x_vmem.at(0), stage_sems.at(0)),
       make_async_remote_copy(left_half, left_half, send_sems.at(0, step),
                              recv_sems.at(0, step), DeviceId{left})},
      {make_async_copy(right_half, x_vmem.at(1), stage_sems.at(1)),
       make_async_remote_copy(right_half, right_half, send_sems.at(1, step),
                              recv_sems.at(1, step), DeviceId{right})}};
  for (Hop &h : hops)
    h.stage.start(Tiling::kStagePriority);
  for (Hop &h : hops)
    h.forward.start();

  // Drain everything this step issued.
  std::vector<AsyncCopyDescriptor> issued;
  for (const Hop &h : hops) {
    issued.push_back(h.stage);
    issued.push_back(h.forward);
  }
  const auto &in_flight = issued;
  for (AsyncCopyDescriptor d : in_flight)
    if (d.is_remote())
      d.wait_send();
  for (AsyncCopyDescriptor d : in_flight)
    d.wait_recv();

  matmul_accumulate(o_vmem, x_vmem.at(0), y_vmem);
  matmul_accumulate(o_vmem, x_vmem.at(1), y_vmem);

  // The halves received in the last hop are never forwarded: stage and
  // multiply them here.
  if (Tiling::kMultiplyLastReceived && step == n - 2) {
    const std::int32_t last_left = (my_id + n - 1) % n;
    const std::int32_t last_right = (my_id + 1) % n;
    std::array<AsyncCopyDescriptor, 2> tail = {
        make_async_copy(gathered_hbm.at(last_left).slice(0, half_rows),
                        x_vmem.at(0), stage_sems.at(0)),
        make_async_copy(gathered_hbm.at(last_right).slice(half_rows, half_rows),
                        x_vmem.at(1), stage_sems.at(1))};
    for (auto &d : tail)
      d.start();
    for (auto &d : tail)
      d.wait();
    matmul_accumulate(o_vmem, x_vmem.at(0), y_vmem);
    matmul_accumulate(o_vmem, x_vmem.at(1), y_vmem);
  }
}
