//===- ArgumentsTest.cpp - Facts read off one call's arguments -------------===//
#include "TestAst.h"
#include "dmalint/Arguments.h"

using dmalint::test::builtinApi;

using namespace clang;
using namespace clang::ast_matchers;
using dmalint::Engagement;

namespace {

const char *CopyParams = "Ref<float> a, Ref<float> b, DmaSemaphore s, DmaSemaphore r, "
                         "std::optional<DmaSemaphore> maybe";

/// Engagement of the src_sem (3) and device_id (4) arguments of the one
/// descriptor construction in \p Statement.
std::pair<Engagement, Engagement> engagementIn(const std::string &Statement) {
  auto AST = dmalint::test::parseKernel(std::string("void k(") + CopyParams + ") { " +
                                        Statement + " }");
  const auto *Construct = dmalint::test::findOne<CXXConstructExpr>(
      *AST, cxxConstructExpr(hasType(cxxRecordDecl(hasName("AsyncCopyDescriptor"))),
                             argumentCountIs(6)));
  if (!Construct)
    return {Engagement::Unknown, Engagement::Unknown};
  auto Args = dmalint::callArguments(Construct);
  return {dmalint::argumentEngagement(Args, 3), dmalint::argumentEngagement(Args, 4)};
}

TEST(Arguments, OmittedOptionalsAreOmitted) {
  EXPECT_EQ(engagementIn("AsyncCopyDescriptor d(a, b, s);"),
            std::make_pair(Engagement::Omitted, Engagement::Omitted));
}

TEST(Arguments, ValuesAreEngaged) {
  EXPECT_EQ(engagementIn("AsyncCopyDescriptor d(a, b, s, r, 3);"),
            std::make_pair(Engagement::Engaged, Engagement::Engaged));
  EXPECT_EQ(engagementIn("AsyncCopyDescriptor d(a, b, s, std::make_optional(r), "
                         "std::optional<DeviceId>(DeviceId{0, 1}));"),
            std::make_pair(Engagement::Engaged, Engagement::Engaged));
}

TEST(Arguments, NulloptAndEmptyBracesAreDisengaged) {
  EXPECT_EQ(engagementIn("AsyncCopyDescriptor d(a, b, s, std::nullopt, {});"),
            std::make_pair(Engagement::Disengaged, Engagement::Disengaged));
  EXPECT_EQ(engagementIn("AsyncCopyDescriptor d(a, b, s, r, std::optional<DeviceId>());"),
            std::make_pair(Engagement::Engaged, Engagement::Disengaged));
}

TEST(Arguments, OptionalVariablesAreUnknownWithoutDataflow) {
  EXPECT_EQ(engagementIn("AsyncCopyDescriptor d(a, b, s, maybe, 2);").first,
            Engagement::Unknown);
}

TEST(Arguments, ConstantPriorities) {
  auto AST = dmalint::test::parseKernel(
      "constexpr int kHigh = 1;\nvoid k(AsyncCopyDescriptor d, int p) {\n"
      "  d.start(-1); d.start(kHigh + 1); d.start(p);\n}");
  auto Calls = match(
      cxxMemberCallExpr(hasAncestor(functionDecl(hasName("k")))).bind("c"),
      AST->getASTContext());
  ASSERT_EQ(Calls.size(), 3u);
  std::vector<std::optional<int64_t>> Values;
  for (auto &Node : Calls)
    Values.push_back(dmalint::constantInt(
        Node.getNodeAs<CXXMemberCallExpr>("c")->getArg(0), AST->getASTContext()));
  EXPECT_EQ(Values[0], std::optional<int64_t>(-1));
  EXPECT_EQ(Values[1], std::optional<int64_t>(2));
  EXPECT_EQ(Values[2], std::nullopt);
}

/// Mesh coordinates of the device id argument of the one call of \p Function
/// in \p Body (nullopt when its shape is not known).
std::optional<unsigned> coordinatesIn(const std::string &Body,
                                      const std::string &Function = "make_async_remote_copy") {
  auto AST = dmalint::test::parseKernel(std::string("void k(") + CopyParams +
                                        ", Semaphore sem, int x) { " + Body + " }");
  const auto *Call =
      dmalint::test::findOne<CallExpr>(*AST, callExpr(callee(functionDecl(hasName(Function)))));
  dmalint::DeviceIdArguments Args = dmalint::deviceIdArguments(Call, builtinApi());
  if (!Args.Id)
    return std::nullopt;
  auto Shape = dmalint::deviceIdShape(Args.Id, builtinApi(), AST->getASTContext());
  return Shape ? std::optional<unsigned>(Shape->MeshCoordinates) : std::nullopt;
}
std::optional<unsigned> meshCoordinatesIn(const std::string &Body) { return coordinatesIn(Body); }

TEST(Arguments, DeviceIdShapes) {
  EXPECT_EQ(meshCoordinatesIn("make_async_remote_copy(a, b, s, r, {0, x});"), 2u);
  EXPECT_EQ(meshCoordinatesIn("make_async_remote_copy(a, b, s, r, DeviceId{0, 1, x});"), 3u);
  EXPECT_EQ(meshCoordinatesIn("make_async_remote_copy(a, b, s, r, x);"), 0u); // logical
  EXPECT_EQ(meshCoordinatesIn("DeviceId id{x, 1};\nmake_async_remote_copy(a, b, s, r, id);"),
            2u);
  // Reassigned: the initialiser no longer tells the value.
  EXPECT_EQ(meshCoordinatesIn("DeviceId id{x, 1}; id = DeviceId(3);\n"
                              "make_async_remote_copy(a, b, s, r, id);"),
            std::nullopt);
}

TEST(Arguments, DeviceIdsReturnedByLambdas) {
  // Every return of the lambda builds an id of one count: that count.
  EXPECT_EQ(meshCoordinatesIn("auto peer = [&](int d) { return DeviceId{x + d, 0, 1}; };\n"
                              "make_async_remote_copy(a, b, s, r, peer(1));"),
            3u);
  EXPECT_EQ(meshCoordinatesIn("auto peer = [&](int d) { DeviceId id{x + d, 0}; return id; };\n"
                              "make_async_remote_copy(a, b, s, r, peer(1));"),
            2u);
  // Returns that differ, or one the model cannot read: not known.
  EXPECT_EQ(meshCoordinatesIn("auto peer = [&](int d) { if (d) return DeviceId{x, 0};"
                              " return DeviceId{x, 0, 1}; };\n"
                              "make_async_remote_copy(a, b, s, r, peer(1));"),
            std::nullopt);
  EXPECT_EQ(meshCoordinatesIn("auto peer = [&](DeviceId d) { return d; };\n"
                              "make_async_remote_copy(a, b, s, r, peer(DeviceId{x, 0}));"),
            std::nullopt);
  // A lambda that returns itself through a call stops at the bound.
  EXPECT_EQ(meshCoordinatesIn("struct F { DeviceId operator()(int d) const { return (*this)(d); } };\n"
                              "make_async_remote_copy(a, b, s, r, F{}(1));"),
            std::nullopt);
}

TEST(Arguments, OneCoordinateInBracesIsAMeshTuple) {
  // DeviceId{x} calls the initializer-list constructor; DeviceId(x) does not.
  EXPECT_EQ(meshCoordinatesIn("make_async_remote_copy(a, b, s, r, DeviceId{x});"), 1u);
  EXPECT_EQ(meshCoordinatesIn("make_async_remote_copy(a, b, s, r, {x});"), 1u);
  EXPECT_EQ(meshCoordinatesIn("make_async_remote_copy(a, b, s, r, DeviceId({x}));"), 1u);
  EXPECT_EQ(meshCoordinatesIn("make_async_remote_copy(a, b, s, r, DeviceId(x));"), 0u);
}

/// The same for semaphore_signal's std::optional<DeviceId> argument.
std::optional<unsigned> signalCoordinatesIn(const std::string &Body) {
  return coordinatesIn(Body, "semaphore_signal");
}

TEST(Arguments, IntegersForAnOptionalDeviceIdAreLogical) {
  // The optional is built from the integer: DeviceId's logical-id constructor.
  EXPECT_EQ(signalCoordinatesIn("semaphore_signal(sem, 1, x);"), 0u);
  EXPECT_EQ(signalCoordinatesIn("semaphore_signal(sem, 1, {x});"), 0u);
  EXPECT_EQ(signalCoordinatesIn("semaphore_signal(sem, 1, DeviceId{x});"), 1u);
  EXPECT_EQ(signalCoordinatesIn("semaphore_signal(sem, 1, std::nullopt);"), std::nullopt);
}

/// The kind argument of the one make_async_remote_copy in \p Body.
std::optional<dmalint::DeviceIdKind> kindIn(const std::string &Body) {
  auto AST = dmalint::test::parseKernel(std::string("void k(") + CopyParams +
                                        ", DeviceIdType runtime) { " + Body + " }");
  const auto *Call = dmalint::test::findOne<CallExpr>(
      *AST, callExpr(callee(functionDecl(hasName("make_async_remote_copy")))));
  dmalint::DeviceIdArguments Args = dmalint::deviceIdArguments(Call, builtinApi());
  if (!Args.Kind)
    return std::nullopt;
  return dmalint::deviceIdKind(Args.Kind, builtinApi(), AST->getASTContext());
}

TEST(Arguments, DeviceIdKinds) {
  using dmalint::DeviceIdKind;
  EXPECT_EQ(kindIn("make_async_remote_copy(a, b, s, r, 1, DeviceIdType::kLogical);"),
            DeviceIdKind::Logical);
  EXPECT_EQ(kindIn("make_async_remote_copy(a, b, s, r, {0, 1}, DeviceIdType::kMesh);"),
            DeviceIdKind::Mesh);
  // The default argument is the mesh kind.
  EXPECT_EQ(kindIn("make_async_remote_copy(a, b, s, r, {0, 1});"), DeviceIdKind::Mesh);
  EXPECT_EQ(kindIn("constexpr DeviceIdType k = DeviceIdType::kLogical;\n"
                   "make_async_remote_copy(a, b, s, r, 1, k);"),
            DeviceIdKind::Logical);
  EXPECT_EQ(kindIn("make_async_remote_copy(a, b, s, r, 1, runtime);"), std::nullopt);
}

/// The constant slice sizes of the source and target of the one sync_copy in
/// \p Body (nullopt for a side that is not a constant slice).
std::pair<std::optional<int64_t>, std::optional<int64_t>> slicesIn(const std::string &Body) {
  auto AST = dmalint::test::parseKernel(
      "constexpr index_t kTile = 64;\nvoid k(Ref<float> a, Ref<float> b, int n) { " + Body +
      " }");
  const auto *Call = dmalint::test::findOne<CallExpr>(
      *AST, callExpr(callee(functionDecl(hasName("sync_copy")))));
  if (!Call || !builtinApi().isCopy(*Call))
    return {std::nullopt, std::nullopt};
  dmalint::CopyBuffers Buffers = dmalint::copyBuffers(Call, builtinApi());
  auto Size = [&](const Expr *E) -> std::optional<int64_t> {
    auto Slice = dmalint::constantSlice(E, builtinApi(), AST->getASTContext());
    return Slice ? std::optional<int64_t>(Slice->Size) : std::nullopt;
  };
  return {Size(Buffers.Source), Size(Buffers.Target)};
}

TEST(Arguments, ConstantSlices) {
  using Sizes = std::pair<std::optional<int64_t>, std::optional<int64_t>>;
  EXPECT_EQ(slicesIn("sync_copy(a.slice(0, 8), b.slice(n, kTile / 2));"), Sizes(8, 32));
  EXPECT_EQ(slicesIn("sync_copy(a.at(0).slice(n, 4), b.at(1));"), Sizes(4, std::nullopt));
  EXPECT_EQ(slicesIn("const int rows = 3; sync_copy(a, b.slice(0, rows));"),
            Sizes(std::nullopt, 3));
  // A size that is not a constant, and a slice's start, say nothing.
  EXPECT_EQ(slicesIn("sync_copy(a.slice(0, n), b.slice(8, n));"),
            Sizes(std::nullopt, std::nullopt));
}

TEST(Arguments, BufferElementTypes) {
  auto AST = dmalint::test::parseKernel(
      "typedef bool flag_t;\nusing Mask = Ref<flag_t>;\n"
      "void k(Mask m, Ref<const bool> c, Ref<int> i, DmaSemaphore s) {\n"
      "  make_async_copy(m, m, s); make_async_copy(c, c, s); make_async_copy(i, i, s);\n}");
  auto Calls = match(callExpr(callee(functionDecl(hasName("make_async_copy")))).bind("c"),
                     AST->getASTContext());
  ASSERT_EQ(Calls.size(), 3u);
  std::vector<bool> Bool;
  for (auto &Node : Calls) {
    const auto *Call = Node.getNodeAs<CallExpr>("c");
    ASSERT_TRUE(builtinApi().isCopy(*Call));
    dmalint::CopyBuffers Buffers = dmalint::copyBuffers(Call, builtinApi());
    ASSERT_NE(Buffers.Target, nullptr);
    QualType Element = dmalint::bufferElementType(Buffers.Source->getType(), builtinApi());
    ASSERT_FALSE(Element.isNull());
    Bool.push_back(Element->isBooleanType());
  }
  EXPECT_EQ(Bool, (std::vector<bool>{true, true, false}));
}

} // namespace
