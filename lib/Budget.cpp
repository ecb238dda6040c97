//===- Budget.cpp - What a function's work is at least, before any CFG ----===//
//
// Every reachable block of a CFG needs a visit, so a function with more
// reachable blocks than the work limit allows is skipped. For a long body the
// AST says so before a CFG of that size is built (analyzeFunction).
//
//===----------------------------------------------------------------------===//
#include "dmalint/DescriptorAnalysis.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"

using namespace clang;

namespace dmalint {

uint64_t reachableBlocksAtLeast(const Stmt &Body) {
  uint64_t Blocks = 0;
  llvm::SmallVector<const Stmt *, 64> Pending{&Body};
  while (!Pending.empty()) {
    const Stmt *S = Pending.pop_back_val();
    if (!S)
      continue;
    if (const auto *Lambda = dyn_cast<LambdaExpr>(S)) {
      // Its body is a CFG of its own; its captures are evaluated here.
      for (const Expr *Init : Lambda->capture_inits())
        Pending.push_back(Init);
      continue;
    }
    if (const auto *If = dyn_cast<IfStmt>(S)) {
      if (!If->isConstexpr())
        Blocks += 1; // The block that ends with the condition.
    } else if (isa<DoStmt>(S)) {
      Blocks += 1; // do { } while (0) runs once: its way back never runs.
    } else if (isa<ForStmt, WhileStmt, CXXForRangeStmt>(S)) {
      // The condition's block, and the one that loops back: a loop whose
      // condition is a literal false never gets there.
      const Expr *Cond = isa<ForStmt>(S)   ? cast<ForStmt>(S)->getCond()
                         : isa<WhileStmt>(S) ? cast<WhileStmt>(S)->getCond()
                                             : nullptr;
      const Expr *Literal = Cond ? Cond->IgnoreParenImpCasts() : nullptr;
      bool LiteralFalse = false;
      if (const auto *Int = dyn_cast_or_null<IntegerLiteral>(Literal))
        LiteralFalse = Int->getValue().isZero();
      else if (const auto *Bool = dyn_cast_or_null<CXXBoolLiteralExpr>(Literal))
        LiteralFalse = !Bool->getValue();
      Blocks += LiteralFalse ? 1 : 2;
    } else if (isa<ConditionalOperator, BinaryConditionalOperator, SwitchCase>(S)) {
      Blocks += 1;
    } else if (const auto *BO = dyn_cast<BinaryOperator>(S); BO && BO->isLogicalOp()) {
      Blocks += 1;
    }
    for (const Stmt *Child : S->children())
      Pending.push_back(Child);
  }
  return Blocks;
}

} // namespace dmalint
