//===- MeshArityCheck.h -----------------------------------------*- C++ -*-===//
#ifndef DMALINT_CHECKS_MESHARITYCHECK_H
#define DMALINT_CHECKS_MESHARITYCHECK_H

#include "DmaCheck.h"
#include <map>
#include <set>
#include <vector>

namespace dmalint::checks {

/// Flags, in one function, the mesh device ids whose number of coordinates
/// differs from the others': one kernel runs on one mesh ("Number of device
/// ids must match the number of mesh axes").
///
/// For the user-facing documentation see: docs/checks/dma-mesh-arity.md
class MeshArityCheck : public DmaCheck {
public:
  using DmaCheck::DmaCheck;
  void registerDmaMatchers(DmaMatchers &Matchers) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override;
  void onEndOfTranslationUnit() override;

private:
  /// A device id used with the mesh kind: its construction and its number
  /// of coordinates.
  struct MeshId {
    clang::SourceLocation At;
    unsigned Coordinates;
  };
  /// Puts each call of Found into the function (or lambda) it is in.
  void placeCalls();
  /// The function or lambda around \p Call, from the parent map.
  const clang::FunctionDecl *callableOf(const clang::Expr *Call);

  /// The mesh ids, by call, in the order the calls were met.
  std::vector<std::pair<const clang::Expr *, MeshId>> Found;
  /// The function definitions whose bodies may hold those calls.
  std::vector<const clang::FunctionDecl *> Bodies;
  /// By function, in the order the functions were met.
  std::map<const clang::FunctionDecl *, std::vector<MeshId>> Ids;
  std::vector<const clang::FunctionDecl *> Functions;
  const clang::SourceManager *SM = nullptr;
  clang::ASTContext *Ctx = nullptr;
};

} // namespace dmalint::checks

#endif
