//===- Queries.cpp - What the checks ask of a function's analysis ---------===//
//
// The checks word diagnostics; they never read the state. These answer the
// questions they ask: which local (or remote) copies reach a use, which
// constructions are never used, whether a receive wait follows a wait_send.
//
//===----------------------------------------------------------------------===//
#include "dmalint/DescriptorAnalysis.h"
#include "dmalint/Arguments.h"

namespace dmalint {

const ReturnedCopy *FunctionAnalysis::returnedCopy(const OriginInfo &O) const {
  if (!O.Site)
    return nullptr;
  if (O.ReturnPath.empty()) {
    auto It = ReturnedCopies.find(O.Site);
    return It == ReturnedCopies.end() ? nullptr : &It->second;
  }
  auto It = ReturnedCopiesAt.find({O.Site, O.ReturnPath});
  return It == ReturnedCopiesAt.end() ? nullptr : &It->second;
}

llvm::SmallVector<const clang::Expr *, 8>
FunctionAnalysis::returnedCopyArguments(const OriginInfo &O) const {
  if (auto It = ReturnedCopyArguments.find(O.Site); It != ReturnedCopyArguments.end())
    return It->second;
  return callArguments(O.Site);
}

KindVerdict FunctionAnalysis::verdict(const ValueSet &Values, Remoteness Kind) const {
  KindVerdict V;
  bool Any = false;
  V.All = true;
  for (const Value &Val : Values.values()) {
    const OriginInfo &O = Origins[Val.Origin];
    // What `*this` brings at a private member is what the class summary
    // lists: it adds no kind of its own.
    if (O.Covered)
      continue;
    Any = true;
    if (O.Kind == Remoteness::Unknown)
      V.AnyUnknown = true;
    if (O.Kind != Kind)
      V.All = false;
    else if (!llvm::is_contained(V.Origins, Val.Origin))
      V.Origins.push_back(Val.Origin);
  }
  V.All &= Any;
  return V;
}

bool FunctionAnalysis::judgedAtCalls(const DescriptorUse &Use, const KindVerdict &Local) const {
  return !Local.All && !Local.Origins.empty() &&
         llvm::all_of(Local.Origins, [&](OriginId Id) { return Origins[Id].ByConstructor; });
}

std::vector<OriginId> FunctionAnalysis::unusedConstructions() const {
  std::vector<OriginId> Unused;
  for (OriginId Id = 1; Id < Origins.size(); ++Id) {
    const OriginInfo &O = Origins[Id];
    if (O.isParameter() || O.Kind == Remoteness::Unknown || !O.Site || O.Imported ||
        O.Folded || O.Engaged || O.HelperCall ||
        (Id < UsedOrEscaped.size() && UsedOrEscaped[Id]))
      continue;
    Unused.push_back(Id);
  }
  return Unused;
}

std::vector<std::pair<const clang::Expr *, AccessPath>>
FunctionAnalysis::usedConstructions() const {
  std::vector<std::pair<const clang::Expr *, AccessPath>> Sites;
  for (OriginId Id = 1; Id < Origins.size(); ++Id) {
    const OriginInfo &O = Origins[Id];
    std::pair<const clang::Expr *, AccessPath> Site{O.Site, O.ReturnPath};
    if (O.isParameter() || !O.Site || O.Folded || O.Engaged || !startedOrWaited(Id) ||
        llvm::is_contained(Sites, Site))
      continue;
    Sites.push_back(Site);
  }
  return Sites;
}

bool FunctionAnalysis::receiveWaitedBefore(const DescriptorUse &WaitSend) const {
  for (size_t I = 0; I < WaitSends.size() && I < ReceiveWaitedBefore.size(); ++I)
    if (WaitSends[I].Call == WaitSend.Call)
      return ReceiveWaitedBefore[I];
  return false;
}

ReceiveWaitAfter FunctionAnalysis::receiveWaitAfter(const DescriptorUse &WaitSend) const {
  for (size_t I = 0; I < WaitSends.size(); ++I) {
    if (WaitSends[I].Call != WaitSend.Call)
      continue;
    if (I >= ReceiveWaitMayFollow.size())
      break;
    if (!ReceiveWaitMayFollow[I])
      return ReceiveWaitAfter::Never;
    if (!ReceiveWaitMayBeMissing[I])
      return ReceiveWaitAfter::Always;
    break;
  }
  return ReceiveWaitAfter::Sometimes;
}

} // namespace dmalint
