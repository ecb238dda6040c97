//===- Formulas.cpp - Integer expressions over one parameter, and their value at a call ===//
#include "dmalint/Formulas.h"
#include "dmalint/AnalysisCache.h"
#include "dmalint/Arguments.h"
#include "dmalint/AstUtil.h"
#include "dmalint/Semaphores.h"

using namespace clang;

namespace dmalint {

namespace {

/// formulaParameter's walk: \p Param is the parameter once found.
const ParmVarDecl *readParameter(const Expr *E, const UnwrittenVariables &Vars,
                                 const ASTContext &Ctx, const DeclContext *Owner,
                                 const ParmVarDecl *Param, unsigned Depth) {
  if (!E || Depth > 8 || !E->getType()->isIntegralOrEnumerationType())
    return nullptr;
  if (constantInt(E, Ctx))
    return Param ? Param : nullptr;
  if (const auto *ICE = dyn_cast<ImplicitCastExpr>(E)) {
    if (ICE->getCastKind() == CK_LValueToRValue) {
      const auto *DRE = dyn_cast<DeclRefExpr>(ICE->getSubExpr()->IgnoreParens());
      const auto *P = DRE ? dyn_cast<ParmVarDecl>(DRE->getDecl()) : nullptr;
      bool Unwritten = P && (Owner == &Vars.function() ? Vars.unwritten(P)
                                                       : Vars.unwrittenInLambda(P));
      if (!P || P->getDeclContext() != Owner || !Unwritten ||
          (Param && P != Param) ||
          P->getType().getCanonicalType().getUnqualifiedType() !=
              ICE->getType().getCanonicalType().getUnqualifiedType())
        return nullptr;
      return P;
    }
    if (ICE->getCastKind() != CK_IntegralCast && ICE->getCastKind() != CK_NoOp)
      return nullptr;
    return readParameter(ICE->getSubExpr(), Vars, Ctx, Owner, Param, Depth + 1);
  }
  if (const auto *PE = dyn_cast<ParenExpr>(E))
    return readParameter(PE->getSubExpr(), Vars, Ctx, Owner, Param, Depth + 1);
  if (const auto *UO = dyn_cast<UnaryOperator>(E))
    return UO->getOpcode() == UO_Minus
               ? readParameter(UO->getSubExpr(), Vars, Ctx, Owner, Param, Depth + 1)
               : nullptr;
  const auto *BO = dyn_cast<BinaryOperator>(E);
  if (!BO)
    return nullptr;
  switch (BO->getOpcode()) {
  case BO_Add: case BO_Sub: case BO_Mul: case BO_Div: case BO_Rem:
  case BO_Xor: case BO_And: case BO_Or:
    break;
  default:
    return nullptr;
  }
  const ParmVarDecl *L = readParameter(BO->getLHS(), Vars, Ctx, Owner, Param, Depth + 1);
  if (!L && !constantInt(BO->getLHS(), Ctx))
    return nullptr;
  const ParmVarDecl *R =
      readParameter(BO->getRHS(), Vars, Ctx, Owner, L ? L : Param, Depth + 1);
  if (!R && !constantInt(BO->getRHS(), Ctx))
    return nullptr;
  return R ? R : L;
}

/// \p E, a formula (formulaParameter), with the read of its parameter
/// replaced by \p Arg (a prvalue of the parameter's type): new nodes in
/// \p Ctx where something below changed, else E itself.
const Expr *substitute(const Expr *E, Expr *Arg, ASTContext &Ctx) {
  if (const auto *ICE = dyn_cast<ImplicitCastExpr>(E)) {
    if (ICE->getCastKind() == CK_LValueToRValue) // formulaParameter: the parameter's.
      return ICE->getType().getCanonicalType().getUnqualifiedType() ==
                     Arg->getType().getCanonicalType().getUnqualifiedType()
                 ? Arg
                 : nullptr;
    const Expr *Sub = substitute(ICE->getSubExpr(), Arg, Ctx);
    if (!Sub || Sub == ICE->getSubExpr())
      return Sub ? E : nullptr;
    return ImplicitCastExpr::Create(Ctx, ICE->getType(), ICE->getCastKind(),
                                    const_cast<Expr *>(Sub), nullptr, ICE->getValueKind(),
                                    FPOptionsOverride());
  }
  if (const auto *PE = dyn_cast<ParenExpr>(E)) {
    const Expr *Sub = substitute(PE->getSubExpr(), Arg, Ctx);
    if (!Sub)
      return nullptr;
    return Sub == PE->getSubExpr()
               ? E
               : new (Ctx) ParenExpr(PE->getLParen(), PE->getRParen(), const_cast<Expr *>(Sub));
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
    const Expr *Sub = substitute(UO->getSubExpr(), Arg, Ctx);
    if (!Sub)
      return nullptr;
    return Sub == UO->getSubExpr()
               ? E
               : UnaryOperator::Create(Ctx, const_cast<Expr *>(Sub), UO->getOpcode(),
                                       UO->getType(), UO->getValueKind(), UO->getObjectKind(),
                                       UO->getOperatorLoc(), UO->canOverflow(),
                                       FPOptionsOverride());
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    const Expr *L = substitute(BO->getLHS(), Arg, Ctx);
    const Expr *R = substitute(BO->getRHS(), Arg, Ctx);
    if (!L || !R)
      return nullptr;
    if (L == BO->getLHS() && R == BO->getRHS())
      return E;
    return BinaryOperator::Create(Ctx, const_cast<Expr *>(L), const_cast<Expr *>(R),
                                  BO->getOpcode(), BO->getType(), BO->getValueKind(),
                                  BO->getObjectKind(), BO->getOperatorLoc(),
                                  FPOptionsOverride());
  }
  return E; // A constant.
}

} // namespace

const ParmVarDecl *formulaParameter(const Expr *E, const UnwrittenVariables &Vars,
                                    const ASTContext &Ctx, const DeclContext *Owner) {
  return readParameter(E, Vars, Ctx, Owner, nullptr, 0);
}

const Expr *substituted(const Expr *Formula, const Expr *Arg, const ASTContext &Ctx) {
  const Expr *&Made = AnalysisCache::current().substitution(Formula, Arg);
  if (!Made) {
    auto &Mutable = const_cast<ASTContext &>(Ctx);
    Expr *Value = const_cast<Expr *>(Arg);
    if (Value->isGLValue())
      Value = ImplicitCastExpr::Create(Mutable, Value->getType().getUnqualifiedType(),
                                       CK_LValueToRValue, Value, nullptr, VK_PRValue,
                                       FPOptionsOverride());
    Made = substitute(Formula, Value, Mutable);
  }
  return Made;
}

} // namespace dmalint
