//===- CfgCache.cpp - The CFG of a body, built once per translation unit --===//
#include "dmalint/CfgCache.h"
#include "Analyzer.h"

using namespace clang;

namespace dmalint {

const BodyCfg *CfgCache::get(const Decl *D, Stmt *Body, ASTContext &Ctx) {
  if (!Body)
    return nullptr;
  const void *Key = isa<CXXConstructorDecl>(D) ? static_cast<const void *>(D) : Body;
  auto [It, Inserted] = Bodies.try_emplace(Key);
  if (!Inserted)
    return It->second.get(); // Null when it could not be built.
  CFG::BuildOptions Options;
  // Elements are the statements transfer() acts on: calls, constructions,
  // declarations and returns are always elements; assignments, ++/-- and
  // lambdas (whose captures the liveness pass reads) are elements only when
  // asked for. Every other subexpression is evaluated from its parent
  // (eval), so making each one an element (setAllAlwaysAdd) would only cost
  // memory: a block of n statements holds several times n.
  Options.setAlwaysAdd(Stmt::BinaryOperatorClass)
      .setAlwaysAdd(Stmt::CompoundAssignOperatorClass)
      .setAlwaysAdd(Stmt::UnaryOperatorClass)
      .setAlwaysAdd(Stmt::LambdaExprClass)
      .setAlwaysAdd(Stmt::CXXNewExprClass);
  Options.AddImplicitDtors = false;
  Options.AddTemporaryDtors = false;
  // A constructor's member initialisers (and the in-class initialisers it
  // uses) are where its members get their descriptors.
  Options.AddInitializers = isa<CXXConstructorDecl>(D);
  // Where a local's scope ends its locations leave the state: the state
  // then holds what is live, not everything the function ever declared,
  // and a block visit costs the same early and late in a long function.
  Options.AddLifetime = true;
  Options.AddScopes = false;
  std::unique_ptr<CFG> Graph = CFG::buildCFG(D, Body, &Ctx, Options);
  if (!Graph)
    return nullptr;
  auto Built = std::make_unique<BodyCfg>();
  Built->Graph = std::move(Graph);
  // A range-for is the terminator of its loop's head: note its loop
  // variable, which declare() binds to the range's elements.
  for (const CFGBlock *B : *Built->Graph)
    if (const auto *For = dyn_cast_or_null<CXXForRangeStmt>(B->getTerminatorStmt()))
      RangeFors[For->getLoopVariable()] = For;
  Built->Order = componentOrder(*Built->Graph);
  Built->DeadAfter = deadLocals(*Built->Graph, Built->Order.Blocks, RangeFors);
  ByGraph[Built->Graph.get()] = Built.get();
  It->second = std::move(Built); // Nothing above inserts into Bodies.
  return It->second.get();
}

} // namespace dmalint
