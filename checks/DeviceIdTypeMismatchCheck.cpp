//===- DeviceIdTypeMismatchCheck.cpp --------------------------------------===//
#include "DeviceIdTypeMismatchCheck.h"
#include "dmalint/Arguments.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace dmalint::checks {

void DeviceIdTypeMismatchCheck::registerMatchers(MatchFinder *Finder) {
  registerApiValidation(Finder);
  Finder->addMatcher(callExpr(apiInTranslationUnit(Api), callsDeviceIdUser(Api)).bind("call"),
                     this);
  Finder->addMatcher(
      cxxConstructExpr(apiInTranslationUnit(Api), constructsDeviceIdUser(Api)).bind("call"),
      this);
}

/// True when \p E evaluates to the logical device-id kind.
static bool isLogicalKind(const Expr *E, const ApiIndex &Api, ASTContext &Ctx) {
  if (const auto *DRE = dyn_cast<DeclRefExpr>(stripWrappers(E)))
    if (const auto *ECD = dyn_cast<EnumConstantDecl>(DRE->getDecl()))
      return Api.isLogicalEnumerator(ECD);
  const auto *Enum = E->getType()->getAs<EnumType>();
  std::optional<int64_t> Value = constantInt(E, Ctx);
  if (!Enum || !Value)
    return false;
  for (const EnumConstantDecl *ECD : Enum->getDecl()->enumerators())
    if (Api.isLogicalEnumerator(ECD))
      return ECD->getInitVal() == *Value;
  return false;
}

void DeviceIdTypeMismatchCheck::check(const MatchFinder::MatchResult &Result) {
  if (validateApi(Result))
    return;
  const auto *Call = Result.Nodes.getNodeAs<Expr>("call");
  const FunctionDecl *Callee = nullptr;
  if (const auto *CE = dyn_cast<CallExpr>(Call))
    Callee = CE->getDirectCallee();
  else
    Callee = cast<CXXConstructExpr>(Call)->getConstructor();
  const DeviceIdUse *Use = Api->deviceIdUseOf(Callee);
  if (!Use)
    return;
  auto Args = callArguments(Call);
  if (Use->DeviceIdTypeParam >= Args.size() || Use->DeviceIdParam >= Args.size())
    return;
  const Expr *Kind = Args[Use->DeviceIdTypeParam];
  if (isa<CXXDefaultArgExpr>(Kind) || !isLogicalKind(Kind, *Api, *Result.Context))
    return;
  std::optional<DeviceIdShape> Shape =
      deviceIdShape(Args[Use->DeviceIdParam], *Api, *Result.Context);
  // The context last: finding it builds the parent map, which clean code
  // never needs.
  if (!Shape || Shape->MeshCoordinates < 2 || isInDependentContext(*Call, *Result.Context))
    return;

  const ApiModel &M = Api->model();
  std::string KindName = M.DeviceIdKindEnum.substr(M.DeviceIdKindEnum.rfind(':') + 1);
  {
    auto Warning =
        diag(Kind->getBeginLoc(),
             "'%0::%1' does not support a device id given as %2 mesh coordinates")
        << KindName << M.LogicalEnumerator << Shape->MeshCoordinates;
    // Mesh coordinates say the author meant the mesh kind. Only rewrite the
    // enumerator's own token, and only where it is spelled in a file.
    const auto *DRE = dyn_cast<DeclRefExpr>(stripWrappers(Kind));
    if (DRE && isa<EnumConstantDecl>(DRE->getDecl())) {
      CharSourceRange Token = Lexer::makeFileCharRange(
          CharSourceRange::getTokenRange(DRE->getLocation()),
          *Result.SourceManager, Result.Context->getLangOpts());
      if (Token.isValid() && !DRE->getLocation().isMacroID())
        Warning << FixItHint::CreateReplacement(Token, M.MeshEnumerator);
    }
  } // The warning is emitted here, before its note.
  diag(Shape->Construction->getBeginLoc(), "device id built from %0 mesh coordinates here",
       DiagnosticIDs::Note)
      << Shape->MeshCoordinates;
}

} // namespace dmalint::checks
