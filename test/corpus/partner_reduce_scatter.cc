// CHECKS: -*,dma-*
//
// Partner reduce-scatter step with DMA-manager classes, after the phase-1
// pipeline of vllm-project/tpu-inference
// (tpu_inference/kernels/collectives/hierrs_sc/dma_pipeline.py: a
// RemoteDmaManager that sends each micro-batch's chunk to the partner device
// with LOGICAL device ids and semaphores indexed by buffer slot, and a
// LocalDmaManager that copies chunks HBM->VMEM, accumulates and copies the
// result out). One grid step per micro-batch. The class ExchangePipeline keeps
// what it started in a private std::vector member: issue() pushes the local
// copy of our own chunk into VMEM and the remote copy of the partner's chunk
// into the partner's inbox, drain() waits the send side of the remote ones
// (under an is_remote() guard) and the receive side of all of them. A small
// RAII class starts its copy in the constructor and waits it in the
// destructor (the received chunk's staging, the result's write-back).
// Exercises: a class whose issue()/drain() member functions share a member
// vector of descriptors, pending_.back().start(), an is_remote() guard in
// drain(), an RAII wrapper (member built in the initialiser list, started in
// the constructor, waited in the destructor), DeviceId(partner) with
// DeviceIdType::kLogical for copies and signals. Expected: no diagnostics.

#include <tpu/dma.h>

#include <cstdint>
#include <vector>

using namespace tpu;

void accumulate(Ref<float> acc, Ref<float> addend);  // acc[...] += addend[...]

namespace {

constexpr const char *kAxis = "x";

// Sends our partner its chunk while our own chunk is staged into VMEM.
class ExchangePipeline {
 public:
  ExchangePipeline(Ref<float> partials_hbm, Ref<float> inbox_hbm,
                   Ref<float> own_vmem, SemaphoreArray<DmaSemaphore> copy_sems,
                   SemaphoreArray<DmaSemaphore> send_sems,
                   SemaphoreArray<DmaSemaphore> recv_sems, std::int32_t partner)
      : partials_hbm_(partials_hbm), inbox_hbm_(inbox_hbm), own_vmem_(own_vmem),
        copy_sems_(copy_sems), send_sems_(send_sems), recv_sems_(recv_sems),
        partner_(partner) {}

  // Micro-batch `mb` into buffer slot mb % 2: partials_hbm[0] is the half we
  // keep, partials_hbm[1] the half the partner reduces.
  void issue(index_t mb) {
    const index_t slot = mb % 2;
    pending_.push_back(make_async_copy(partials_hbm_.at(0).at(mb),
                                       own_vmem_.at(slot), copy_sems_.at(slot)));
    pending_.back().start();
    pending_.push_back(make_async_remote_copy(
        partials_hbm_.at(1).at(mb), inbox_hbm_.at(slot), send_sems_.at(slot),
        recv_sems_.at(slot), DeviceId(partner_), DeviceIdType::kLogical));
    pending_.back().start();
  }

  // Waits what issue() started: the send side of the remote copies (their
  // source may be overwritten afterwards), then every receive side (our chunk
  // is in VMEM, the partner's chunk for us is in our inbox).
  void drain() {
    for (auto &d : pending_)
      if (d.is_remote())
        d.wait_send();
    for (auto &d : pending_)
      d.wait_recv();
    pending_.clear();
  }

 private:
  Ref<float> partials_hbm_;
  Ref<float> inbox_hbm_;
  Ref<float> own_vmem_;
  SemaphoreArray<DmaSemaphore> copy_sems_;
  SemaphoreArray<DmaSemaphore> send_sems_;
  SemaphoreArray<DmaSemaphore> recv_sems_;
  std::int32_t partner_;
  std::vector<AsyncCopyDescriptor> pending_;
};

// A local copy for the length of a scope.
class ScopedCopy {
 public:
  ScopedCopy(Ref<float> src, Ref<float> dst, DmaSemaphore sem)
      : copy_(make_async_copy(src, dst, sem)) {
    copy_.start();
  }
  ~ScopedCopy() { copy_.wait(); }
  ScopedCopy(const ScopedCopy &) = delete;
  ScopedCopy &operator=(const ScopedCopy &) = delete;

 private:
  AsyncCopyDescriptor copy_;
};

}  // namespace

void partner_reduce_scatter_kernel(Ref<float> partials_hbm, Ref<float> inbox_hbm,
                                   Ref<float> own_vmem, Ref<float> inbox_vmem,
                                   Ref<float> out_hbm,
                                   SemaphoreArray<DmaSemaphore> copy_sems,
                                   SemaphoreArray<DmaSemaphore> send_sems,
                                   SemaphoreArray<DmaSemaphore> recv_sems,
                                   DmaSemaphore stage_sem, DmaSemaphore out_sem,
                                   Semaphore barrier_sem) {
  const std::int32_t mb = program_id(0);
  const std::int32_t partner = axis_index(kAxis) ^ 1;
  const index_t slot = mb % 2;

  if (mb == 0) {
    // The partner must be in the kernel before we write into its inbox.
    semaphore_signal(barrier_sem, 1, DeviceId(partner), DeviceIdType::kLogical);
    semaphore_wait(barrier_sem, 1);
  }

  ExchangePipeline exchange(partials_hbm, inbox_hbm, own_vmem, copy_sems,
                            send_sems, recv_sems, partner);
  exchange.issue(mb);
  exchange.drain();

  {
    ScopedCopy stage(inbox_hbm.at(slot), inbox_vmem.at(slot), stage_sem);
  }
  accumulate(own_vmem.at(slot), inbox_vmem.at(slot));
  ScopedCopy write_back(own_vmem.at(slot), out_hbm.at(mb), out_sem);
}
