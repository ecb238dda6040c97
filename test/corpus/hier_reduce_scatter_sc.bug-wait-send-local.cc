// CHECKS: -*,dma-*
//
// Port of tpu_inference/kernels/collectives/hierrs_sc/kernel.py (scs_kernel,
// tec_kernel) with the managers of hierrs_sc/dma_pipeline.py and the
// topology of hierrs_sc/topology.py (vllm-project/tpu-inference b8692ff01f):
// hierarchical reduce-scatter on SparseCore. The scalar sequencer (SCS) runs
// phase 1 (die-to-die copies to the partner chiplet, logical device ids) and
// the steps of phase 2 (hypercube chip-to-chip copies), each started with
// async_remote_copy on per-(slot, chunk) semaphores; the receive side is
// waited by descriptors rebuilt on dummy slices, and every send semaphore is
// drained at the end by the same helpers with wait_send = true. SCS and the
// tile cores (TEC) hand over through two regular semaphore arrays
// (scs_to_tec signalled to every subcore, tec_to_scs waited with the subcore
// count). The TEC accumulates with a double-buffered local pipeline whose
// semaphores are per iteration. Planted bug (one):
// a local placeholder descriptor is drained with wait_send().

#include <tpu/dma.h>

#include <cstdint>

using namespace tpu;

namespace cfg {
constexpr int kNumChips = 4;
constexpr int kNumHcubeDims = 2;  // log2(kNumChips)
constexpr int kNumMicroBatches = 4;
constexpr int kNumSubcores = 16;
constexpr int kNumSubcoresCol = 4;
constexpr index_t kChunkSize = 256;
constexpr index_t kCoreChunkSize = 128;
constexpr index_t kSubcoreChunkSize = 32;
}  // namespace cfg

// ---------------------------------------------------------------- topology

class Topology {
public:
  explicit Topology(const char *axis_name)
      : cur_id_(axis_index(axis_name)), cur_chip_id_(cur_id_ / 2),
        cur_chiplet_bit_(cur_id_ % 2),
        partner_id_(cur_chiplet_bit_ == 0 ? cur_id_ + 1 : cur_id_ - 1) {}

  std::int32_t cur_id() const { return cur_id_; }
  std::int32_t partner_id() const { return partner_id_; }
  std::int32_t device_id(std::int32_t chip, std::int32_t bit) const {
    return chip * 2 + bit;
  }
  std::int32_t neighbor_device_id(std::int32_t dim) const {
    return device_id(cur_chip_id_ ^ (1 << dim), cur_chiplet_bit_);
  }

private:
  std::int32_t cur_id_;
  std::int32_t cur_chip_id_;
  std::int32_t cur_chiplet_bit_;
  std::int32_t partner_id_;
};

// Row offsets of a chunk (core-level for SCS, subcore-level for TEC).
class ChunkLocator {
public:
  ChunkLocator(const Topology &topo, std::int32_t core_idx,
               std::int32_t subcore_idx)
      : topo_(topo), core_idx_(core_idx),
        subcore_row_idx_(subcore_idx / cfg::kNumSubcoresCol) {}

