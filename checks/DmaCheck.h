//===- DmaCheck.h - Base of every dma-* check: the API model from options -*- C++ -*-===//
#ifndef DMALINT_CHECKS_DMACHECK_H
#define DMALINT_CHECKS_DMACHECK_H

#include "MatchDispatch.h"
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
/// name (ApiIndex::declaredIn). Every dma-* predicate asks it, so that in a
/// translation unit without the API each node costs a hash lookup or two.
inline bool apiSeen(const clang::ASTContext &Ctx, const ApiIndex &Api) {
  return Api.declaredIn(Ctx);
}

/// True when \p Loc is expanded outside system headers (which hold no
/// kernels): what clang's unless(isExpansionInSystemHeader()) asks.
inline bool expandedInUserCode(clang::SourceLocation Loc, const clang::SourceManager &SM) {
  clang::SourceLocation Expansion = SM.getExpansionLoc(Loc);
  return Expansion.isInvalid() || !SM.isInSystemHeader(Expansion);
}

/// True when \p FD is a definition outside system headers in a translation
/// unit that has seen the API: what every dma-* predicate of functions asks
/// first.
inline bool userDefinitionWithApi(const clang::FunctionDecl &FD, clang::ASTContext &Ctx,
                                  const ApiIndex &Api) {
  return FD.isThisDeclarationADefinition() && apiSeen(Ctx, Api) &&
         expandedInUserCode(FD.getBeginLoc(), Ctx.getSourceManager());
}

// The predicates the checks register (DmaMatchers::add). The API's calls and
// constructions are recognised through the ApiIndex (a hash lookup of the
// unqualified name first); each holds only where apiSeen.

/// A function definition outside system headers that uses the API
/// (ApiIndex::usedBy, answered once per function by the analysis cache): the
/// functions the dataflow checks analyse, and those whose bodies may hold
/// the device ids dma-mesh-arity compares.
bool definitionUsingApi(const clang::FunctionDecl &FD, clang::ASTContext &Ctx,
                        const ApiIndex &Api);
/// d.method(...) for any method of a descriptor type.
bool callsDescriptorMethod(const clang::CXXMemberCallExpr &Call, clang::ASTContext &Ctx,
                           const ApiIndex &Api);
/// Any construction (copies included) of a descriptor type.
bool constructsDescriptor(const clang::CXXConstructExpr &Construct, clang::ASTContext &Ctx,
                          const ApiIndex &Api);
/// A standard function that builds a descriptor from the arguments it
/// forwards (forwardedConstruction: make_unique<D>, v.emplace_back, ...).
bool forwardsDescriptorConstruction(const clang::CallExpr &Call, clang::ASTContext &Ctx,
                                    const ApiIndex &Api);
/// A call or construction that makes a copy: a factory, the general
/// constructor, a sync copy function (ApiIndex::isCopy).
bool makesCopy(const clang::CallExpr &Call, clang::ASTContext &Ctx, const ApiIndex &Api);
bool makesCopy(const clang::CXXConstructExpr &Construct, clang::ASTContext &Ctx,
               const ApiIndex &Api);
/// A call or construction that takes a device id and its kind.
bool takesDeviceId(const clang::CallExpr &Call, clang::ASTContext &Ctx, const ApiIndex &Api);
bool takesDeviceId(const clang::CXXConstructExpr &Construct, clang::ASTContext &Ctx,
                   const ApiIndex &Api);

/// What a dma-* check registers: for each binding its check() reads, the
/// kind of node and a predicate on it. They go to the translation unit's
/// MatchDispatch (MatchDispatch.h), which gives clang one matcher per kind
/// of node for all the checks, and which the standalone's own walk of the
/// AST calls directly.
class DmaMatchers {
public:
  DmaMatchers(MatchDispatch &Dispatch, clang::ast_matchers::MatchFinder::MatchCallback &Check,
              std::shared_ptr<const ApiIndex> Api)
      : Dispatch(Dispatch), Check(Check), Api(std::move(Api)) {}
  /// Calls the check back with each \p NodeT for which \p Predicate holds,
  /// bound as \p Id.
  template <typename NodeT, NodePredicate<NodeT> Predicate> void add(llvm::StringRef Id) {
    Dispatch.add<NodeT, Predicate>(Check, Id, Api);
  }

private:
  MatchDispatch &Dispatch;
  clang::ast_matchers::MatchFinder::MatchCallback &Check;
  std::shared_ptr<const ApiIndex> Api;
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
  /// Registers the model's validation, then the check's own predicates
  /// (registerDmaMatchers), with the translation unit's MatchDispatch.
  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) final;

protected:
  /// The check's predicates. The model's validation is already registered: in
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
  /// The translation unit's, shared by its checks (the last one destroyed
  /// frees it; the finder never calls it after that).
  std::shared_ptr<MatchDispatch> Dispatch;
};

/// The dispatch of the dma-* checks that registered with \p Finder on this
/// thread, taken out of the record, with the number of checks that
/// registered with it (\p Checks): a walk that hands nodes to the checks
/// itself calls it (tool/Run.cpp), once it knows that every check it made is
/// among them. Null when no dma-* check registered with \p Finder.
std::shared_ptr<MatchDispatch> takeMatchDispatch(const clang::ast_matchers::MatchFinder &Finder,
                                                 unsigned &Checks);

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
