//===- Buffers.cpp - Buffer views and how two relate ----------------------===//
#include "dmalint/Buffers.h"
#include "dmalint/Arguments.h"
#include "dmalint/AstUtil.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace dmalint {

namespace {

std::optional<BufferName> nameOf(const Expr *E, const ApiIndex &Api,
                                 const UnwrittenVariables &Vars, unsigned Depth) {
  if (!E || Depth > 12)
    return std::nullopt;
  const Expr *Inner = stripWrappers(E);
  if (const auto *CE = dyn_cast<CXXConstructExpr>(Inner)) {
    if (CE->getNumArgs() == 1 && CE->getConstructor()->isCopyOrMoveConstructor())
      return nameOf(CE->getArg(0), Api, Vars, Depth + 1);
    return std::nullopt;
  }
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Inner)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (!MD || !Api.isBufferType(MC->getImplicitObjectArgument()->getType()))
      return std::nullopt;
    BufferStep Step;
    if (Api.isSliceMethod(MD)) {
      unsigned SizeAt = Api.model().SliceSizeParam;
      if (MC->getNumArgs() != 2 || SizeAt > 1)
        return std::nullopt;
      Step.Start = MC->getArg(1 - SizeAt);
      Step.Size = MC->getArg(SizeAt);
    } else if (MD->getIdentifier() && MD->getName() == "at" && MC->getNumArgs() == 1) {
      Step.Start = MC->getArg(0);
    } else {
      return std::nullopt;
    }
    std::optional<BufferName> Base =
        nameOf(MC->getImplicitObjectArgument(), Api, Vars, Depth + 1);
    if (Base)
      Base->Steps.push_back(Step);
    return Base;
  }
  std::optional<NameRoot> Root = nameRoot(Inner, Vars);
  if (!Root)
    return std::nullopt;
  if (Root->Init)
    return nameOf(Root->Init, Api, Vars, Depth + 1);
  BufferName N;
  N.Root = Root->Root;
  N.RootAt = Inner;
  return N;
}

} // namespace

std::optional<BufferName> bufferName(const Expr *E, const ApiIndex &Api,
                                     const UnwrittenVariables &Vars) {
  std::optional<BufferName> N = nameOf(E, Api, Vars, 0);
  if (N)
    N->Spelling = E;
  return N;
}

BufferRelation compareBuffers(const BufferName &A, const BufferName &B,
                              const UnwrittenVariables &Vars, const ASTContext &Ctx,
                              Evaluation Where) {
  if (A.Root != B.Root)
    return BufferRelation::OtherRoot;
  size_t Common = std::min(A.Steps.size(), B.Steps.size());
  for (size_t I = 0; I < Common; ++I) {
    const BufferStep &SA = A.Steps[I], &SB = B.Steps[I];
    if (SA.isSlice() != SB.isSlice())
      return BufferRelation::Overlap;
    if (!SA.isSlice()) {
      switch (compareIndices(SA.Start, SB.Start, Vars, Ctx, Where)) {
      case IndexRelation::Different:
        return BufferRelation::Disjoint;
      case IndexRelation::Unknown:
        return BufferRelation::Overlap;
      case IndexRelation::Same:
        continue;
      }
    }
    // Two slices: the same one (one start, one size, of whatever value),
    // or [start, start + size) intervals.
    if (compareIndices(SA.Start, SB.Start, Vars, Ctx, Where) == IndexRelation::Same &&
        compareIndices(SA.Size, SB.Size, Vars, Ctx, Where) == IndexRelation::Same)
      continue;
    std::optional<int64_t> SizeA = constantInt(SA.Size, Ctx), SizeB = constantInt(SB.Size, Ctx);
    std::optional<int64_t> Distance = constantDifference(SA.Start, SB.Start, Vars, Ctx, Where);
    if (!SizeA || !SizeB || !Distance || *SizeA <= 0 || *SizeB <= 0)
      return BufferRelation::Overlap;
    if (*Distance >= *SizeA || -*Distance >= *SizeB)
      return BufferRelation::Disjoint;
    if (*Distance != 0 || *SizeA != *SizeB)
      return BufferRelation::Overlap;
  }
  return A.Steps.size() == B.Steps.size() && !A.Inexact && !B.Inexact ? BufferRelation::Same
                                                                      : BufferRelation::Overlap;
}

} // namespace dmalint
