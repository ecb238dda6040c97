// A pipelined HBM -> VMEM -> peer kernel against <tpu/dma.h>, configured by a
// JSON plan (nlohmann/json) whose steps are kept in a Boost container, the
// way a host runtime hands a kernel its schedule. The kernel is clean: the
// drain waits the send side only of remote copies, and a copy chosen by a
// condition is waited under the same condition. dmalint must report nothing.
#include <tpu/dma.h>

#include <boost/container/small_vector.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

using namespace tpu;

namespace pipeline {

struct Step {
  index_t offset = 0;
  index_t size = 0;
  bool forward = false;
};

void from_json(const nlohmann::json& j, Step& s) {
  j.at("offset").get_to(s.offset);
  j.at("size").get_to(s.size);
  s.forward = j.value("forward", false);
}

using Plan = boost::container::small_vector<Step, 8>;

Plan parse_plan(const std::string& text) {
  Plan plan;
  for (const nlohmann::json& j : nlohmann::json::parse(text).at("steps"))
    plan.push_back(j.get<Step>());
  return plan;
}

void run(const Plan& plan, Ref<float> hbm, Ref<float> vmem, Ref<float> peer,
         DmaSemaphore local_sem, DmaSemaphore send_sem, DmaSemaphore recv_sem) {
  const std::int32_t me = axis_index("x");
  const std::int32_t right = (me + 1) % axis_size("x");

  std::vector<AsyncCopyDescriptor> issued;
  for (const Step& s : plan) {
    issued.push_back(make_async_copy(hbm.slice(s.offset, s.size),
                                     vmem.slice(s.offset, s.size), local_sem));
    if (s.forward)
      issued.push_back(make_async_remote_copy(vmem.slice(s.offset, s.size),
                                              peer.slice(s.offset, s.size), send_sem,
                                              recv_sem, DeviceId{right}));
  }
  for (AsyncCopyDescriptor& d : issued) d.start();
  for (AsyncCopyDescriptor& d : issued) {
    if (d.is_remote()) d.wait_send();
    d.wait_recv();
  }

  // The last step goes to the peer when it says so, else back to HBM.
  if (plan.empty()) return;
  const bool forward = plan.back().forward;
  AsyncCopyDescriptor out =
      forward ? make_async_remote_copy(vmem, peer, send_sem, recv_sem, DeviceId{right})
              : make_async_copy(vmem, hbm, local_sem);
  out.start();
  if (forward) out.wait_send();
  out.wait_recv();
}

}  // namespace pipeline

void kernel_entry(Ref<float> hbm, Ref<float> vmem, Ref<float> peer, DmaSemaphore local_sem,
                  DmaSemaphore send_sem, DmaSemaphore recv_sem) {
  static const pipeline::Plan plan = pipeline::parse_plan(
      R"({"steps": [{"offset": 0, "size": 256}, {"offset": 256, "size": 256, "forward": true}]})");
  pipeline::run(plan, hbm, vmem, peer, local_sem, send_sem, recv_sem);
}
