//===- DmaCheck.h - Base of every dma-* check: the API model from options -*- C++ -*-===//
#ifndef DMALINT_CHECKS_DMACHECK_H
#define DMALINT_CHECKS_DMACHECK_H

#include "dmalint/AnalysisCache.h"
#include "dmalint/ApiModel.h"
#include "clang-tidy/ClangTidyCheck.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include <memory>
#include <set>
#include <string>

namespace dmalint::checks {

/// True in a translation unit that has seen a descriptor type's or a wait's
/// name (ApiIndex::declaredIn). Every dma-* matcher asks it, so that in a
/// translation unit without the API each node costs a hash lookup or two;
/// the matchers of statements ask it inside their own predicate rather than
/// as a matcher of its own, which would be one more matcher for clang to
/// dispatch at every call of a kernel file (a fifth of what matching costs).
inline bool apiSeen(clang::ast_matchers::internal::ASTMatchFinder *Finder, const ApiIndex &Api) {
  return Api.declaredIn(Finder->getASTContext());
}

/// True when \p FD is a definition outside system headers (which hold no
/// kernels) in a translation unit that has seen the API: what every dma-*
/// matcher of functions asks first, inside its own predicate rather than as
/// three matchers (isDefinition, apiInTranslationUnit,
/// isExpansionInSystemHeader) that clang would dispatch one by one at every
/// function of the translation unit, for every check.
inline bool userDefinitionWithApi(const clang::FunctionDecl &FD,
                                  clang::ast_matchers::internal::ASTMatchFinder *Finder,
                                  const ApiIndex &Api) {
  if (!FD.isThisDeclarationADefinition() || !apiSeen(Finder, Api))
    return false;
  const clang::SourceManager &SM = Finder->getASTContext().getSourceManager();
  clang::SourceLocation Expansion = SM.getExpansionLoc(FD.getBeginLoc());
  return Expansion.isInvalid() || !SM.isInSystemHeader(Expansion);
}

/// A function definition outside system headers that uses the API
/// (ApiIndex::usedBy, answered once per function by the analysis cache): the
/// functions the dataflow checks analyse, and those whose bodies may hold
/// the device ids dma-mesh-arity compares.
AST_MATCHER_P(clang::FunctionDecl, definitionUsingApi, std::shared_ptr<const ApiIndex>, Api) {
  return userDefinitionWithApi(Node, Finder, *Api) &&
         AnalysisCache::current().usesApi(Node, *Api);
}

/// Matches anything in a translation unit that has seen the API (apiSeen).
AST_POLYMORPHIC_MATCHER_P(apiInTranslationUnit,
                          AST_POLYMORPHIC_SUPPORTED_TYPES(clang::Decl, clang::Stmt),
                          std::shared_ptr<const ApiIndex>, Api) {
  return Api->declaredIn(Finder->getASTContext());
}

// The API's calls and constructions, recognised through the ApiIndex (a
// hash lookup of the unqualified name first) rather than hasAnyName, which
// would spell out the qualified name of every call it is asked about. Each
// matches only where apiSeen.

/// d.method(...) for any method of a descriptor type.
AST_MATCHER_P(clang::CXXMemberCallExpr, callsDescriptorMethod, std::shared_ptr<const ApiIndex>,
              Api) {
  const clang::CXXMethodDecl *Method = Node.getMethodDecl();
  return Method && Api->isDescriptorRecord(Method->getParent()) && apiSeen(Finder, *Api);
}

/// Any construction (copies included) of a descriptor type.
AST_MATCHER_P(clang::CXXConstructExpr, constructsDescriptor, std::shared_ptr<const ApiIndex>,
              Api) {
  return Api->isDescriptorRecord(Node.getConstructor()->getParent()) && apiSeen(Finder, *Api);
}

/// A call or construction that makes a copy: a factory, the general
/// constructor, a sync copy function (ApiIndex::isCopy).
AST_POLYMORPHIC_MATCHER_P(makesCopy,
                          AST_POLYMORPHIC_SUPPORTED_TYPES(clang::CallExpr,
                                                          clang::CXXConstructExpr),
                          std::shared_ptr<const ApiIndex>, Api) {
  return Api->isCopy(Node) && apiSeen(Finder, *Api);
}

/// A call or construction that takes a device id and its kind.
AST_MATCHER_P(clang::CallExpr, callsDeviceIdUser, std::shared_ptr<const ApiIndex>, Api) {
  return Api->deviceIdUseOf(Node.getDirectCallee()) != nullptr && apiSeen(Finder, *Api);
}
AST_MATCHER_P(clang::CXXConstructExpr, constructsDeviceIdUser, std::shared_ptr<const ApiIndex>,
              Api) {
  return Api->deviceIdUseOf(Node.getConstructor()) != nullptr && apiSeen(Finder, *Api);
}

/// The matchers of one dma-* check, as it registers them. Each goes to the
/// MatchFinder and is also kept, so that a walk that hands nodes to the
/// finder itself (the standalone dmalint's, tool/Run.cpp) learns from the
/// checks which kinds of node their matchers can match
/// (takeRegisteredMatchers), instead of keeping a list of its own.
class DmaMatchers {
public:
  DmaMatchers(clang::ast_matchers::MatchFinder &Finder,
              clang::ast_matchers::MatchFinder::MatchCallback &Callback,
              std::vector<clang::ast_matchers::internal::DynTypedMatcher> &Kept)
      : Finder(Finder), Callback(Callback), Kept(Kept) {}
  void add(const clang::ast_matchers::DeclarationMatcher &M) {
    Finder.addMatcher(M, &Callback);
    Kept.push_back(M);
  }
  void add(const clang::ast_matchers::StatementMatcher &M) {
    Finder.addMatcher(M, &Callback);
    Kept.push_back(M);
  }

private:
  clang::ast_matchers::MatchFinder &Finder;
  clang::ast_matchers::MatchFinder::MatchCallback &Callback;
  std::vector<clang::ast_matchers::internal::DynTypedMatcher> &Kept;
};

/// Every dma-* check reads the API model through this one loader: the
/// built-in model of <tpu/dma.h>, changed by the `dma.*` CheckOptions of
/// .clang-tidy (the same file for stock clang-tidy and for dmalint). A bad
/// option is one configuration error naming the option and its file, and
/// then no dma-* check judges the file (ConfigurationErrors.h).
class DmaCheck : public clang::tidy::ClangTidyCheck {
public:
  /// \p OwnOptions: the check's options (the X of `<check>.X`); any other
  /// key under the check's name is an unknown option.
  DmaCheck(llvm::StringRef Name, clang::tidy::ClangTidyContext *Context,
           llvm::ArrayRef<llvm::StringRef> OwnOptions = {});
  bool isLanguageVersionSupported(const clang::LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  /// Includes the effective API model, so --dump-config shows it.
  void storeOptions(clang::tidy::ClangTidyOptions::OptionMap &Opts) override;
  /// Registers the model's validation, then the check's own matchers
  /// (registerDmaMatchers), keeping each (takeRegisteredMatchers).
  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) final;

protected:
  /// The check's matchers. The model's validation is already registered: in
  /// a translation unit that defines the descriptor type, the configured
  /// methods and constructor positions must exist (a name that resolves to
  /// nothing is a configuration error, not a silent run that finds nothing),
  /// and the model is checked against it before anything in it is judged.
  virtual void registerDmaMatchers(DmaMatchers &Matchers) = 0;
  /// Every check's check() calls this first.
  /// True when \p Result must not be judged: the validation's own match, a
  /// translation unit that does not compile, or a configuration error for
  /// this file (found by any dma-* check).
  bool validateApi(const clang::ast_matchers::MatchFinder::MatchResult &Result);

