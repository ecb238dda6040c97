// CHECKS: -*,dma-*
//
// Expert-parallel all-to-all with a planted bug; a copy of ep_all_to_all.cc
// (after _ragged_all_to_all_kernel in
// jax/experimental/pallas/ops/tpu/ragged_all_to_all.py). On the last grid step
// the author builds the "dummy" descriptor whose only purpose is to wait the
// receive semaphore for the total received byte count, and then forgets to
// call wait_recv on it. The descriptor is built and never started nor waited
// (Pallas logs "AsyncCopyDescriptor was not used"), recv_sem is left non-zero
// and the kernel may read its output before it has arrived. Expected: one
// dma-unused-descriptor warning at the construction of 'dummy_recv'; nothing
// else.

#include <tpu/dma.h>

#include <cstdint>
#include <vector>

using namespace tpu;

template <class F> void when(bool c, F f) { if (c) f(); }

struct bf16 { std::uint16_t bits; };

void ragged_all_to_all_kernel(Ref<bf16> input_ref,
                              const std::int32_t* input_offsets,
                              const std::int32_t* input_sizes,
                              const std::int32_t* output_offsets,
                              const std::int32_t* total_send_amount,
                              const std::int32_t* total_receive_amount,
                              Ref<bf16> output_ref, DmaSemaphore send_sem,
                              DmaSemaphore recv_sem, std::int32_t num_groups) {
  const std::int32_t my_id = axis_index("expert");
  const std::int32_t num_devices = axis_size("expert");
  const std::int32_t data = axis_index("data");
  const std::int32_t groups_per_device = num_groups / num_devices;

  // Shift by our id, so that step i sends 0->i, 1->i+1, ... and not all
  // devices to the same target at once.
  const std::int32_t step = program_id(0);
  const std::int32_t group = (step + my_id) % num_groups;
  const std::int32_t target = group / groups_per_device;
  const std::int32_t size = input_sizes[group];
  Ref<bf16> src = input_ref.slice(input_offsets[group], size);
  Ref<bf16> dst = output_ref.slice(output_offsets[group], size);
  AsyncCopyDescriptor copy = make_async_remote_copy(src, dst, send_sem, recv_sem, DeviceId{data, target});
  when(size > 0, [&] { copy.start(); });

  when(step == num_groups - 1, [&] {
    // One aggregate wait for every send this device started on send_sem.
    Ref<bf16> sent = input_ref.slice(0, total_send_amount[0]);
    make_async_copy(sent, sent, send_sem).wait();
    // One aggregate wait for everything written into our output.
    const std::int32_t num_reads = total_receive_amount[0];
    AsyncCopyDescriptor dummy_recv = make_async_remote_copy(input_ref.slice(0, num_reads), output_ref.slice(0, num_reads), send_sem, recv_sem, DeviceId{data, target});
    // CHECK-MESSAGES: :[[@LINE-1]]:{{[0-9]+}}: warning: {{.*}} [dma-unused-descriptor]
  });
}

void dense_dispatch_kernel(Ref<bf16> tokens, Ref<bf16> recv_buf,
                           DmaSemaphore local_sem, DmaSemaphore send_sem,
                           DmaSemaphore recv_sem, index_t chunk) {
  const std::int32_t my_id = axis_index("expert");
  const std::int32_t n = axis_size("expert");
  const std::int32_t data = axis_index("data");

  std::vector<AsyncCopyDescriptor> sends;
  for (std::int32_t peer = 0; peer < n; ++peer) {
    Ref<bf16> src = tokens.slice(peer * chunk, chunk);
    Ref<bf16> dst = recv_buf.slice(my_id * chunk, chunk);
    if (peer == my_id)
      sends.push_back(make_async_copy(src, dst, local_sem));
    else
      sends.push_back(AsyncCopyDescriptor(src, dst, recv_sem, send_sem,
                                          DeviceId{data, peer}));
    sends.back().start();
  }

  // Send sides first: `tokens` may be overwritten once they are done.
  for (AsyncCopyDescriptor& d : sends) {
    if (!d.is_remote()) continue;
    d.wait_send();
  }
  // The n - 1 chunks from our peers all landed on recv_sem: one aggregate
  // wait of their total size. Our own chunk is the local copy.
  Ref<bf16> received = recv_buf.slice(0, (n - 1) * chunk);
  make_async_copy(received, received, recv_sem).wait_recv();
  for (AsyncCopyDescriptor& d : sends) {
    if (!d.is_remote()) d.wait();
  }
}
