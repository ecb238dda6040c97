//===- MeshArityCheck.cpp -------------------------------------------------===//
#include "MeshArityCheck.h"
#include "dmalint/Arguments.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace dmalint::checks {

void MeshArityCheck::registerDmaMatchers(DmaMatchers &Matchers) {
  // forCallable last: it walks the parents, which only device id users need.
  auto InFunction = forCallable(functionDecl().bind("function"));
  Matchers.add(
      callExpr(apiInTranslationUnit(Api), callsDeviceIdUser(Api), InFunction).bind("call"));
  Matchers.add(
      cxxConstructExpr(apiInTranslationUnit(Api), constructsDeviceIdUser(Api), InFunction)
          .bind("call"));
}

void MeshArityCheck::onStartOfTranslationUnit() {
  Ids.clear();
  Functions.clear();
}

void MeshArityCheck::check(const MatchFinder::MatchResult &Result) {
  if (validateApi(Result))
    return;
  const auto *Function = Result.Nodes.getNodeAs<FunctionDecl>("function");
  const auto *Call = Result.Nodes.getNodeAs<Expr>("call");
  // A template pattern is judged in its instantiations.
  if (!Function || !Call || Function->isDependentContext())
    return;
  // No device id written: a local signal or copy.
  DeviceIdArguments Args = deviceIdArguments(Call, *Api);
  if (!Args.Id || isa<CXXDefaultArgExpr>(Args.Id))
    return;
  // The kind as written or by default: the mesh kind is the usual default.
  std::optional<DeviceIdKind> Kind = deviceIdKind(Args.Kind, *Api, *Result.Context);
  std::optional<DeviceIdShape> Shape =
      Kind ? deviceIdShape(Args.Id, *Api, *Result.Context) : std::nullopt;
  // A tuple of coordinates with the logical kind is a mesh id the kind
  // misnames: dma-device-id-type-mismatch reports it, and its fix makes it one.
  if (!Shape || (*Kind != DeviceIdKind::Mesh && Shape->MeshCoordinates < 2))
    return;
  SM = Result.SourceManager;
  auto [It, Inserted] = Ids.try_emplace(Function);
  if (Inserted)
    Functions.push_back(Function);
  // `DeviceId(x)` (the logical-id constructor) is one coordinate.
  It->second.push_back(
      MeshId{userLocation(Shape->Construction->getBeginLoc(), *SM),
             std::max(1u, Shape->MeshCoordinates)});
}

void MeshArityCheck::onEndOfTranslationUnit() {
  // Instantiations of one template report at the same spellings: once.
  std::set<unsigned> Reported;
  for (const FunctionDecl *Function : Functions) {
    std::vector<MeshId> &Found = Ids[Function];
    // Ids at one spelling (instantiations of one template) are alike but for
    // their count; ordering by it too makes the order total without
    // stable_sort, whose libstdc++ 12 buffer clang flags as deprecated.
    llvm::sort(Found, [&](const MeshId &A, const MeshId &B) {
      if (A.At != B.At)
        return SM->isBeforeInTranslationUnit(A.At, B.At);
      return A.Coordinates < B.Coordinates;
    });
    std::map<unsigned, unsigned> Uses; // Coordinates -> how many ids have them.
    for (const MeshId &Id : Found)
      ++Uses[Id.Coordinates];
    if (Uses.size() < 2)
      continue;
    // The most common count; on a tie, the first one's.
    unsigned Most = 0;
    for (const MeshId &Id : Found)
      if (Uses[Id.Coordinates] > Uses[Most])
        Most = Id.Coordinates;
    const MeshId &Majority =
        *llvm::find_if(Found, [&](const MeshId &Id) { return Id.Coordinates == Most; });
    for (const MeshId &Id : Found) {
      if (Id.Coordinates == Most || !Reported.insert(Id.At.getRawEncoding()).second)
        continue;
      diag(Id.At, "mesh device id has %0 coordinate%s0, but the other mesh device ids of this "
                  "function have %1; one kernel runs on one mesh, so each needs one coordinate "
                  "per mesh axis")
          << Id.Coordinates << Most;
      diag(Majority.At, "mesh device id with %0 coordinate%s0 here", DiagnosticIDs::Note)
          << Most;
    }
  }
  Ids.clear();
  Functions.clear();
}

} // namespace dmalint::checks
