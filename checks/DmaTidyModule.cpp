//===- DmaTidyModule.cpp - The clang-tidy module `dma` --------------------===//
//
// Registers every dma-* check under its user-facing name, in one place.
//
//===----------------------------------------------------------------------===//
#include "BoolRefCheck.h"
#include "DeviceIdTypeMismatchCheck.h"
#include "DmaCheck.h"
#include "MeshArityCheck.h"
#include "SemaphoreImbalanceCheck.h"
#include "SemaphoreRaceCheck.h"
#include "SendNeverWaitedCheck.h"
#include "ShapeMismatchCheck.h"
#include "SrcSemDeviceIdMismatchCheck.h"
#include "StartPriorityCheck.h"
#include "UnusedDescriptorCheck.h"
#include "WaitSendOnLocalCopyCheck.h"
#include "clang-tidy/ClangTidyModule.h"
#include "clang/Basic/Version.h"
#if CLANG_VERSION_MAJOR < 22 // Merged into ClangTidyModule.h (and deprecated) in 22.
#include "clang-tidy/ClangTidyModuleRegistry.h"
#endif

namespace dmalint::checks {

class DmaTidyModule : public clang::tidy::ClangTidyModule {
public:
  void addCheckFactories(clang::tidy::ClangTidyCheckFactories &Factories) override {
    Factories.registerCheck<BoolRefCheck>("dma-bool-ref");
    Factories.registerCheck<DeviceIdTypeMismatchCheck>("dma-device-id-type-mismatch");
    Factories.registerCheck<MeshArityCheck>("dma-mesh-arity");
    Factories.registerCheck<SemaphoreImbalanceCheck>("dma-semaphore-imbalance");
    Factories.registerCheck<SemaphoreRaceCheck>("dma-semaphore-race");
    Factories.registerCheck<SendNeverWaitedCheck>("dma-send-never-waited");
    Factories.registerCheck<ShapeMismatchCheck>("dma-shape-mismatch");
    Factories.registerCheck<SrcSemDeviceIdMismatchCheck>("dma-src-sem-device-id-mismatch");
    Factories.registerCheck<StartPriorityCheck>("dma-start-priority");
    Factories.registerCheck<UnusedDescriptorCheck>("dma-unused-descriptor");
    Factories.registerCheck<WaitSendOnLocalCopyCheck>("dma-wait-send-on-local-copy");
  }
};

std::vector<std::string> dmaCheckNames() {
  clang::tidy::ClangTidyCheckFactories Factories;
  DmaTidyModule().addCheckFactories(Factories);
  std::vector<std::string> Names;
  for (const auto &Factory : Factories)
    Names.push_back(Factory.getKey().str());
  llvm::sort(Names);
  return Names;
}

static clang::tidy::ClangTidyModuleRegistry::Add<DmaTidyModule>
    Registration("dma-module", "Checks for DMA-descriptor misuse in kernels.");

} // namespace dmalint::checks

// Referenced by the standalone tool so the linker keeps this object (and with
// it the registration above).
volatile int DmaTidyModuleAnchorSource = 0;
