// Found by fuzz-snippet in a 15-minute run (docs/fuzzing.md, "Findings"),
// reduced by hand: a heap-use-after-free in AnalysisCache, in the standalone
// tool and the plugin alike (valgrind shows it in a Release build).
//
// The checks analyse relay_a first (it calls start). Its call to relay_b analyses
// relay_b, which sees relay_a still in progress: relay_b's result is
// provisional. relay_a's call then holds relay_b's summary while it evaluates
// the argument `pending.at(n)`, which analyses std::vector::at; finishing that
// dropped the provisional results, relay_b's among them, from under the call.
// Dropped results now stay alive until the outermost analysis returns
// (unit test AnalysisCache.SummaryStaysValidWhileArgumentsAnalyseOtherFunctions).
//
//   valgrind build/bin/dmalint fuzz/repro/summary-freed-during-arguments.cc -- -std=c++17 -Iinclude
//   build-fuzz/bin/fuzz-snippet --analyse fuzz/repro/summary-freed-during-arguments.cc
#include <tpu/dma.h>

#include <vector>

using namespace tpu;

extern std::vector<AsyncCopyDescriptor> pending;

void relay_b(AsyncCopyDescriptor &d, int n);

void relay_a(AsyncCopyDescriptor &d, int n) {
  d.start();
  relay_b(pending.at(n), n);
}

void relay_b(AsyncCopyDescriptor &d, int n) {
  relay_a(d, n);
}