  index_t row_offset(index_t chunk_idx, bool for_tec) const {
    index_t off = chunk_idx * cfg::kChunkSize + core_idx_ * cfg::kCoreChunkSize;
    if (for_tec)
      off += subcore_row_idx_ * cfg::kSubcoreChunkSize;
    return off;
  }
  index_t phase1_chunk_idx(std::int32_t device, std::int32_t chip_idx) const {
    return chip_idx * 2 + device % 2;
  }
  index_t phase2_chunk_idx(std::int32_t device, std::int32_t step_idx,
                           std::int32_t chunk_group_idx,
                           std::int32_t hcube_dim_idx) const {
    const std::int32_t dim = (hcube_dim_idx + step_idx) % cfg::kNumHcubeDims;
    const std::int32_t chip_id = device / 2;
    std::int32_t base = ((chip_id >> dim) & 1) << dim;
    for (std::int32_t j = 0; j < step_idx; ++j) {
      const std::int32_t d = (hcube_dim_idx + j) % cfg::kNumHcubeDims;
      base |= ((chip_id >> d) & 1) << d;
    }
    std::int32_t bit_pos = 0;
    for (std::int32_t j = step_idx + 1; j < cfg::kNumHcubeDims; ++j, ++bit_pos) {
      const std::int32_t d = (hcube_dim_idx + j) % cfg::kNumHcubeDims;
      base |= ((chunk_group_idx >> bit_pos) & 1) << d;
    }
    return base * 2 + device % 2;
  }
  const Topology &topo() const { return topo_; }

private:
  const Topology &topo_;
  std::int32_t core_idx_;
  std::int32_t subcore_row_idx_;
};

// ------------------------------------------------------- remote DMA manager
// Layouts: x / recv_buf.at(0): [mb][rows]; running_sum: [step][mb][hcube][rows];
// recv_buf.at(1 + step): [mb][hcube][rows].

class RemoteDmaManager {
public:
  RemoteDmaManager(const Topology &topo, std::int32_t core_idx,
                   SemaphoreArray<DmaSemaphore> p1_send_sem,
                   SemaphoreArray<DmaSemaphore> p2_send_sem,
                   SemaphoreArray<DmaSemaphore> p1_recv_sem,
                   SemaphoreArray<DmaSemaphore> p2_recv_sem)
      : topo_(topo), locator_(topo, core_idx, 0), p1_send_sem_(p1_send_sem),
        p2_send_sem_(p2_send_sem), p1_recv_sem_(p1_recv_sem),
        p2_recv_sem_(p2_recv_sem) {}

  void start_phase1_d2d_copies(std::int32_t mb_idx, Ref<float> src,
                               Ref<float> dst) const {
    const std::int32_t recv_slot = mb_idx % 2;
    for (int c = 0; c < cfg::kNumChips; ++c) {
      const index_t chunk = locator_.phase1_chunk_idx(topo_.partner_id(), c);
      const index_t row = locator_.row_offset(chunk, /*for_tec=*/false);
      async_remote_copy(src.at(mb_idx).slice(row, cfg::kCoreChunkSize),
                        dst.at(mb_idx).slice(row, cfg::kCoreChunkSize),
                        p1_send_sem_.at(recv_slot, c),
                        p1_recv_sem_.at(recv_slot, c),
                        DeviceId(topo_.partner_id()), DeviceIdType::kLogical);
    }
  }

  void start_phase2_c2c_copies(std::int32_t mb_idx, std::int32_t step_idx,
                               Ref<float> src, Ref<float> dst) const {
    const std::int32_t slot_idx = mb_idx % 2;
    const std::int32_t num_chunk_groups =
        1 << (cfg::kNumHcubeDims - 1 - step_idx);
    for (std::int32_t cg = 0; cg < num_chunk_groups; ++cg) {
      for (std::int32_t hd = 0; hd < cfg::kNumHcubeDims; ++hd) {
        const std::int32_t dim = (hd + step_idx) % cfg::kNumHcubeDims;
        const std::int32_t neighbor = topo_.neighbor_device_id(dim);
        const index_t chunk =
            locator_.phase2_chunk_idx(neighbor, step_idx, cg, hd);
        const index_t row = locator_.row_offset(chunk, /*for_tec=*/false);
        async_remote_copy(
            src.at(step_idx).at(mb_idx).at(hd).slice(row, cfg::kCoreChunkSize),
            dst.at(mb_idx).at(hd).slice(row, cfg::kCoreChunkSize),
            p2_send_sem_.at(slot_idx, step_idx, cg * cfg::kNumHcubeDims + hd),
            p2_recv_sem_.at(slot_idx, step_idx, cg * cfg::kNumHcubeDims + hd),
            DeviceId(neighbor), DeviceIdType::kLogical);
      }
    }
  }

