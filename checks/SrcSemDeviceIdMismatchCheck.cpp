//===- SrcSemDeviceIdMismatchCheck.cpp ------------------------------------===//
#include "SrcSemDeviceIdMismatchCheck.h"
#include "dmalint/AstUtil.h"
#include "dmalint/Arguments.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace dmalint::checks {

void SrcSemDeviceIdMismatchCheck::registerDmaMatchers(DmaMatchers &Matchers) {
  Matchers.add<CXXConstructExpr, constructsDescriptor>("construct");
  Matchers.add<CallExpr, forwardsDescriptorConstruction>("forwarding");
  Matchers.add<FunctionDecl, definitionUsingApi>("function");
}

static StringRef parameterName(const CXXConstructorDecl *Ctor, unsigned Index,
                               StringRef Fallback) {
  if (Ctor && Index < Ctor->getNumParams() && Ctor->getParamDecl(Index)->getIdentifier())
    return Ctor->getParamDecl(Index)->getName();
  return Fallback;
}

void SrcSemDeviceIdMismatchCheck::check(const MatchFinder::MatchResult &Result) {
  if (validateApi(Result))
    return;
  if (const auto *Construct = Result.Nodes.getNodeAs<CXXConstructExpr>("construct"))
    if (Api->isDescriptorConstructor(Construct->getConstructor()))
      checkWritten(*Construct, *Construct->getConstructor(), callArguments(Construct),
                   argumentEngagement, *Result.Context);
  if (const auto *Call = Result.Nodes.getNodeAs<CallExpr>("forwarding"))
    if (std::optional<ForwardedConstruction> F = forwardedConstruction(*Call, *Api))
      checkWritten(*Call, *F->Constructor, F->Arguments, forwardedEngagement, *Result.Context);
  if (const auto *Function = Result.Nodes.getNodeAs<FunctionDecl>("function"))
    checkPaths(*Function, *Result.Context);
}

void SrcSemDeviceIdMismatchCheck::checkPaths(const FunctionDecl &Function, ASTContext &Ctx) {
  const FunctionAnalysis *Analysis = analysisOf(Function, Ctx);
  if (!Analysis)
    return;
  const ApiModel &M = Api->model();
  for (const ConstructionArguments &Built : Analysis->Constructions) {
    // Both written out (a value, std::nullopt, omitted): checkWritten's,
    // also where a standard function forwards them (emplace_back(...)).
    std::optional<ForwardedConstruction> Forwarded;
    if (Built.Construct) {
      auto Args = callArguments(Built.Construct);
      if (argumentEngagement(Args, M.CtorSrcSemParam) != Engagement::Unknown &&
          argumentEngagement(Args, M.CtorDeviceIdParam) != Engagement::Unknown)
        continue;
    } else if (const auto *Call = dyn_cast<CallExpr>(Built.Forwarding)) {
      Forwarded = forwardedConstruction(*Call, *Api);
      if (!Forwarded ||
          (forwardedEngagement(Forwarded->Arguments, M.CtorSrcSemParam) != Engagement::Unknown &&
           forwardedEngagement(Forwarded->Arguments, M.CtorDeviceIdParam) != Engagement::Unknown))
        continue;
    }
    bool OnlySrcSem = false, OnlyDeviceId = false, AnyConsistent = false;
    // Where the one left unset was made, and whether it is the device id.
    llvm::SmallVector<std::pair<const Expr *, bool>, 2> UnsetAt;
    for (const auto &C : Built.Combinations) {
      if (!C.SrcSem || !C.DeviceId || *C.SrcSem == *C.DeviceId) {
        AnyConsistent = true;
        continue;
      }
      (*C.SrcSem ? OnlySrcSem : OnlyDeviceId) = true;
      std::pair<const Expr *, bool> Unset{*C.SrcSem ? C.DeviceIdSite : C.SrcSemSite, *C.SrcSem};
      if (Unset.first && !llvm::is_contained(UnsetAt, Unset))
        UnsetAt.push_back(Unset);
    }
    SourceLocation At = constructionLoc(Built.site());
    if (!OnlySrcSem && !OnlyDeviceId) {
      if (!AnyConsistent)
        continue;
      reached(At, std::nullopt);
      continue;
    }
    const CXXConstructorDecl *Ctor = Built.Construct ? Built.Construct->getConstructor()
                                     : Forwarded     ? Forwarded->Constructor
                                                     : nullptr;
    StringRef SrcName = parameterName(Ctor, M.CtorSrcSemParam, "src_sem");
    StringRef DevName = parameterName(Ctor, M.CtorDeviceIdParam, "device_id");
    StringRef SetName = OnlySrcSem ? SrcName : DevName;
    Candidate C;
    C.Loc = At;
    C.Definite = !AnyConsistent;
    C.Message = formatMessage(
        OnlySrcSem && OnlyDeviceId
            ? "either both or neither '%0' and '%1' can be set, but on some paths only '%0' "
              "is and on others only '%1'"
        : C.Definite
            ? "either both or neither '%0' and '%1' can be set, but only '%2' is"
            : "either both or neither '%0' and '%1' can be set, but on some paths only '%2' is",
        {SrcName.str(), DevName.str(), SetName.str()});
    for (const auto &[Unset, DeviceIdUnset] : UnsetAt)
      C.Notes.push_back({isa<CXXConstructExpr>(Unset) ? constructionLoc(Unset)
                                                      : Unset->getBeginLoc(),
                         formatMessage("'%0' is left unset here",
                                       {(DeviceIdUnset ? DevName : SrcName).str()})});
    reached(At, std::move(C));
  }
}

