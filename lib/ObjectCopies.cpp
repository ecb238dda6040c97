//===- ObjectCopies.cpp - Copies held by objects of the kernel's own classes ===//
//
// A class that keeps copies in its members (a port of Pallas'
// MultiPageAsyncCopyDescriptor: a constructor that builds one copy per page
// into a vector member, start() and wait_and_get_loaded() members that start
// or wait them all) is a helper in parts. The constructor's summary names
// the copies it stores (ProtocolSummary::Stored, in its parameters); a member
// function's summary has starts and waits at paths below its object. They
// meet at a member call on a local the function constructs and only ever
// calls member functions on: there the object's copies are the ones its
// constructor made at that construction, named with its arguments.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"
#include "dmalint/Arguments.h"
#include "dmalint/AstUtil.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace dmalint {

bool ProtocolSummary::hasObjectEntries() const {
  return llvm::any_of(Starts, [](const HelperStart &H) { return H.ObjectPath.has_value(); }) ||
         llvm::any_of(Waits, [](const HelperWait &H) { return H.ObjectPath.has_value(); });
}

namespace {

/// The local variables of a body that are mentioned only as the object of
/// member calls, with the member functions called on each.
class ObjectMentions : public RecursiveASTVisitor<ObjectMentions> {
public:
  bool shouldVisitImplicitCode() const { return true; }
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *MC) {
    const auto *DRE = dyn_cast_or_null<DeclRefExpr>(
        MC->getImplicitObjectArgument() ? MC->getImplicitObjectArgument()->IgnoreParens()
                                        : nullptr);
    const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
    if (!V)
      return true;
    AsObject.insert(DRE);
    Uses.Methods[V->getCanonicalDecl()].push_back(MC->getMethodDecl());
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *DRE) {
    if (isa<VarDecl>(DRE->getDecl()))
      All.push_back(DRE);
    return true;
  }
  ObjectUses finish() {
    for (const DeclRefExpr *DRE : All)
      if (!AsObject.contains(DRE))
        Uses.Other.insert(cast<VarDecl>(DRE->getDecl()->getCanonicalDecl()));
    return std::move(Uses);
  }

private:
  llvm::DenseSet<const DeclRefExpr *> AsObject;
  std::vector<const DeclRefExpr *> All;
  ObjectUses Uses;
};

/// Whether destroying an object of \p RD may run code of the translation
/// unit (a destructor that waits what the object holds).
bool userDestruction(const CXXRecordDecl &RD) {
  if (const CXXDestructorDecl *D = RD.getDestructor(); D && D->isUserProvided())
    return true;
  for (const FieldDecl *F : RD.fields()) {
    const CXXRecordDecl *Member = F->getType()->getBaseElementTypeUnsafe()->getAsCXXRecordDecl();
    if (Member && !Member->isInStdNamespace())
      if (const CXXDestructorDecl *D = Member->getDestructor(); D && D->isUserProvided())
        return true;
  }
  for (const CXXBaseSpecifier &B : RD.bases())
    if (const CXXRecordDecl *Base = B.getType()->getAsCXXRecordDecl())
      if (userDestruction(*Base))
        return true;
  return false;
}

void shift(SummaryTerm &T, unsigned By) {
  if (T.Param >= 0)
    T.Param += static_cast<int>(By);
}

SummarySemaphore shifted(SummarySemaphore S, unsigned By) {
  S.Param += By;
  for (SummaryTerm &T : S.Indices)
    shift(T, By);
  return S;
}

std::optional<SummaryBuffer> shifted(std::optional<SummaryBuffer> B, unsigned By) {
  if (!B)
    return B;
  B->Param += By;
  for (SummaryBuffer::Step &Step : B->Steps) {
    shift(Step.Start, By);
    shift(Step.Size, By);
  }
  return B;
}

} // namespace