  // Waits the receive side (default) or the send side of phase 1 copies
  // through descriptors rebuilt on dummy slices of the same size.
  void wait_phase1_d2d_copies(std::int32_t mb_idx, Ref<float> src,
                              Ref<float> dst, bool wait_send = false) const {
    const std::int32_t recv_slot = mb_idx % 2;
    Ref<float> dummy_send = src.at(0).slice(0, cfg::kCoreChunkSize);
    Ref<float> dummy_recv = dst.at(0).slice(0, cfg::kCoreChunkSize);
    for (int c = 0; c < cfg::kNumChips; ++c) {
      AsyncCopyDescriptor dma = make_async_remote_copy(
          dummy_send, dummy_recv, p1_send_sem_.at(recv_slot, c),
          p1_recv_sem_.at(recv_slot, c), DeviceId(topo_.partner_id()),
          DeviceIdType::kLogical);
      if (wait_send)
        dma.wait_send();
      else
        dma.wait_recv();
    }
  }

  void wait_phase2_c2c_copies(std::int32_t mb_idx, std::int32_t step_idx,
                              Ref<float> src, Ref<float> dst,
                              bool wait_send = false) const {
    const std::int32_t slot_idx = mb_idx % 2;
    const std::int32_t num_chunk_groups =
        1 << (cfg::kNumHcubeDims - 1 - step_idx);
    Ref<float> dummy_send =
        src.at(step_idx).at(0).at(0).slice(0, cfg::kCoreChunkSize);
    Ref<float> dummy_recv = dst.at(0).at(0).slice(0, cfg::kCoreChunkSize);
    for (std::int32_t cg = 0; cg < num_chunk_groups; ++cg) {
      for (std::int32_t hd = 0; hd < cfg::kNumHcubeDims; ++hd) {
        const std::int32_t dim = (hd + step_idx) % cfg::kNumHcubeDims;
        auto dma = make_async_remote_copy(
            dummy_send, dummy_recv,
            p2_send_sem_.at(slot_idx, step_idx, cg * cfg::kNumHcubeDims + hd),
            p2_recv_sem_.at(slot_idx, step_idx, cg * cfg::kNumHcubeDims + hd),
            DeviceId(topo_.neighbor_device_id(dim)), DeviceIdType::kLogical);
        if (wait_send) {
          dma.wait_send();
        } else {
          dma.wait_recv();
        }
      }
    }
  }

private:
  const Topology &topo_;
  ChunkLocator locator_;
  SemaphoreArray<DmaSemaphore> p1_send_sem_;
  SemaphoreArray<DmaSemaphore> p2_send_sem_;
  SemaphoreArray<DmaSemaphore> p1_recv_sem_;
  SemaphoreArray<DmaSemaphore> p2_recv_sem_;
};

// ------------------------------------------------------------------- SCS

