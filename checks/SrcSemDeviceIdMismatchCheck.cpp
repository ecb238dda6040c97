//===- SrcSemDeviceIdMismatchCheck.cpp ------------------------------------===//
#include "SrcSemDeviceIdMismatchCheck.h"
#include "ApiOptions.h"
#include "dmalint/Arguments.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace dmalint::checks {

SrcSemDeviceIdMismatchCheck::SrcSemDeviceIdMismatchCheck(
    StringRef Name, tidy::ClangTidyContext *Context)
    : ClangTidyCheck(Name, Context), Api(loadApiIndex()) {}

void SrcSemDeviceIdMismatchCheck::registerMatchers(MatchFinder *Finder) {
  std::vector<StringRef> Types(Api->model().DescriptorTypes.begin(),
                               Api->model().DescriptorTypes.end());
  Finder->addMatcher(
      cxxConstructExpr(hasDeclaration(cxxConstructorDecl(ofClass(hasAnyName(Types)))))
          .bind("construct"),
      this);
}

static StringRef parameterName(const CXXConstructorDecl *Ctor, unsigned Index,
                               StringRef Fallback) {
  if (Index < Ctor->getNumParams() && Ctor->getParamDecl(Index)->getIdentifier())
    return Ctor->getParamDecl(Index)->getName();
  return Fallback;
}

void SrcSemDeviceIdMismatchCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Construct = Result.Nodes.getNodeAs<CXXConstructExpr>("construct");
  const CXXConstructorDecl *Ctor = Construct->getConstructor();
  if (!Api->isDescriptorConstructor(Ctor) ||
      isInDependentContext(*Construct, *Result.Context))
    return;
  const ApiModel &M = Api->model();
  auto Args = callArguments(Construct);
  Engagement SrcSem = argumentEngagement(Args, M.CtorSrcSemParam);
  Engagement DeviceId = argumentEngagement(Args, M.CtorDeviceIdParam);
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
  StringRef SrcName = parameterName(Ctor, M.CtorSrcSemParam, "src_sem");
  StringRef DevName = parameterName(Ctor, M.CtorDeviceIdParam, "device_id");
  StringRef SetName = SetIndex == M.CtorSrcSemParam ? SrcName : DevName;
  StringRef UnsetName = SetIndex == M.CtorSrcSemParam ? DevName : SrcName;

  diag(constructionLoc(Construct), "either both or neither '%0' and '%1' can be set, but only '%2' is")
      << SrcName << DevName << SetName;
  bool Omitted = argumentEngagement(Args, UnsetIndex) == Engagement::Omitted;
  diag(Args[SetIndex]->getBeginLoc(), "'%0' is set here, but '%1' is %2",
       DiagnosticIDs::Note)
      << SetName << UnsetName << (Omitted ? "omitted" : "'std::nullopt'");
}

} // namespace dmalint::checks
