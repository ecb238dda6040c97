// A ring all-reduce kernel against <tpu/dma.h>, with double-buffered remote
// copies, next to real host-side code: the schedule is planned and checked
// with Eigen and logged with {fmt}. The kernel is clean: every remote copy is
// built with both src_sem and device_id, started with priority 0, and its send
// side is waited only because it is remote; the local copies are only waited
// on the receive side. dmalint must report nothing.
#include <tpu/dma.h>

#include <Eigen/Dense>
#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <vector>

using namespace tpu;

namespace ring {

// Kernel: reduce-scatter around the ring, one chunk per step.
void allreduce_kernel(Ref<float> x, Ref<float> scratch, Ref<float> acc,
                      SemaphoreArray<DmaSemaphore> send_sems,
                      SemaphoreArray<DmaSemaphore> recv_sems, DmaSemaphore local_sem,
                      Semaphore barrier) {
  const std::int32_t me = axis_index("ring");
  const std::int32_t n = axis_size("ring");
  const std::int32_t right = (me + 1) % n;
  const std::int32_t left = (me + n - 1) % n;

  // Neighbours agree that the scratch buffers are free.
  semaphore_signal(barrier, 1, DeviceId{left});
  semaphore_signal(barrier, 1, DeviceId{right});
  semaphore_wait(barrier, 2);

  // Stage my contribution locally.
  AsyncCopyDescriptor stage = make_async_copy(x, acc, local_sem);
  stage.start();
  stage.wait_recv();

  for (std::int32_t step = 0; step + 1 < n; ++step) {
    const index_t slot = step % 2;
    const index_t chunk = (me - step - 1 + n) % n;
    AsyncCopyDescriptor send = make_async_remote_copy(
        acc.at(chunk), scratch.at(slot), send_sems[slot], recv_sems[slot], DeviceId(right),
        DeviceIdType::kLogical);
    send.start();
    send.wait_send();
    send.wait_recv();
  }

  // Blocking local copy of the reduced result back to x: wait() is fine.
  async_copy(acc, x, local_sem).wait();
}

// Host side: the chunk each device owns after step s, checked as a permutation.
Eigen::MatrixXi schedule(int n) {
  Eigen::MatrixXi s(n - 1, n);
  for (int step = 0; step + 1 < n; ++step)
    for (int me = 0; me < n; ++me) s(step, me) = (me - step - 1 + n) % n;
  return s;
}

bool is_permutation_per_step(const Eigen::MatrixXi& s) {
  for (Eigen::Index r = 0; r < s.rows(); ++r) {
    Eigen::VectorXi seen = Eigen::VectorXi::Zero(s.cols());
    for (Eigen::Index c = 0; c < s.cols(); ++c) seen(s(r, c)) += 1;
    if ((seen.array() != 1).any()) return false;
  }
  return true;
}

}  // namespace ring

int main() {
  for (int n : std::array<int, 3>{2, 4, 8}) {
    Eigen::MatrixXi s = ring::schedule(n);
    fmt::print("ring of {}: {} steps, schedule {}\n", n, s.rows(),
               ring::is_permutation_per_step(s) ? "ok" : "BROKEN");
  }
  return 0;
}
