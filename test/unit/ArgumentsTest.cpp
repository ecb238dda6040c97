//===- ArgumentsTest.cpp - Facts read off one call's arguments -------------===//
#include "TestAst.h"
#include "dmalint/Arguments.h"

using namespace clang;
using namespace clang::ast_matchers;
using dmalint::Engagement;

namespace {

const dmalint::ApiIndex &api() {
  static dmalint::ApiIndex Index(dmalint::ApiModel::builtin());
  return Index;
}

const char *Params = "Ref<float> a, Ref<float> b, DmaSemaphore s, DmaSemaphore r, "
                     "std::optional<DmaSemaphore> maybe";

/// Engagement of the src_sem (3) and device_id (4) arguments of the one
/// descriptor construction in \p Statement.
std::pair<Engagement, Engagement> engagementIn(const std::string &Statement) {
  auto AST = dmalint::test::parseKernel(std::string("void k(") + Params + ") { " +
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

/// Mesh coordinates of the device id argument of make_async_remote_copy.
std::optional<unsigned> meshCoordinatesIn(const std::string &Body) {
  auto AST = dmalint::test::parseKernel(std::string("void k(") + Params + ", int x) { " +
                                        Body + " }");
  const auto *Call = dmalint::test::findOne<CallExpr>(
      *AST, callExpr(callee(functionDecl(hasName("make_async_remote_copy")))));
  if (!Call)
    return std::nullopt;
  auto Shape = dmalint::deviceIdShape(Call->getArg(4), api(), AST->getASTContext());
  if (!Shape)
    return std::nullopt;
  return Shape->MeshCoordinates;
}

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

} // namespace