  /// Reports a configuration error about the option \p Key (once per
  /// translation unit); from then on no dma-* check judges the file.
  void reportConfigurationError(const std::string &Key, const std::string &Problem);

  std::shared_ptr<const ApiIndex> Api;
  /// False when the options have errors: nothing is judged with a model the
  /// user did not mean (the errors themselves fail the run).
  bool ApiValid = true;

private:
  /// The problems of the whole file's configuration: its .clang-tidy files,
  /// unknown dma-* checks in Checks and in CheckOptions keys.
  void checkFileConfiguration();
  /// The descriptor types' methods and constructor positions, against the
  /// definitions in \p Ctx.
  void validateAgainst(const clang::ASTContext &Ctx);
  void validateRecord(const clang::CXXRecordDecl &Type);
  /// The factories' semaphore positions, against their declarations.
  void validateFactories(llvm::ArrayRef<const clang::FunctionDecl *> Functions);
  /// Says \p Message as a configuration error, once per translation unit.
  void configurationError(const std::string &Message);

  clang::tidy::ClangTidyContext &Tidy;
  bool Validated = false;
};

/// The matchers that dma-* checks registered with \p Finder on this thread,
/// taken out of the record, with the number of checks that registered them
/// (\p Checks): a walk that hands nodes to \p Finder itself hands each node
/// one of them may match (tool/MatchedNodes.h), once it knows that every
/// check it made is among them.
std::vector<clang::ast_matchers::internal::DynTypedMatcher>
takeRegisteredMatchers(const clang::ast_matchers::MatchFinder &Finder, unsigned &Checks);

/// True when \p Option (the X of `dma.X` or `<check>.X`) is a key of the API
/// model.
bool isApiOptionName(llvm::StringRef Option);

/// Where to report something at \p Loc: \p Loc itself, or, inside a macro
/// of a system header (INT_MIN), the place in the user's code where that
/// macro is used: both front ends drop diagnostics located in system code.
clang::SourceLocation userLocation(clang::SourceLocation Loc, const clang::SourceManager &SM);

/// The names of the checks of the `dma` module, sorted.
std::vector<std::string> dmaCheckNames();

} // namespace dmalint::checks

#endif
