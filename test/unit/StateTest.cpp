//===- StateTest.cpp - The lattice: facts, value sets, locations, the join ===//
#include "dmalint/State.h"
#include <gtest/gtest.h>

namespace {

using namespace dmalint;

TEST(FactSet, AddsInOrderAndRefusesContradictions) {
  FactSet F;
  EXPECT_TRUE(F.add({3, true}));
  EXPECT_TRUE(F.add({1, false}));
  EXPECT_TRUE(F.add({3, true}));  // Already known.
  EXPECT_FALSE(F.add({3, false})); // The opposite.
  ASSERT_EQ(F.size(), 2u);
  EXPECT_EQ(F.facts()[0].Atom, 1u);
  EXPECT_EQ(F.lookup(3), std::optional(true));
  EXPECT_EQ(F.lookup(2), std::nullopt);
}

TEST(FactSet, ConjoinIntersectMinus) {
  FactSet A{{1, true}, {2, false}}, B{{2, false}, {3, true}}, Out;
  ASSERT_TRUE(FactSet::conjoin(A, B, Out));
  EXPECT_EQ(Out, (FactSet{{1, true}, {2, false}, {3, true}}));
  EXPECT_FALSE(FactSet::conjoin(A, FactSet{{1, false}}, Out));
  EXPECT_EQ(FactSet::intersect(A, B), (FactSet{{2, false}}));
  EXPECT_EQ(FactSet::minus(A, B), (FactSet{{1, true}}));
}

TEST(ValueSet, ComplementaryAssumptionsMerge) {
  // v{c} and v{!c} is v: the value reaches on every path.
  ValueSet VS = ValueSet::of(Value{5, FactSet{{1, true}}});
  VS.unionWith(ValueSet::of(Value{5, FactSet{{1, false}}}));
  ASSERT_EQ(VS.size(), 1u);
  EXPECT_TRUE(VS.values()[0].Assumed.empty());
}

TEST(ValueSet, ImpliedValueGoes) {
  ValueSet VS = ValueSet::of(Value{5, {}});
  VS.unionWith(ValueSet::of(Value{5, FactSet{{1, true}}}));
  ASSERT_EQ(VS.size(), 1u);
  EXPECT_TRUE(VS.values()[0].Assumed.empty());
}

TEST(ValueSet, RestrictDropsTheOtherSide) {
  ValueSet VS = ValueSet::of(Value{1, FactSet{{7, true}}});
  VS.unionWith(ValueSet::of(Value{2, FactSet{{7, false}}}));
  VS.restrict(Fact{7, true});
  ASSERT_EQ(VS.size(), 1u);
  EXPECT_EQ(VS.values()[0].Origin, 1u);
  EXPECT_TRUE(VS.values()[0].Assumed.empty());
}

TEST(ValueSet, TranslateAtomFlipsAndDropsContradictions) {
  // Atom 3 becomes atom 9 negated: a value that assumed 3 now assumes !9;
  // one that already assumed 9 and also 3 is on no path.
  ValueSet VS = ValueSet::of(Value{1, FactSet{{3, true}}});
  VS.unionWith(ValueSet::of(Value{2, FactSet{{3, true}, {9, true}}}));
  VS.unionWith(ValueSet::of(Value{4, FactSet{{5, true}}}));
  VS.translateAtom(3, 9, /*Flip=*/true);
  ASSERT_EQ(VS.size(), 2u);
  EXPECT_EQ(VS.values()[0].Origin, 1u);
  EXPECT_EQ(VS.values()[0].Assumed.lookup(9), std::optional<bool>(false));
  EXPECT_FALSE(VS.values()[0].Assumed.lookup(3));
  EXPECT_EQ(VS.values()[1].Origin, 4u); // Untouched.
}

TEST(ValueSet, ValuesOfDifferentOriginsNeverMerge) {
  // Only values of one origin are compared with each other.
  ValueSet VS;
  for (OriginId I = 1; I <= 2000; ++I)
    VS.unionWith(ValueSet::of(Value{I, FactSet{{I, true}}}));
  EXPECT_EQ(VS.size(), 2000u);
  EXPECT_EQ(VS.origins().size(), 2000u);
}

Location field(const clang::ValueDecl *Root, int32_t Index) {
  Location L = Location::variable(Root);
  return L.child(PathStep::element(Index));
}

TEST(Location, ElementsAlias) {
  const auto *Root = reinterpret_cast<const clang::ValueDecl *>(0x1000);
  Location Any = field(Root, PathStep::Any), Two = field(Root, 2), Three = field(Root, 3),
           Summary = field(Root, PathStep::Summary);
  EXPECT_TRUE(Any.mayAlias(Two));      // Every element.
  EXPECT_TRUE(Two.mayAlias(Summary));  // An unknown-index write may have set it.
  EXPECT_FALSE(Two.mayAlias(Three));   // Different constants.
  EXPECT_FALSE(Summary.mayAlias(Two)); // The summary is not element 2.
  EXPECT_TRUE(Two.isSingle());
  EXPECT_FALSE(Any.isSingle());
  EXPECT_TRUE(Location::variable(Root).isPrefixOf(Two));
}

TEST(Location, SizeMarkIsNoElement) {
  // A vector's size mark sits below it (copies of the vector carry it) but
  // no read or write of an element touches it.
  const auto *Root = reinterpret_cast<const clang::ValueDecl *>(0x1000);
  Location Mark = Location::variable(Root).child(PathStep::size(2));
  EXPECT_FALSE(field(Root, PathStep::Any).mayAlias(Mark));
  EXPECT_FALSE(field(Root, PathStep::Summary).mayAlias(Mark));
  EXPECT_FALSE(field(Root, 2).mayAlias(Mark));
  EXPECT_TRUE(Location::variable(Root).isPrefixOf(Mark));
  EXPECT_FALSE(Mark.mayAlias(Location::variable(Root).child(PathStep::size(3))));
}

TEST(Location, LastElementIsReadOnlyByName) {
  // The view of the element appended last holds a second copy of what the
  // summary holds: a query of every element reads the summary, not the
  // view twice, and only a query naming the view (back()) reads it.
  const auto *Root = reinterpret_cast<const clang::ValueDecl *>(0x1000);
  Location Last = field(Root, PathStep::Last);
  EXPECT_FALSE(field(Root, PathStep::Any).mayAlias(Last));
  EXPECT_FALSE(field(Root, PathStep::Summary).mayAlias(Last));
  EXPECT_FALSE(field(Root, 0).mayAlias(Last));
  EXPECT_FALSE(Last.mayAlias(field(Root, PathStep::Summary)));
  EXPECT_TRUE(Last.mayAlias(Last));
  EXPECT_TRUE(Location::variable(Root).mayAlias(Last)); // The whole vector holds it.
  EXPECT_FALSE(Last.isSingle()); // A write through it is weak.
}

TEST(Location, PathsAreBounded) {
  const auto *Root = reinterpret_cast<const clang::ValueDecl *>(0x1000);
  Location L = Location::variable(Root);
  for (unsigned I = 0; I < MaxPathDepth; ++I)
    L = L.child(PathStep::element(0));
  EXPECT_FALSE(L.isUnknown());
  EXPECT_TRUE(L.child(PathStep::element(0)).isUnknown());
}

TEST(Location, EverythingBelowIsOneRange) {
  const auto *A = reinterpret_cast<const clang::ValueDecl *>(0x1000);
  const auto *B = reinterpret_cast<const clang::ValueDecl *>(0x2000);
  State S;
  S.Cells[Location::variable(A).child(PathStep::element(1))];
  S.Cells[Location::variable(B)];
  S.Cells[Location::variable(A)];
  S.Cells[Location::variable(A).child(PathStep::element(0)).child(PathStep::part(1))];
  auto [First, Last] = S.cellsBelow(Location::variable(A));
  EXPECT_EQ(std::distance(First, Last), 3);
}

TEST(Join, FactsBothKnowStayAndValuesAreTagged) {
  const auto *D = reinterpret_cast<const clang::ValueDecl *>(0x1000);
  Location L = Location::variable(D);
  State Then, Else;
  Then.Facts.add({1, true});
  Else.Facts.add({1, false});
  Then.Cells[L].Values = ValueSet::of(OriginId(2)); // remote, say
  Else.Cells[L].Values = ValueSet::of(OriginId(3)); // local
  State J = joinStates(Then, Else);
  EXPECT_TRUE(J.Facts.empty());
  const ValueSet &VS = J.Cells[L].Values;
  ASSERT_EQ(VS.size(), 2u);
  // A later `if (c)` keeps only what came from the then-side.
  ValueSet AfterThen = VS;
  AfterThen.restrict(Fact{1, true});
  ASSERT_EQ(AfterThen.size(), 1u);
  EXPECT_EQ(AfterThen.values()[0].Origin, 2u);
}

TEST(Join, AValueBothSidesHoldIsNotTagged) {
  // The value 4 is in the location on both paths: it is there on every
  // path into the merge, whatever the two sides knew. Tagging it with
  // `{1, {2}}` and `{!1}` would keep two copies of it that say nothing more.
  const auto *D = reinterpret_cast<const clang::ValueDecl *>(0x1000);
  Location L = Location::variable(D);
  State Then, Else;
  Then.Facts.add({1, true});
  Then.Facts.add({2, true});
  Else.Facts.add({1, false});
  Then.Cells[L].Values = ValueSet::of(OriginId(4));
  Then.Cells[L].Values.unionWith(ValueSet::of(OriginId(2)));
  Else.Cells[L].Values = ValueSet::of(OriginId(4));
  Else.Cells[L].Values.unionWith(ValueSet::of(OriginId(3)));
  State J = joinStates(Then, Else);
  const ValueSet &VS = J.Cells[L].Values;
  ASSERT_EQ(VS.size(), 3u);
  for (const Value &V : VS.values()) {
    if (V.Origin == 4)
      EXPECT_TRUE(V.Assumed.empty());
    if (V.Origin == 2)
      EXPECT_EQ(V.Assumed, (FactSet{{1, true}, {2, true}}));
    if (V.Origin == 3)
      EXPECT_EQ(V.Assumed, (FactSet{{1, false}}));
  }
}

TEST(Join, ALastElementOneSideLacksGoes) {
  // One path appended (its view names the element), the other did not:
  // which element is last after the join is not known, so the view goes;
  // where both sides have one, it is their union, tagged as any cell.
  const auto *D = reinterpret_cast<const clang::ValueDecl *>(0x1000);
  Location Last = field(D, PathStep::Last), Summary = field(D, PathStep::Summary);
  State Appended, Not;
  Appended.Facts.add({1, true});
  Not.Facts.add({1, false});
  Appended.Cells[Last].Values = ValueSet::of(OriginId(2));
  Appended.Cells[Summary].Values = ValueSet::of(OriginId(2));
  Not.Cells[Summary].Values = ValueSet::of(OriginId(3));
  State J = joinStates(Appended, Not);
  EXPECT_EQ(J.Cells.count(Last), 0u);
  EXPECT_EQ(J.Cells[Summary].Values.size(), 2u);

  Not.Cells[Last].Values = ValueSet::of(OriginId(3));
  State Both = joinStates(Appended, Not);
  ASSERT_EQ(Both.Cells.count(Last), 1u);
  ValueSet AfterThen = Both.Cells[Last].Values;
  AfterThen.restrict(Fact{1, true});
  ASSERT_EQ(AfterThen.size(), 1u);
  EXPECT_EQ(AfterThen.values()[0].Origin, 2u);
}

TEST(Join, ReceivedOnlyWhereBothSidesReceived) {
  // A receive wait on one path only does not make the object received.
  const auto *D = reinterpret_cast<const clang::ValueDecl *>(0x1000);
  const auto *E = reinterpret_cast<const clang::ValueDecl *>(0x2000);
  ReceivedObject AtD{Location::variable(D), nullptr}, AtE{Location::variable(E), nullptr};
  State Both, One;
  Both.Received = {AtD, AtE};
  One.Received = {AtD};
  State J = joinStates(Both, One);
  ASSERT_EQ(J.Received.size(), 1u);
  EXPECT_TRUE(J.Received[0] == AtD);
  EXPECT_FALSE(J == Both); // The states differ by it: the fixed point sees it.
}

TEST(Join, UnreachableSideContributesNothing) {
  State A, B;
  B.Reachable = false;
  A.Facts.add({4, true});
  EXPECT_EQ(joinStates(A, B), A);
  EXPECT_EQ(joinStates(B, A), A);
}

TEST(Join, LifecyclesUniteAndAbsentIsIdle) {
  State A, B;
  A.setLife(7, InFlight);
  B.setLife(8, RecvWaited);
  State J = joinStates(A, B);
  EXPECT_EQ(J.lifeOf(7), LifeMask(InFlight | Idle));
  EXPECT_EQ(J.lifeOf(8), LifeMask(RecvWaited | Idle));
  EXPECT_EQ(J.lifeOf(9), LifeMask(Idle));
}

TEST(Join, GuardsOnlyWhereBothAgree) {
  Location V = Location::variable(reinterpret_cast<const clang::VarDecl *>(0x3000));
  Location W = Location::variable(reinterpret_cast<const clang::VarDecl *>(0x4000));
  Guard G;
  G.Atom = 1;
  State A, B;
  A.Guards[V] = G;
  B.Guards[V] = G;
  A.Guards[W] = G;
  State J = joinStates(A, B);
  EXPECT_EQ(J.Guards.size(), 1u);
  EXPECT_TRUE(J.Guards.count(V));
}

TEST(Join, FlagsOnlyWhereBothAgree) {
  // A flag is a constant on every path or unknown: one side's alone, or two
  // different ones, leave no cell.
  Location V = Location::variable(reinterpret_cast<const clang::VarDecl *>(0x3000));
  Location Same = V.child(PathStep::element(0)), Differ = V.child(PathStep::element(1)),
           OneSide = V.child(PathStep::element(2));
  State A, B;
  A.Cells[Same].Flag = FlagTrue;
  B.Cells[Same].Flag = FlagTrue;
  A.Cells[Differ].Flag = FlagTrue;
  B.Cells[Differ].Flag = FlagFalse;
  A.Cells[OneSide].Flag = FlagFalse;
  State J = joinStates(A, B);
  EXPECT_EQ(J.Cells.size(), 1u);
  ASSERT_TRUE(J.Cells.count(Same));
  EXPECT_EQ(J.Cells[Same].Flag, FlagTrue);
  EXPECT_FALSE(A == B);
}

TEST(Join, FlagsThatAreTheSameTestStayThatTest) {
  // `{local, false}` on one path and `{remote, true}` on the other: each is
  // is_remote() of its copy, and so is the join.
  Location V = Location::variable(reinterpret_cast<const clang::VarDecl *>(0x3000));
  const auto *Copy = reinterpret_cast<const clang::FieldDecl *>(0x5000);
  const auto *Other = reinterpret_cast<const clang::FieldDecl *>(0x6000);
  Location Related = V.child(PathStep::element(0)), Unrelated = V.child(PathStep::element(1));
  State A, B;
  A.Cells[Related].Flag = FlagFalse;
  A.Cells[Related].FlagOf = Copy;
  B.Cells[Related].Flag = FlagTrue;
  B.Cells[Related].FlagOf = Copy;
  A.Cells[Unrelated].Flag = FlagTrue;
  A.Cells[Unrelated].FlagOf = Copy;
  B.Cells[Unrelated].Flag = FlagFalse;
  B.Cells[Unrelated].FlagOf = Other;
  State J = joinStates(A, B);
  ASSERT_TRUE(J.Cells.count(Related));
  EXPECT_EQ(J.Cells[Related].Flag, FlagIsRemote);
  EXPECT_EQ(J.Cells[Related].FlagOf, Copy);
  EXPECT_FALSE(J.Cells.count(Unrelated));
}

TEST(Join, EnumsThatAreAFunctionOfTheKindStayThatFunction) {
  // `{local, kLocal}` on one path and `{remote, kRemote}` on the other: the
  // join knows each kind's value; `{local, kRemote}` against `{local,
  // kLocal}` gives the local kind two values, which nothing keeps.
  Location V = Location::variable(reinterpret_cast<const clang::VarDecl *>(0x3000));
  const auto *Copy = reinterpret_cast<const clang::FieldDecl *>(0x5000);
  const FlagValue Local = flagConstant(0), Remote = flagConstant(1);
  Location Kept = V.child(PathStep::element(0)), Lost = V.child(PathStep::element(1));
  State A, B;
  A.Cells[Kept].setFlag({Local, Copy, FlagUnknown, Local});
  B.Cells[Kept].setFlag({Remote, Copy, Remote, FlagUnknown});
  A.Cells[Lost].setFlag({Local, Copy, FlagUnknown, Local});
  B.Cells[Lost].setFlag({Remote, Copy, FlagUnknown, Remote});
  State J = joinStates(A, B);
  ASSERT_TRUE(J.Cells.count(Kept));
  EXPECT_EQ(J.Cells[Kept].flag(), (KnownFlag{FlagIsRemote, Copy, Remote, Local}));
  EXPECT_FALSE(J.Cells.count(Lost));
}

} // namespace
