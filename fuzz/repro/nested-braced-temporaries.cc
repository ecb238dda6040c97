// Found by fuzz-snippet (docs/fuzzing.md, "Findings"): not a dmalint bug but
// a cost of clang's AST traversal that every clang-tidy check pays. Each level
// of nested braced temporaries doubles the time of any clang-tidy run over
// this function (clang's RecursiveASTVisitor walks both the syntactic and the
// semantic form of every InitListExpr, and they share their elements), so 20
// levels take seconds per check and a few more take minutes. dmalint's own
// analysis is not affected (fuzz-snippet --analyse takes 0.1 s at any depth).
//
//   build/bin/dmalint fuzz/repro/nested-braced-temporaries.cc -- -std=c++17 -Iinclude
//   clang-tidy-19 --checks='-*,bugprone-use-after-move' fuzz/repro/nested-braced-temporaries.cc -- -std=c++17 -Iinclude
//
// (generated: 20 levels of std::vector<AsyncCopyDescriptor>{...}.front())
#include <tpu/dma.h>

#include <vector>

using namespace tpu;

void k(Ref<float> a, Ref<float> b, DmaSemaphore s) {
  AsyncCopyDescriptor d =
      std::vector<AsyncCopyDescriptor>{std::vector<AsyncCopyDescriptor>{std::vector<AsyncCopyDescriptor>{std::vector<AsyncCopyDescriptor>{std::vector<AsyncCopyDescriptor>{std::vector<AsyncCopyDescriptor>{std::vector<AsyncCopyDescriptor>{std::vector<AsyncCopyDescriptor>{std::vector<AsyncCopyDescriptor>{std::vector<AsyncCopyDescriptor>{std::vector<AsyncCopyDescriptor>{std::vector<AsyncCopyDescriptor>{std::vector<AsyncCopyDescriptor>{std::vector<AsyncCopyDescriptor>{std::vector<AsyncCopyDescriptor>{std::vector<AsyncCopyDescriptor>{std::vector<AsyncCopyDescriptor>{std::vector<AsyncCopyDescriptor>{std::vector<AsyncCopyDescriptor>{std::vector<AsyncCopyDescriptor>{make_async_copy(a, b, s)}.front()}.front()}.front()}.front()}.front()}.front()}.front()}.front()}.front()}.front()}.front()}.front()}.front()}.front()}.front()}.front()}.front()}.front()}.front()}.front();
  d.start();
  d.wait();
}
