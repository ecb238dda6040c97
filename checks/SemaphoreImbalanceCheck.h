//===- SemaphoreImbalanceCheck.h --------------------------------*- C++ -*-===//
#ifndef DMALINT_CHECKS_SEMAPHOREIMBALANCECHECK_H
#define DMALINT_CHECKS_SEMAPHOREIMBALANCECHECK_H

#include "DmaCheck.h"
#include "llvm/ADT/DenseSet.h"
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace dmalint::checks {

/// Flags a barrier (a regular semaphore signalled and waited in one region)
/// whose signals, counted under SPMD symmetry, do not add up to what its
/// waits take: left signalled at kernel exit, or a wait that never returns.
///
/// For the user-facing documentation see: docs/checks/dma-semaphore-imbalance.md
class SemaphoreImbalanceCheck : public DmaCheck {
public:
  using DmaCheck::DmaCheck;
  void registerDmaMatchers(DmaMatchers &Matchers) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override;
  void onEndOfTranslationUnit() override;

private:
  struct Finding {
    clang::SourceLocation Loc;
    std::string Message;
    std::vector<std::pair<clang::SourceLocation, std::string>> Notes;
  };
  /// What the instantiations of one spelling of a wait say: a template's
  /// instantiations each judge it; it is reported once, and not at all when
  /// one of them proves the barrier balanced.
  struct Votes {
    std::vector<Finding> Found;
    bool Balanced = false;
    /// Functions that prove it balanced if no function calls them.
    std::vector<const clang::FunctionDecl *> BalancedIfUncalled;
  };
  void judge(const clang::FunctionDecl &Function, clang::ASTContext &Ctx);
  std::function<bool(const clang::ParmVarDecl &)> callerMayUse(const clang::FunctionDecl &Function);
  bool provedBalanced(unsigned Key, const Votes &V);

  clang::ASTContext *Ctx = nullptr;
  llvm::DenseSet<const clang::FunctionDecl *> Judged;
  std::map<unsigned, Votes> Pending;
  std::vector<unsigned> Order;
};

} // namespace dmalint::checks

#endif
