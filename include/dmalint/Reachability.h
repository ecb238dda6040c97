//===- Reachability.h - Whether one statement may run after another -*- C++ -*-===//
//
// The protocol checks ask whether a wait "follows" a start: runs after it on
// some path of the function, or of one iteration of the loop that started
// it. Source order says which comes first, not whether a path joins them: a
// wait in the other branch of an `if`, or before an early `return` or
// `continue`, never runs after a start in the branch that falls through.
// This answers on the function's CFG (the one the analysis built), and says
// "may" wherever it cannot tell: a statement the CFG does not hold (in a
// lambda's body), or a body clang built no CFG for.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_REACHABILITY_H
#define DMALINT_REACHABILITY_H

#include "clang/Analysis/CFG.h"
#include "llvm/ADT/DenseMap.h"
#include <utility>

namespace dmalint {

class BodyReachability {
public:
  /// \p Graph: the CFG of the function's body; null when there is none.
  explicit BodyReachability(const clang::CFG *Graph) : Graph(Graph) {}

  /// False only when no path of the function's run (or, with \p Loop, of
  /// one iteration of \p Loop: its back edge is not taken) runs \p To after
  /// \p From.
  bool mayReach(const clang::Stmt *From, const clang::Stmt *To,
                const clang::Stmt *Loop = nullptr) const;

private:
  /// The block and element index of each statement the CFG holds as an
  /// element (made at the first question).
  void index() const;
  std::pair<const clang::CFGBlock *, unsigned> elementOf(const clang::Stmt *S) const;

  const clang::CFG *Graph;
  mutable bool Indexed = false;
  mutable llvm::DenseMap<const clang::Stmt *, std::pair<const clang::CFGBlock *, unsigned>>
      Elements;
};

} // namespace dmalint

#endif // DMALINT_REACHABILITY_H
