// Found by CI's 20-second fuzz-snippet run at 8172c17 (docs/fuzzing.md,
// "Findings"), reduced by hand: a stack overflow in the protocol summaries,
// in the standalone tool and the plugin alike.
//
// The race check asks for the protocol summary of each member function that
// an analysed member function calls on `*this` (does it state all it does
// with the object?). drain() calls itself on `*this`: making its summary
// asked for its summary again, without end. A summary in progress is now
// unknown to whoever asks for it (fixture case AttentionRecursive in
// test/fixtures/dma-semaphore-race.members.cc).
//
//   build/bin/dmalint fuzz/repro/recursive-member-summary.cc -- -std=c++17 -Iinclude
//   build-fuzz/bin/fuzz-snippet --check fuzz/repro/recursive-member-summary.cc
#include <tpu/dma.h>

using namespace tpu;

class Attention {
public:
  void step(int i) {
    make_async_copy(hbm_.at(i + 1), buf_.at(1 - i % 2), sem_).start();
    drain(i + 1);
  }

private:
  void drain(int n) {
    if (n <= 0)
      return;
    make_async_copy(hbm_.at(n), buf_.at(n % 2), sem_).wait();
    drain(n - 1);
  }
  Ref<float> hbm_, buf_;
  DmaSemaphore sem_;
};
