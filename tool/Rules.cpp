//===- Rules.cpp - What each check is, for reports that describe rules ----===//
#include "Rules.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/Twine.h"

namespace dmalint::tool {

CheckDescription describeCheck(llvm::StringRef Name) {
  using D = CheckDescription;
  return llvm::StringSwitch<D>(Name)
      .Case("dma-bool-ref",
            D{"A DMA copy from or to a buffer of bool.",
              "Finds a copy (a factory, the general AsyncCopyDescriptor constructor, "
              "sync_copy) whose source or target is a Ref<bool>, through typedefs and "
              "aliases. Pallas TPU refuses it (\"DMAs with bool dtypes are not "
              "supported\"); keep the flags in an integer type for the copy."})
      .Case("dma-device-id-type-mismatch",
            D{"Mesh coordinates passed with DeviceIdType::kLogical.",
              "Finds a DeviceId built from mesh coordinates (two or more, or one in "
              "braces: DeviceId{peer} calls the initializer-list constructor) and passed "
              "together with DeviceIdType::kLogical. A logical device id is one "
              "integer; Pallas refuses the combination at trace time (\"LOGICAL "
              "device_id_type does not support device_id as a tuple\"). The fix "
              "passes DeviceIdType::kMesh, or DeviceId(peer) for one coordinate."})
      .Case("dma-mesh-arity",
            D{"Mesh device ids with different numbers of coordinates in one function.",
              "Finds, in one function, device ids used with DeviceIdType::kMesh whose "
              "number of coordinates differs from the most common one. A kernel runs "
              "on one mesh, and each mesh id needs one coordinate per mesh axis "
              "(\"Number of device ids must match the number of mesh axes\")."})
      .Case("dma-semaphore-imbalance",
            D{"A barrier semaphore whose signals, counted over every device, do not add up "
              "to what its waits take.",
              "Finds a regular semaphore that one function signals and waits in one region "
              "(no branch, early exit or uncounted loop between them) whose signals, "
              "counted under SPMD symmetry, differ from what its waits take: every signal "
              "goes to a bijection of the device's own id (a ring neighbour, itself, every "
              "device in a loop), so each device receives what it sends. Over-signalled, "
              "the semaphore is non-zero when the kernel exits; under-signalled, the wait "
              "never completes (jax a155c5a999: all_gather signalled 2 to each neighbour "
              "and waited 2)."})
      .Case("dma-semaphore-race",
            D{"A wait that may return on the bytes of another slot's copy, still in "
              "flight on the same semaphore.",
              "Finds a wait on a local copy's semaphore made while a copy into another "
              "slot of the same buffer, started before it in the same step (or loop "
              "iteration) on a semaphore that is provably the same, is still in flight, "
              "and nothing waits that copy before the step ends. DMA semaphores count "
              "bytes, so the wait may return on the other copy's bytes before its own "
              "data has arrived (jax 0e690c1a88, paged attention). Give each buffer "
              "slot its own semaphore."})
      .Case("dma-send-never-waited",
            D{"A remote DMA copy waited with wait_recv() whose send semaphore nothing waits.",
              "Finds wait_recv() on a copy that is remote on every path while nothing in "
              "the kernel waits its send semaphore: no wait() or wait_send() of the copy, "
              "and no wait of a descriptor on a semaphore of the same root that may be "
              "the same. The send semaphore is then still signalled when the kernel "
              "exits, which Pallas reports (\"Semaphore ... has non-zero count ... at "
              "kernel exit\") and hardware crashes on. The fix waits both sides: "
              "wait()."})
      .Case("dma-shape-mismatch",
            D{"A started or waited DMA copy between slices of different constant sizes.",
              "Finds a copy whose source and target both end in .slice(start, n) with "
              "constant, different sizes n, and that is started or waited (directly, "
              "through a helper of the translation unit, or by sync_copy). Mosaic's "
              "verifier rejects it (\"DMA source and target shape mismatch\")."})
      .Case("dma-src-sem-device-id-mismatch",
            D{"The general AsyncCopyDescriptor constructor with exactly one of src_sem "
              "and device_id.",
              "Finds a call of the general AsyncCopyDescriptor constructor that sets "
              "exactly one of src_sem and device_id, directly or through optionals on "
              "some paths. Pallas builds a remote copy when both are set and a local "
              "copy when neither is, and refuses the kernel otherwise (\"Either both "
              "or neither `src_sem` and `device_id` can be set.\")."})
      .Case("dma-start-priority",
            D{"start(p) with a negative priority, above 1, or non-zero on a remote copy.",
              "Finds start(p) on a DMA descriptor where p is a constant expression the "
              "TPU does not accept: negative (rejected by Pallas at trace time), above "
              "1 (the TPU compiler accepts only 0 or 1), or non-zero on a copy that is, "
              "or may be, remote (remote copies may only be started with priority 0)."})
      .Case("dma-unused-descriptor",
            D{"A DMA descriptor that is built but never started or waited.",
              "Finds a DMA descriptor that is built and then, on every path, neither "
              "started nor waited, and that never leaves the function. Building a "
              "descriptor copies nothing: it is almost always a forgotten start() (the "
              "data never arrives) or a forgotten wait() (the kernel reads a buffer "
              "that is still being written)."})
      .Case("dma-wait-send-on-local-copy",
            D{"wait_send() on a copy that is, or on some path may be, local.",
              "Finds d.wait_send() where the descriptor d is, or may be, a local copy "
              "(built without a source semaphore and a device id), following it "
              "through the function and through helpers that wait the send side of "
              "their parameters. Only a remote copy has a send side; on a local copy "
              "Pallas stops at trace time (\"Cannot `wait_send` on a local copy.\"). "
              "The fix waits the receive side, or guards the call with is_remote()."})
      .Default(D{("The dmalint check " + llvm::Twine(Name) + ".").str(),
                 ("The dmalint check " + llvm::Twine(Name) + "; see its documentation.").str()});
}

std::string checkDocUrl(llvm::StringRef Template, llvm::StringRef Name) {
  std::string Url;
  llvm::StringRef Rest = Template;
  for (size_t At; (At = Rest.find("{check}")) != llvm::StringRef::npos;) {
    Url += Rest.take_front(At);
    Url += Name;
    Rest = Rest.drop_front(At + llvm::StringRef("{check}").size());
  }
  Url += Rest;
  return Url;
}

llvm::StringRef defaultCheckDocUrl() { return DMALINT_CHECK_DOC_URL; }

llvm::StringRef informationUrl() { return DMALINT_INFORMATION_URL; }

} // namespace dmalint::tool