void scs_kernel(Ref<float> x_ref, Ref<float> running_sum_ref,
                Ref<float> recv_buf_ref, SemaphoreArray<Semaphore> scs_to_tec,
                SemaphoreArray<Semaphore> tec_to_scs,
                SemaphoreArray<DmaSemaphore> p1_recv_sem,
                SemaphoreArray<DmaSemaphore> p2_recv_sem,
                SemaphoreArray<DmaSemaphore> p1_send_sem,
                SemaphoreArray<DmaSemaphore> p2_send_sem,
                const char *axis_name) {
  const std::int32_t core_idx = axis_index("core");
  Topology topo(axis_name);
  RemoteDmaManager dma_manager(topo, core_idx, p1_send_sem, p2_send_sem,
                               p1_recv_sem, p2_recv_sem);

  auto signal_and_wait_tec = [&](std::int32_t mb_idx, std::int32_t step) {
    const std::int32_t slot = mb_idx % 2;
    for (std::int32_t s = 0; s < cfg::kNumSubcores; ++s)
      semaphore_signal(scs_to_tec.at(slot, step), 1, DeviceId{s},
                       DeviceIdType::kMesh);
    semaphore_wait(tec_to_scs.at(slot, step), cfg::kNumSubcores);
  };

  // Prologue: phase 1 of micro-batch 0, its accumulation, phase 2 step 0.
  dma_manager.start_phase1_d2d_copies(0, x_ref, recv_buf_ref.at(0));
  dma_manager.wait_phase1_d2d_copies(0, x_ref, recv_buf_ref.at(0));
  signal_and_wait_tec(0, 0);
  dma_manager.start_phase2_c2c_copies(0, 0, running_sum_ref,
                                      recv_buf_ref.at(1));

  // Main loop: phase 1 of mb + 1 overlapped with phase 2 step 0 of mb.
  for (std::int32_t mb_idx = 0; mb_idx < cfg::kNumMicroBatches - 1; ++mb_idx) {
    dma_manager.start_phase1_d2d_copies(mb_idx + 1, x_ref, recv_buf_ref.at(0));
    dma_manager.wait_phase1_d2d_copies(mb_idx + 1, x_ref, recv_buf_ref.at(0));
    signal_and_wait_tec(mb_idx + 1, 0);
    dma_manager.start_phase2_c2c_copies(mb_idx + 1, 0, running_sum_ref,
                                        recv_buf_ref.at(1));
    dma_manager.wait_phase2_c2c_copies(mb_idx, 0, running_sum_ref,
                                       recv_buf_ref.at(1));
    signal_and_wait_tec(mb_idx, 1);
  }

  const std::int32_t last_mb_idx = cfg::kNumMicroBatches - 1;
  if (cfg::kNumMicroBatches > 1)
    dma_manager.start_phase2_c2c_copies(0, 1, running_sum_ref,
                                        recv_buf_ref.at(2));
  dma_manager.wait_phase2_c2c_copies(last_mb_idx, 0, running_sum_ref,
                                     recv_buf_ref.at(1));
  signal_and_wait_tec(last_mb_idx, 1);
  if (cfg::kNumMicroBatches == 1)
    dma_manager.start_phase2_c2c_copies(0, 1, running_sum_ref,
                                        recv_buf_ref.at(2));

  // Phase 2, steps 1 and up.
  for (std::int32_t step_idx = 1; step_idx < cfg::kNumHcubeDims; ++step_idx) {
    for (std::int32_t mb_idx = 0; mb_idx < cfg::kNumMicroBatches - 1;
         ++mb_idx) {
      dma_manager.wait_phase2_c2c_copies(mb_idx, step_idx, running_sum_ref,
                                         recv_buf_ref.at(step_idx + 1));
      dma_manager.start_phase2_c2c_copies(mb_idx + 1, step_idx,
                                          running_sum_ref,
                                          recv_buf_ref.at(step_idx + 1));
      signal_and_wait_tec(mb_idx, step_idx + 1);
    }
    dma_manager.wait_phase2_c2c_copies(last_mb_idx, step_idx, running_sum_ref,
                                       recv_buf_ref.at(step_idx + 1));
    if (cfg::kNumMicroBatches > 1 && step_idx < cfg::kNumHcubeDims - 1)
      dma_manager.start_phase2_c2c_copies(0, step_idx + 1, running_sum_ref,
                                          recv_buf_ref.at(step_idx + 2));
    signal_and_wait_tec(last_mb_idx, step_idx + 1);
    if (cfg::kNumMicroBatches == 1 && step_idx < cfg::kNumHcubeDims - 1)
      dma_manager.start_phase2_c2c_copies(0, step_idx + 1, running_sum_ref,
                                          recv_buf_ref.at(step_idx + 2));
  }

  // Clean up the send semaphores nobody waited yet.
  for (std::int32_t mb_idx = 0; mb_idx < cfg::kNumMicroBatches; ++mb_idx)
    dma_manager.wait_phase1_d2d_copies(mb_idx, x_ref, recv_buf_ref.at(0),
                                       /*wait_send=*/true);
  for (std::int32_t step_idx = 0; step_idx < cfg::kNumHcubeDims; ++step_idx)
    for (std::int32_t mb_idx = 0; mb_idx < cfg::kNumMicroBatches; ++mb_idx)
      dma_manager.wait_phase2_c2c_copies(mb_idx, step_idx, running_sum_ref,
                                         recv_buf_ref.at(step_idx + 1),
                                         /*wait_send=*/true);
}

