//===- BoolRefCheck.cpp ---------------------------------------------------===//
#include "BoolRefCheck.h"
#include "dmalint/Arguments.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace dmalint::checks {

void BoolRefCheck::registerDmaMatchers(DmaMatchers &Matchers) {
  Matchers.add<CallExpr, makesCopy>("copy");
  Matchers.add<CXXConstructExpr, makesCopy>("copy");
}

/// True for a buffer whose element type is bool (through typedefs, aliases
/// and cv-qualifiers).
static bool holdsBool(const Expr *Buffer, const ApiIndex &Api) {
  if (!Buffer)
    return false;
  QualType Element = bufferElementType(Buffer->getType(), Api);
  return !Element.isNull() && Element->isBooleanType();
}

void BoolRefCheck::check(const MatchFinder::MatchResult &Result) {
  if (validateApi(Result))
    return;
  const auto *Copy = Result.Nodes.getNodeAs<Expr>("copy");
  CopyBuffers Buffers = copyBuffers(Copy, *Api);
  bool Source = holdsBool(Buffers.Source, *Api), Target = holdsBool(Buffers.Target, *Api);
  // The context last: finding it builds the parent map, which clean code
  // never needs.
  if ((!Source && !Target) || isInDependentContext(*Copy, *Result.Context))
    return;
  SourceLocation At = userLocation(constructionLoc(Copy), *Result.SourceManager);
  if (!Reported.insert(At.getRawEncoding()).second)
    return;
  const char *What = Source && Target ? "the source and target of this copy hold"
                     : Source         ? "the source of this copy holds"
                                      : "the target of this copy holds";
  diag(At, "DMAs with bool dtypes are not supported: %0 bool; keep the flags in an integer "
           "type (e.g. int32_t) for the copy")
      << What;
}

} // namespace dmalint::checks
