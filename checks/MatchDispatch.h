//===- MatchDispatch.h - One matcher per kind of node for every dma-* check -*- C++ -*-===//
//
// clang's MatchFinder pays its matcher machinery (a bound-nodes builder, the
// traversal kind, the matcher's virtual calls through allOf and bind) once
// per registered matcher at every node of a kind the matcher names. Eleven
// checks that each register a matcher of calls, of constructions and of
// function definitions made it pay that eleven times over at every such node
// of the translation unit, standard headers included: on a file of host code
// with the plugin, 367,000 evaluations at about 630 instructions each, for
// predicates that are a hash lookup or two (docs/performance.md, issue 18).
//
// So a dma-* check does not give clang matchers. It names, for each binding
// it reads in check(), the kind of node and a plain predicate on it
// (DmaMatchers::add). The checks of a translation unit share one
// MatchDispatch, which registers one matcher with the finder per root kind
// (calls, constructions, function definitions, classes); at a node of that
// kind it asks the predicates of the checks that named it, in the order the
// checks registered them (each distinct predicate once per node), and calls
// each check whose predicate holds, with its node bound under its name: the
// same calls, in the same order, as clang's own dispatch of the matchers
// the checks used to register.
//
// The standalone dmalint, which walks the AST itself (tool/Run.cpp), hands
// each node to dispatch() directly, and learns from kinds() which nodes to
// hand over.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_CHECKS_MATCHDISPATCH_H
#define DMALINT_CHECKS_MATCHDISPATCH_H

#include "dmalint/ApiModel.h"
#include "clang/AST/ASTTypeTraits.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/SmallVector.h"
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace dmalint::checks {

/// A question a check asks of one node: true to be called back with it.
template <typename NodeT>
using NodePredicate = bool (*)(const NodeT &, clang::ASTContext &, const ApiIndex &);

class MatchDispatch : public clang::ast_matchers::MatchFinder::MatchCallback {
public:
  explicit MatchDispatch(clang::ast_matchers::MatchFinder &Finder) : Finder(Finder) {}

  /// Calls \p Check back with each node of type \p NodeT (or derived) for
  /// which \p Predicate holds, bound as \p Id. \p Check is also told when
  /// the translation unit starts and ends (through the finder; the
  /// standalone tells its checks itself).
  template <typename NodeT, NodePredicate<NodeT> Predicate>
  void add(clang::ast_matchers::MatchFinder::MatchCallback &Check, llvm::StringRef Id,
           std::shared_ptr<const ApiIndex> Api) {
    addEntry(Check, Id, std::move(Api), clang::ASTNodeKind::getFromNodeKind<NodeT>(),
             rootKind<NodeT>(), &erased<NodeT, Predicate>);
  }

  /// Asks the predicates that concern \p Node and calls back the checks
  /// whose predicate holds, in registration order.
  void dispatch(const clang::DynTypedNode &Node, clang::ASTContext &Ctx);

  /// The kinds of node some check asked about.
  std::vector<clang::ASTNodeKind> kinds() const;
  /// The finder this dispatch registered its matchers with.
  const clang::ast_matchers::MatchFinder &finder() const { return Finder; }

  /// Selects the entries that hold at \p Node (the finder's matchers ask
  /// it); true when there are any.
  bool select(const clang::DynTypedNode &Node, clang::ASTContext &Ctx);

  // MatchCallback: the finder calls back after select() said yes.
  void run(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override;
  void onEndOfTranslationUnit() override;
  llvm::StringRef getID() const override { return "dma-*"; }

private:
  using ErasedPredicate = bool (*)(const clang::DynTypedNode &, clang::ASTContext &,
                                   const ApiIndex &);
  struct Entry {
    clang::ast_matchers::MatchFinder::MatchCallback *Check;
    std::string Id;
    std::shared_ptr<const ApiIndex> Api;
    clang::ASTNodeKind Kind;
    ErasedPredicate Holds;
  };
  /// The entries of one root kind (one matcher registered with the finder).
  struct Root {
    clang::ASTNodeKind Kind;
    std::vector<Entry> Entries;
  };

  template <typename NodeT, NodePredicate<NodeT> Predicate>
  static bool erased(const clang::DynTypedNode &Node, clang::ASTContext &Ctx,
                     const ApiIndex &Api) {
    const NodeT *N = Node.get<NodeT>();
    return N && Predicate(*N, Ctx, Api);
  }
  /// The kind a node of type \p NodeT is dispatched under: every call under
  /// CallExpr (a member call is also a call: one matcher, or clang would
  /// offer a member call to two).
  template <typename NodeT> static clang::ASTNodeKind rootKind() {
    static_assert(std::is_base_of_v<clang::CallExpr, NodeT> ||
                      std::is_same_v<NodeT, clang::CXXConstructExpr> ||
                      std::is_same_v<NodeT, clang::FunctionDecl> ||
                      std::is_same_v<NodeT, clang::CXXRecordDecl>,
                  "a kind of node MatchDispatch does not register a matcher for");
    if constexpr (std::is_base_of_v<clang::CallExpr, NodeT>)
      return clang::ASTNodeKind::getFromNodeKind<clang::CallExpr>();
    else
      return clang::ASTNodeKind::getFromNodeKind<NodeT>();
  }
  void addEntry(clang::ast_matchers::MatchFinder::MatchCallback &Check, llvm::StringRef Id,
                std::shared_ptr<const ApiIndex> Api, clang::ASTNodeKind Kind,
                clang::ASTNodeKind RootKind, ErasedPredicate Holds);
  /// The root whose kind is \p Kind or a base of it; null when none is.
  Root *rootOf(clang::ASTNodeKind Kind);
  /// Calls each selected entry's check with \p Node bound.
  void runSelected(const clang::DynTypedNode &Node, clang::ASTContext &Ctx);

  clang::ast_matchers::MatchFinder &Finder;
  std::vector<Root> Roots;
  /// Every check with an entry, once, in the order they registered.
  std::vector<clang::ast_matchers::MatchFinder::MatchCallback *> Checks;
  /// What select() found: the node and its entries that hold.
  clang::DynTypedNode Selected;
  llvm::SmallVector<const Entry *, 8> Holding;
};

} // namespace dmalint::checks

#endif