// ------------------------------------------------------------------- TEC

void accumulate_rows(Ref<float> target, Ref<float> addend, index_t rows);

class LocalDmaManager {
public:
  LocalDmaManager(const Topology &topo, std::int32_t core_idx,
                  std::int32_t subcore_idx)
      : topo_(topo), locator_(topo, core_idx, subcore_idx) {}

  void local_subcore_copy(Ref<float> src, Ref<float> dst,
                          DmaSemaphore sem) const {
    if (cfg::kSubcoreChunkSize % 8 == 0) {
      make_async_copy(src, dst, sem).start();
    } else {
      for (index_t i = 0; i < cfg::kSubcoreChunkSize; ++i)
        make_async_copy(src.at(i), dst.at(i), sem).start();
    }
  }

  void wait_subcore_copies(Ref<float> src_dummy, Ref<float> dst_dummy,
                           DmaSemaphore sem, int num_copies = 1) const {
    for (int n = 0; n < num_copies; ++n) {
      if (cfg::kSubcoreChunkSize % 8 == 0) {
        make_async_copy(src_dummy, dst_dummy, sem).wait_send();  // BUG
// CHECK-MESSAGES: :[[@LINE-1]]:{{[0-9]+}}: warning: {{.*}} [dma-wait-send-on-local-copy]
// CHECK-FIXES: {{^}}        make_async_copy(src_dummy, dst_dummy, sem).wait_recv();  // BUG{{$}}
      } else {
        for (index_t i = 0; i < cfg::kSubcoreChunkSize; ++i)
          make_async_copy(src_dummy.at(i), dst_dummy.at(i), sem).wait();
      }
    }
  }

  // Double-buffered accumulation; one input and one output semaphore per
  // iteration.
  template <typename Src1Fn, typename Src2Fn, typename OutFn>
  void accumulate_pipeline(std::int32_t num_iters, Src1Fn get_src1,
                           Src2Fn get_src2, OutFn get_out,
                           Ref<float> src1_vmem, Ref<float> src2_vmem,
                           SemaphoreArray<DmaSemaphore> src_sems,
                           SemaphoreArray<DmaSemaphore> out_sems) const {
    if (num_iters == 0)
      return;
    constexpr index_t r = cfg::kSubcoreChunkSize;

    auto copy_in = [&](std::int32_t idx, std::int32_t slot) {
      local_subcore_copy(get_src1(idx), src1_vmem.at(slot).slice(0, r),
                         src_sems.at(idx));
      local_subcore_copy(get_src2(idx), src2_vmem.at(slot).slice(0, r),
                         src_sems.at(idx));
    };
    auto wait_in = [&](std::int32_t idx, std::int32_t) {
      wait_subcore_copies(get_src1(idx), src1_vmem.at(0).slice(0, r),
                          src_sems.at(idx), 2);
    };
    auto compute = [&](std::int32_t, std::int32_t slot) {
      accumulate_rows(src1_vmem.at(slot), src2_vmem.at(slot), r);
    };
    auto copy_out = [&](std::int32_t idx, std::int32_t slot) {
      local_subcore_copy(src1_vmem.at(slot).slice(0, r), get_out(idx),
                         out_sems.at(idx));
    };
    auto wait_out = [&](std::int32_t idx, std::int32_t) {
      wait_subcore_copies(src1_vmem.at(0).slice(0, r), get_out(idx),
                          out_sems.at(idx), 1);
    };
    auto slot_of = [](std::int32_t idx) { return idx % 2; };

    copy_in(0, 0);
    for (std::int32_t idx = 0; idx < num_iters - 1; ++idx) {
      if (idx >= 1)
        wait_out(idx - 1, slot_of(idx - 1));
      copy_in(idx + 1, slot_of(idx + 1));
      wait_in(idx, slot_of(idx));
      compute(idx, slot_of(idx));
      copy_out(idx, slot_of(idx));
    }
    const std::int32_t last_idx = num_iters - 1;
    wait_in(last_idx, slot_of(last_idx));
    compute(last_idx, slot_of(last_idx));
    copy_out(last_idx, slot_of(last_idx));
    if (last_idx >= 1)
      wait_out(last_idx - 1, slot_of(last_idx - 1));
    wait_out(last_idx, slot_of(last_idx));
  }

