//===- MatchedNodes.h - The nodes worth handing to the dma-* checks -*- C++ -*-===//
//
// The standalone dmalint walks the AST itself and hands nodes to the checks'
// dispatch one by one (tool/Run.cpp), skipping clang's per-node matcher
// machinery. Which nodes to hand over comes from the checks: each dma-*
// check registers the kinds of node it asks about with the translation
// unit's MatchDispatch (takeMatchDispatch, DmaCheck.h), and a node is handed
// over when it is of one of those kinds. On top of that, the API model rules
// out nodes no dma-* predicate can hold for, because every one is built from
// the model's names (DmaCheck.h): a call of nothing the model
// names, a construction of a class it does not name, a class it does not
// name, a function definition that neither uses the API nor calls one that
// does.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_TOOL_MATCHEDNODES_H
#define DMALINT_TOOL_MATCHEDNODES_H

#include "dmalint/ApiModel.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ASTTypeTraits.h"
#include "llvm/ADT/DenseMap.h"
#include <array>
#include <cstdint>
#include <vector>

namespace dmalint {

enum class MatchCandidate {
  No,                ///< No check asks about it.
  Yes,               ///< Hand it to the checks.
  /// A function definition: only if it uses the API, or calls a function of
  /// the translation unit that does (AnalysisCache::reachesApi).
  IfFunctionUsesApi,
};

class MatchedNodes {
public:
  /// \p Kinds: the kinds of node the checks ask about (a node of a kind
  /// derived from one of them is of it). Without \p Api (the options are in
  /// error), every node of those kinds.
  MatchedNodes(std::vector<clang::ASTNodeKind> Kinds, const ApiIndex *Api)
      : Asked(std::move(Kinds)), Api(Api) {}

  MatchCandidate candidate(const clang::Decl &D, const clang::ASTContext &Ctx);
  MatchCandidate candidate(const clang::Stmt &S);

private:
  /// Whether a check asks about nodes of kind \p Kind (memoised per kind).
  bool mayMatch(clang::ASTNodeKind Kind);
  /// The same for a statement, memoised per statement class in an array:
  /// asked of every statement of the translation unit, where a hash lookup
  /// of the kind costs more than the rest of the question.
  bool mayMatch(const clang::Stmt &S);
  bool mayName(const clang::NamedDecl *D) const { return !Api || Api->mayName(D); }

  std::vector<clang::ASTNodeKind> Asked;
  const ApiIndex *Api;
  llvm::DenseMap<clang::ASTNodeKind, bool, clang::ASTNodeKind::DenseMapInfo> Kinds;
  /// Per Stmt::StmtClass: 0 not asked yet, 1 no, 2 yes.
  std::array<uint8_t, clang::Stmt::lastStmtConstant + 1> StmtClasses{};
};

} // namespace dmalint

#endif