std::optional<Analyzer::ConstructedObject>
Analyzer::constructedObject(const CXXMemberCallExpr &Call) {
  const Expr *Object = Call.getImplicitObjectArgument();
  const auto *DRE = Object ? dyn_cast<DeclRefExpr>(Object->IgnoreParens()) : nullptr;
  const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!V || !V->isLocalVarDecl() || V->isStaticLocal() || V->getType()->isReferenceType() ||
      !Summaries || !Function || !Function->getBody())
    return std::nullopt;
  V = V->getCanonicalDecl();
  auto [It, New] = Objects.try_emplace(V);
  if (!New)
    return It->second;
  // Made by a constructor of the class with a body here (not copied).
  const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(stripWrappers(V->getInit()));
  const CXXConstructorDecl *Ctor = Construct ? Construct->getConstructor() : nullptr;
  const FunctionDecl *Definition = nullptr;
  if (!Ctor || Ctor->isCopyOrMoveConstructor() || !Ctor->hasBody(Definition) ||
      Definition->isDependentContext() || userDestruction(*Ctor->getParent()))
    return std::nullopt;
  const ProtocolSummary *Made = Summaries->protocol(*Definition);
  if (!Made || Made->Stored.empty())
    return std::nullopt;
  // Mentioned only to call member functions that store no copy in it: what
  // the constructor stored stays, and every start and wait of it is one of
  // theirs.
  if (!LocalObjects) {
    ObjectMentions Walk;
    Walk.TraverseStmt(Function->getBody());
    LocalObjects = Walk.finish();
  }
  if (LocalObjects->Other.contains(V))
    return std::nullopt;
  ConstructedObject Result{Construct, Made, /*Followed=*/true};
  auto Calls = LocalObjects->Methods.find(V);
  if (Calls != LocalObjects->Methods.end())
    for (const CXXMethodDecl *MD : Calls->second) {
      const FunctionDecl *Body = nullptr;
      if (!MD || MD->isVirtual() || !MD->hasBody(Body) || Body->isDependentContext())
        return std::nullopt;
      const FunctionSummary *Effect = Summaries->function(*Body);
      if (!Effect || Effect->Object.MayWrite)
        return std::nullopt;
      const ProtocolSummary *Protocol = Summaries->protocol(*Body);
      Result.Followed = Result.Followed && Protocol && Protocol->ObjectFollowed;
    }
  It->second = Result;
  return Result;
}

ProtocolSummary Analyzer::atObject(const Expr *Call, const ProtocolSummary &Summary,
                                   llvm::SmallVectorImpl<const Expr *> &Args) {
  ProtocolSummary Out = Summary;
  const auto *MC = dyn_cast<CXXMemberCallExpr>(Call);
  std::optional<ConstructedObject> Object = MC ? constructedObject(*MC) : std::nullopt;
  // The constructor's arguments go after the call's.
  unsigned By = Args.size();
  auto StoredAt = [&](const AccessPath &Path) -> const ReturnedCopy * {
    if (Object)
      for (const StoredCopy &S : Object->Constructor->Stored)
        if (S.Path == Path)
          return &S.Copy;
    return nullptr;
  };
  // Where the object's copies cannot be named: starts no caller can name,
  // and waits that may take anything.
  llvm::erase_if(Out.Starts, [&](HelperStart &H) {
    if (!H.ObjectPath)
      return false;
    const ReturnedCopy *Copy = StoredAt(*H.ObjectPath);
    if (!Copy)
      return true;
    H.Kind = Remoteness::Local;
    H.Receive = shifted(Copy->Receive, By);
    H.Target = shifted(Copy->Target, By);
    H.ObjectPath.reset();
    return false;
  });
  for (HelperWait &H : Out.Waits) {
    if (!H.ObjectPath)
      continue;
    if (const ReturnedCopy *Copy = StoredAt(*H.ObjectPath)) {
      H.Semaphores = {shifted(Copy->Receive, By)};
      H.Target = shifted(Copy->Target, By);
      H.Source = shifted(Copy->Source, By);
      H.Exact = H.Exact && H.Target.has_value();
    } else {
      H.Unknown = true;
      H.Exact = false;
    }
    H.ObjectPath.reset();
  }
  if (!Object)
    return Out;
  llvm::SmallVector<const Expr *, 8> ConstructorArgs = callArguments(Object->Construct);
  Out.Followed.resize(By, false);
  for (unsigned I = 0; I < ConstructorArgs.size(); ++I) {
    Args.push_back(ConstructorArgs[I]);
    Out.Followed.push_back(Object->Followed &&
                           I < Object->Constructor->StoredFollowed.size() &&
                           Object->Constructor->StoredFollowed[I]);
  }
  return Out;
}

} // namespace dmalint