  void run_phase1_accumulate_pipeline(std::int32_t mb_idx, Ref<float> src1,
                                      Ref<float> src2, Ref<float> out,
                                      Ref<float> src1_vmem,
                                      Ref<float> src2_vmem,
                                      SemaphoreArray<DmaSemaphore> src_sems,
                                      SemaphoreArray<DmaSemaphore> out_sems) const {
    auto row_of = [&](std::int32_t idx) {
      return locator_.row_offset(locator_.phase1_chunk_idx(topo_.cur_id(), idx),
                                 /*for_tec=*/true);
    };
    auto get_src1 = [&](std::int32_t idx) {
      return src1.at(mb_idx).slice(row_of(idx), cfg::kSubcoreChunkSize);
    };
    auto get_src2 = [&](std::int32_t idx) {
      return src2.at(mb_idx).slice(row_of(idx), cfg::kSubcoreChunkSize);
    };
    auto get_out = [&](std::int32_t idx) {
      return out.at(0).at(mb_idx).slice(row_of(idx), cfg::kSubcoreChunkSize);
    };
    accumulate_pipeline(cfg::kNumChips, get_src1, get_src2, get_out,
                        src1_vmem, src2_vmem, src_sems, out_sems);
  }

  void run_phase2_accumulate_pipeline(std::int32_t mb_idx,
                                      std::int32_t step_idx, Ref<float> src1,
                                      Ref<float> src2, Ref<float> final_out,
                                      Ref<float> src1_vmem,
                                      Ref<float> src2_vmem,
                                      SemaphoreArray<DmaSemaphore> src_sems,
                                      SemaphoreArray<DmaSemaphore> out_sems) const {
    const std::int32_t num_chunk_groups =
        1 << (cfg::kNumHcubeDims - 1 - step_idx);
    const std::int32_t num_iters = num_chunk_groups * cfg::kNumHcubeDims;
    const bool is_last_step = step_idx == cfg::kNumHcubeDims - 1;
    auto row_of = [&](std::int32_t idx) {
      return locator_.row_offset(
          locator_.phase2_chunk_idx(topo_.cur_id(), step_idx,
                                    idx / cfg::kNumHcubeDims,
                                    idx % cfg::kNumHcubeDims),
          /*for_tec=*/true);
    };
    auto get_src1 = [&](std::int32_t idx) {
      return src1.at(step_idx).at(mb_idx).at(idx % cfg::kNumHcubeDims)
          .slice(row_of(idx), cfg::kSubcoreChunkSize);
    };
    auto get_src2 = [&](std::int32_t idx) {
      return src2.at(step_idx + 1).at(mb_idx).at(idx % cfg::kNumHcubeDims)
          .slice(row_of(idx), cfg::kSubcoreChunkSize);
    };
    auto get_out = [&](std::int32_t idx) {
      Ref<float> final_dst =
          is_last_step ? final_out : src1.at(step_idx + 1);
      const index_t row = is_last_step
                              ? locator_.row_offset(0, /*for_tec=*/true)
                              : row_of(idx);
      return final_dst.at(mb_idx).at(idx % cfg::kNumHcubeDims)
          .slice(row, cfg::kSubcoreChunkSize);
    };
    accumulate_pipeline(num_iters, get_src1, get_src2, get_out, src1_vmem,
                        src2_vmem, src_sems, out_sems);
  }

private:
  const Topology &topo_;
  ChunkLocator locator_;
};

