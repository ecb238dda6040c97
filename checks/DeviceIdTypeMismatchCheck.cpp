//===- DeviceIdTypeMismatchCheck.cpp --------------------------------------===//
#include "DeviceIdTypeMismatchCheck.h"
#include "dmalint/Arguments.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Basic/CharInfo.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace dmalint::checks {

void DeviceIdTypeMismatchCheck::registerDmaMatchers(DmaMatchers &Matchers) {
  Matchers.add<CallExpr, takesDeviceId>("call");
  Matchers.add<CXXConstructExpr, takesDeviceId>("call");
}

/// The fix-it that makes a one-element braced DeviceId the logical id it
/// reads as: `DeviceId{peer}` becomes `DeviceId(peer)`, a bare `{peer}` and
/// the inner braces of `DeviceId({peer})` become `peer`. Only where every
/// token is spelled in the file, and only at the argument: a variable's
/// initialiser may serve other calls.
static std::optional<FixItHint> logicalIdFix(const DeviceIdShape &Shape,
                                             const ASTContext &Ctx) {
  const InitListExpr *List = Shape.Coordinates;
  if (Shape.ThroughVariable || !List || List->getNumInits() != 1)
    return std::nullopt;
  SourceLocation LBrace = List->getLBraceLoc(), RBrace = List->getRBraceLoc();
  if (LBrace.isInvalid() || RBrace.isInvalid() || LBrace.isMacroID() || RBrace.isMacroID())
    return std::nullopt;
  std::string Element = spelling(List->getInit(0), Ctx);
  if (Element.empty())
    return std::nullopt;
  // The braces are the construction's own when a type name precedes them
  // (`DeviceId{peer}`, not `f(x, {peer})` or `DeviceId({peer})`): asked of
  // the text, since a template's instantiation (a generic lambda's body)
  // rebuilds the construction without its list initialisation.
  const SourceManager &SM = Ctx.getSourceManager();
  auto [File, Offset] = SM.getDecomposedLoc(LBrace);
  StringRef Text = SM.getBufferData(File).substr(0, Offset).rtrim();
  bool Named = !Text.empty() && (isAsciiIdentifierContinue(Text.back()) || Text.back() == '>');
  return FixItHint::CreateReplacement(CharSourceRange::getTokenRange(LBrace, RBrace),
                                      Named ? "(" + Element + ")" : Element);
}

void DeviceIdTypeMismatchCheck::check(const MatchFinder::MatchResult &Result) {
  if (validateApi(Result))
    return;
  const auto *Call = Result.Nodes.getNodeAs<Expr>("call");
  DeviceIdArguments Args = deviceIdArguments(Call, *Api);
  const Expr *Kind = Args.Kind;
  if (!Kind || isa<CXXDefaultArgExpr>(Kind) ||
      deviceIdKind(Kind, *Api, *Result.Context) != DeviceIdKind::Logical)
    return;
  std::optional<DeviceIdShape> Shape = deviceIdShape(Args.Id, *Api, *Result.Context);
  // Any tuple of mesh coordinates, a one-element one (`DeviceId{peer}`, whose
  // braces call the initializer-list constructor) included. The context
  // last: finding it builds the parent map, which clean code never needs.
  if (!Shape || Shape->MeshCoordinates < 1 || isInDependentContext(*Call, *Result.Context))
    return;

  const ApiModel &M = Api->model();
  std::string KindName = M.DeviceIdKindEnum.substr(M.DeviceIdKindEnum.rfind(':') + 1);
  if (Shape->MeshCoordinates == 1) {
    // One coordinate in braces: the author meant the logical id.
    auto Warning = diag(Kind->getBeginLoc(),
                        "'%0::%1' does not support a device id given as 1 mesh coordinate; "
                        "braces build a mesh tuple, parentheses a logical id")
                   << KindName << M.LogicalEnumerator;
    if (std::optional<FixItHint> Fix = logicalIdFix(*Shape, *Result.Context))
      Warning << *Fix;
  } else {
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
  diag(Shape->Construction->getBeginLoc(), "device id built from %0 mesh coordinate%s0 here",
       DiagnosticIDs::Note)
      << Shape->MeshCoordinates;
}

} // namespace dmalint::checks
