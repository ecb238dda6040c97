//===- AstUtil.cpp - Small AST helpers shared by the analysis and checks ===//
#include "dmalint/AstUtil.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/Version.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace dmalint {

const Expr *stripWrappers(const Expr *E) {
  while (E) {
    const Expr *Next = E->IgnoreParenImpCasts();
    if (const auto *MTE = dyn_cast<MaterializeTemporaryExpr>(Next))
      Next = MTE->getSubExpr();
    else if (const auto *BTE = dyn_cast<CXXBindTemporaryExpr>(Next))
      Next = BTE->getSubExpr();
    else if (const auto *EWC = dyn_cast<ExprWithCleanups>(Next))
      Next = EWC->getSubExpr();
    else if (const auto *FCE = dyn_cast<CXXFunctionalCastExpr>(Next))
      Next = FCE->getSubExpr();
    else if (const auto *CE = dyn_cast<CXXConstructExpr>(Next);
             CE && CE->getNumArgs() == 1 && CE->getConstructor() &&
             CE->getConstructor()->isCopyOrMoveConstructor())
      Next = CE->getArg(0); // Elidable copies/moves of the same value.
    if (Next == E)
      return E;
    E = Next;
  }
  return E;
}

const Expr *withoutWrappers(const Expr *E, bool Conversions) {
  auto SameObjectCast = [&](CastKind K) {
    return K == CK_NoOp || K == CK_DerivedToBase || K == CK_UncheckedDerivedToBase ||
           K == CK_BaseToDerived || K == CK_LValueToRValue ||
           (Conversions && (K == CK_ConstructorConversion || K == CK_UserDefinedConversion));
  };
  for (const Expr *Previous = nullptr; E && E != Previous;) {
    Previous = E;
    E = E->IgnoreParens();
    if (const auto *ICE = dyn_cast<ImplicitCastExpr>(E)) {
      if (SameObjectCast(ICE->getCastKind()))
        E = ICE->getSubExpr();
    } else if (const auto *Cast = dyn_cast<ExplicitCastExpr>(E)) {
      if (SameObjectCast(Cast->getCastKind()))
        E = Cast->getSubExpr();
    } else if (const auto *MTE = dyn_cast<MaterializeTemporaryExpr>(E)) {
      E = MTE->getSubExpr();
    } else if (const auto *BTE = dyn_cast<CXXBindTemporaryExpr>(E)) {
      E = BTE->getSubExpr();
    } else if (const auto *EWC = dyn_cast<ExprWithCleanups>(E)) {
      E = EWC->getSubExpr();
    } else if (const auto *Default = dyn_cast<CXXDefaultArgExpr>(E)) {
      E = Default->getExpr();
    } else if (const auto *Default = dyn_cast<CXXDefaultInitExpr>(E)) {
      E = Default->getExpr();
    }
  }
  return E;
}

bool isInDependentContext(const Stmt &S, ASTContext &Ctx) {
  DynTypedNodeList Parents = Ctx.getParents(S);
  // Walk up through statements to the nearest declaration.
  while (!Parents.empty()) {
    const DynTypedNode &P = Parents[0];
    if (const auto *D = P.get<Decl>()) {
      if (const auto *DC = dyn_cast<DeclContext>(D))
        return DC->isDependentContext();
      return D->getDeclContext() && D->getDeclContext()->isDependentContext();
    }
    Parents = Ctx.getParents(P);
  }
  return false;
}

std::string spelling(const Expr *E, const ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange Range = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(E->getSourceRange()), SM, Ctx.getLangOpts());
  if (Range.isInvalid())
    return "";
  return Lexer::getSourceText(Range, SM, Ctx.getLangOpts()).str();
}

std::string nameInMessage(const Expr *E, const ASTContext &Ctx, StringRef Fallback) {
  std::string Text = spelling(E, Ctx);
  if (Text.empty()) {
    const SourceManager &SM = Ctx.getSourceManager();
    SourceLocation Begin = SM.getSpellingLoc(E->getBeginLoc());
    SourceLocation End = SM.getSpellingLoc(E->getEndLoc());
    if (SM.getFileID(Begin) == SM.getFileID(End) &&
        SM.getFileOffset(Begin) <= SM.getFileOffset(End))
      Text = Lexer::getSourceText(CharSourceRange::getTokenRange(Begin, End), SM,
                                  Ctx.getLangOpts())
                 .str();
  }
  if (Text.empty() || Text.size() > 60 || Text.find('\n') != std::string::npos)
    return Fallback.str();
  return Text;
}

SourceLocation constructionLoc(const Expr *Site) {
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Site))
    if (const auto *ME = dyn_cast<MemberExpr>(MC->getCallee()->IgnoreParens()))
      return ME->getMemberLoc();
  if (const auto *CE = dyn_cast<CXXConstructExpr>(Site); CE && !isa<CXXTemporaryObjectExpr>(CE))
    return CE->getLocation();
  return Site->getBeginLoc();
}

QualType recordTypeOf(const ASTContext &Ctx, const CXXRecordDecl &RD) {
#if CLANG_VERSION_MAJOR >= 22
  return Ctx.getCanonicalTagType(&RD);
#else
  return Ctx.getRecordType(&RD);
#endif
}

} // namespace dmalint