void tec_kernel(Ref<float> x_ref, Ref<float> output_ref,
                Ref<float> running_sum_ref, Ref<float> recv_buf_ref,
                SemaphoreArray<Semaphore> scs_to_tec,
                SemaphoreArray<Semaphore> tec_to_scs, Ref<float> src1_vmem,
                Ref<float> src2_vmem, SemaphoreArray<DmaSemaphore> src_sems,
                SemaphoreArray<DmaSemaphore> out_sems, const char *axis_name) {
  const std::int32_t core_idx = axis_index("core");
  const std::int32_t subcore_idx = axis_index("subcore");
  Topology topo(axis_name);
  LocalDmaManager dma_manager(topo, core_idx, subcore_idx);

  semaphore_wait(scs_to_tec.at(0, 0), 1);
  dma_manager.run_phase1_accumulate_pipeline(
      0, x_ref, recv_buf_ref.at(0), running_sum_ref, src1_vmem, src2_vmem,
      src_sems, out_sems);
  semaphore_signal(tec_to_scs.at(0, 0));

  for (std::int32_t mb_idx = 0; mb_idx < cfg::kNumMicroBatches - 1; ++mb_idx) {
    const std::int32_t curr_slot = mb_idx % 2;
    const std::int32_t next_slot = 1 - curr_slot;
    semaphore_wait(scs_to_tec.at(next_slot, 0), 1);
    dma_manager.run_phase1_accumulate_pipeline(
        mb_idx + 1, x_ref, recv_buf_ref.at(0), running_sum_ref, src1_vmem,
        src2_vmem, src_sems, out_sems);
    semaphore_signal(tec_to_scs.at(next_slot, 0));

    semaphore_wait(scs_to_tec.at(curr_slot, 1), 1);
    dma_manager.run_phase2_accumulate_pipeline(
        mb_idx, 0, running_sum_ref, recv_buf_ref, output_ref, src1_vmem,
        src2_vmem, src_sems, out_sems);
    semaphore_signal(tec_to_scs.at(curr_slot, 1));
  }

  const std::int32_t last_mb_idx = cfg::kNumMicroBatches - 1;
  const std::int32_t last_slot = last_mb_idx % 2;
  semaphore_wait(scs_to_tec.at(last_slot, 1), 1);
  dma_manager.run_phase2_accumulate_pipeline(
      last_mb_idx, 0, running_sum_ref, recv_buf_ref, output_ref, src1_vmem,
      src2_vmem, src_sems, out_sems);
  semaphore_signal(tec_to_scs.at(last_slot, 1));

  auto do_phase2_step = [&](std::int32_t mb_idx, std::int32_t step_idx) {
    const std::int32_t curr_slot = mb_idx % 2;
    semaphore_wait(scs_to_tec.at(curr_slot, 1 + step_idx), 1);
    dma_manager.run_phase2_accumulate_pipeline(
        mb_idx, step_idx, running_sum_ref, recv_buf_ref, output_ref,
        src1_vmem, src2_vmem, src_sems, out_sems);
    semaphore_signal(tec_to_scs.at(curr_slot, 1 + step_idx));
  };
  for (std::int32_t step_idx = 1; step_idx < cfg::kNumHcubeDims; ++step_idx)
    for (std::int32_t mb_idx = 0; mb_idx < cfg::kNumMicroBatches; ++mb_idx)
      do_phase2_step(mb_idx, step_idx);
}