void SrcSemDeviceIdMismatchCheck::checkWritten(
    const Expr &Site, const CXXConstructorDecl &Constructor,
    llvm::ArrayRef<const Expr *> Args,
    Engagement (*EngagementOf)(llvm::ArrayRef<const Expr *>, unsigned), ASTContext &Ctx) {
  const CXXConstructorDecl *Ctor = &Constructor;
  const ApiModel &M = Api->model();
  Engagement SrcSem = EngagementOf(Args, M.CtorSrcSemParam);
  Engagement DeviceId = EngagementOf(Args, M.CtorDeviceIdParam);
  auto IsUnset = [](Engagement E) {
    return E == Engagement::Omitted || E == Engagement::Disengaged;
  };
  unsigned SetIndex, UnsetIndex;
  if (SrcSem == Engagement::Engaged && IsUnset(DeviceId)) {
    SetIndex = M.CtorSrcSemParam;
    UnsetIndex = M.CtorDeviceIdParam;
  } else if (DeviceId == Engagement::Engaged && IsUnset(SrcSem)) {
    SetIndex = M.CtorDeviceIdParam;
    UnsetIndex = M.CtorSrcSemParam;
  } else {
    return;
  }
  // The context last: finding it builds the parent map, which clean code
  // never needs.
  if (isInDependentContext(Site, Ctx))
    return;
  StringRef SrcName = parameterName(Ctor, M.CtorSrcSemParam, "src_sem");
  StringRef DevName = parameterName(Ctor, M.CtorDeviceIdParam, "device_id");
  StringRef SetName = SetIndex == M.CtorSrcSemParam ? SrcName : DevName;
  StringRef UnsetName = SetIndex == M.CtorSrcSemParam ? DevName : SrcName;

  diag(constructionLoc(&Site), "either both or neither '%0' and '%1' can be set, but only '%2' is")
      << SrcName << DevName << SetName;
  bool Omitted = EngagementOf(Args, UnsetIndex) == Engagement::Omitted;
  diag(Args[SetIndex]->getBeginLoc(), "'%0' is set here, but '%1' is %2",
       DiagnosticIDs::Note)
      << SetName << UnsetName
      << (Omitted ? "omitted"
          // The parameter's type: a forwarded nullptr is of type nullptr_t.
          : UnsetIndex < Ctor->getNumParams() &&
                  Ctor->getParamDecl(UnsetIndex)->getType()->isPointerType()
              ? "'nullptr'"
              : "'std::nullopt'");
}

} // namespace dmalint::checks
