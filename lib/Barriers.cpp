//===- Barriers.cpp - Regular semaphores used as barriers, counted --------===//
//
// Three parts: an evaluator that reads an expression as a value the barrier
// model knows (a count the same on every device, the device's position on an
// axis moved by a constant, the counter of a loop, a device id), a walk from
// each signal and wait up to the region that holds them all (multiplying the
// iterations of the loops on the way), and the judgement of each semaphore.
//
//===----------------------------------------------------------------------===//
#include "dmalint/Barriers.h"
#include "dmalint/AnalysisCache.h"
#include "dmalint/Arguments.h"
#include "dmalint/AstUtil.h"
#include "dmalint/InPlaceLambdas.h"
#include "dmalint/Semaphores.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
#include <functional>
#include <map>
#include <set>

using namespace clang;

namespace dmalint {

namespace {
// A namespace of its own: a unity build joins every file's anonymous
// namespace, and Values.h has a dmalint::Value too.
namespace barriers {

/// How deep the evaluator follows helper functions and variables.
constexpr unsigned MaxDepth = 64;
constexpr unsigned MaxHelperDepth = 4;

// ------------------------------------------------------------- values ---

/// What the evaluator knows of an expression.
struct Value {
  enum Kind {
    Unknown,
    /// The same on every device in one run of the function: a count.
    Uniform,
    /// p(me) + SizeMultiple * axis_size(Axis) + Offset (+ the counter of
    /// OffsetLoop), where p is a bijection of the devices of Axis onto
    /// [0, axis_size(Axis)) named Base (0: the device's own index).
    Position,
    /// The counter of a counted loop; AllDevices when it runs over every
    /// device of Axis (from 0 to axis_size(Axis), by one).
    Counter,
    /// A mesh axis, by name ("" for the one axis of a flat rank).
    AxisName,
    /// A device id: none (the device itself), one value, or coordinates.
    DeviceId,
  };
  Kind K = Unknown;
  SymbolicCount Count;
  std::string Axis;
  unsigned Base = 0;
  int64_t SizeMultiple = 0, Offset = 0;
  const ForStmt *Loop = nullptr; ///< Position: OffsetLoop; Counter: its loop.
  int64_t LoopLeast = 0;         ///< The least value of that counter.
  /// Position: p is a different bijection in each iteration of this loop
  /// (`(me + i) % n`), the same on every device in one iteration.
  const ForStmt *PermutedBy = nullptr;
  bool AllDevices = false;
  enum IdShape { Self, Single, List } Shape = Self;
  std::vector<Value> Coordinates;

  static Value uniform(SymbolicCount C) {
    Value V;
    V.K = Uniform;
    V.Count = std::move(C);
    return V;
  }
  static Value axis(std::string Name) {
    Value V;
    V.K = AxisName;
    V.Axis = std::move(Name);
    return V;
  }
  static Value position(std::string Axis, unsigned Base) {
    Value V;
    V.K = Position;
    V.Axis = std::move(Axis);
    V.Base = Base;
    return V;
  }
  static Value deviceId(IdShape Shape, std::vector<Value> Coordinates = {}) {
    Value V;
    V.K = DeviceId;
    V.Shape = Shape;
    V.Coordinates = std::move(Coordinates);
    return V;
  }
  bool known() const { return K != Unknown; }
  std::optional<int64_t> constant() const {
    return K == Uniform ? Count.asConstant() : std::nullopt;
  }
  /// A position that is a bijection onto [0, n): not moved.
  bool isPermutation() const {
    return K == Position && SizeMultiple == 0 && Offset == 0 && !Loop && !PermutedBy;
  }
  bool isOwnIndex() const { return isPermutation() && Base == 0; }
};

/// Where an expression is evaluated: a function and what its parameters and
/// locals are bound to (a helper's parameters to the caller's arguments).
struct Frame {
  const FunctionDecl *Function = nullptr;
  const UnwrittenVariables *Vars = nullptr;
  llvm::DenseMap<const VarDecl *, Value> Bindings;
  bool Top = false; ///< The function being judged (its loops and locals are followed).
  unsigned HelperDepth = 0;
  /// For a lambda's call operator: the frame of its call, where what it
  /// captures is read.
  const Frame *Outer = nullptr;
};

/// A counted `for` loop.
struct LoopInfo {
  const VarDecl *Counter = nullptr;
  SymbolicCount Trip;
  bool Increasing = true;
  std::optional<int64_t> Least; ///< The counter's first value, when constant.
  std::optional<std::string> AllDevicesAxis;
};

bool isRead(const DeclRefExpr *DRE, const ParentMap &PM) {
  const Stmt *Parent = PM.getParent(DRE);
  while (const auto *Paren = dyn_cast_or_null<ParenExpr>(Parent))
    Parent = PM.getParent(Paren);
  const auto *Cast = dyn_cast_or_null<ImplicitCastExpr>(Parent);
  return Cast && Cast->getCastKind() == CK_LValueToRValue;
}

/// True when \p V is mentioned in \p S other than by reading its value.
bool writtenIn(const VarDecl *V, const Stmt *S, const ParentMap &PM) {
  if (!S)
    return false;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
    if (DRE->getDecl() == V && !isRead(DRE, PM))
      return true;
  for (const Stmt *Child : S->children())
    if (writtenIn(V, Child, PM))
      return true;
  return false;
}

const VarDecl *referencedVar(const Expr *E) {
  const auto *DRE = dyn_cast_or_null<DeclRefExpr>(E ? E->IgnoreParenImpCasts() : nullptr);
  return DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
}

// ---------------------------------------------------------- evaluator ---

class Evaluator {
public:
  Evaluator(const FunctionDecl &FD, ASTContext &Ctx, const ApiIndex &Api,
            const UnwrittenVariables &Vars, const ParentMap &PM, AtomTable &Atoms)
      : Ctx(Ctx), Api(Api), PM(PM), Atoms(Atoms) {
    TopFrame.Function = &FD;
    TopFrame.Vars = &Vars;
    TopFrame.Top = true;
  }

  Value eval(const Expr *E) { return eval(E, TopFrame, 0); }
  Value deviceId(const Expr *E) { return deviceId(E, TopFrame, 0); }
  /// The device id \p E names when \p Var holds what \p Init gives.
  Value deviceIdWith(const Expr *E, const VarDecl *Var, const Expr *Init) {
    Frame F = TopFrame;
    F.Bindings[Var] = eval(Init, TopFrame, 0);
    return deviceId(E, F, 0);
  }
  /// The locals of \p CallOperator (a lambda whose barrier calls are
  /// counted) are followed as the function's: one value in each call. Its
  /// parameters are not (a call may pass each device another value), except
  /// those passConstants names.
  void countLambda(const CXXMethodDecl &CallOperator) { CountedLambdas.insert(&CallOperator); }
  /// \p Passed: the parameters of counted lambdas that every call passes as
  /// the same constant (BodyScan::constantArguments).
  void passConstants(llvm::DenseMap<const ParmVarDecl *, int64_t> Passed) {
    LambdaArguments = std::move(Passed);
  }

  /// The loop \p For as a counted loop, if it is one.
  const std::optional<LoopInfo> &loop(const ForStmt *For) {
    auto [It, Inserted] = Loops.try_emplace(For);
    if (Inserted)
      It->second = countLoop(For);
    return It->second;
  }

  /// "p < Threshold ? Below : Above" recognised as a rotation of the
  /// positions of one axis, given the condition and the two values.
  Value wrap(const Expr *Cond, const Frame &F, unsigned Depth, const Value &IfTrue,
             const Value &IfFalse, const void *Site);

  /// The atom of the extent of \p Axis.
  unsigned sizeAtom(const std::string &Axis, const std::string &Spelling) {
    if (auto It = SizeAtoms.find(Axis); It != SizeAtoms.end())
      return It->second;
    unsigned Id = Atoms.intern("axis-size:" + Axis, Spelling);
    Atoms.boundBelow(Id, 1); // An axis has at least one device.
    SizeAtoms[Axis] = Id;
    AxisOfSizeAtom[Id] = Axis;
    return Id;
  }
  /// The atom of the extent of \p Axis, if a count has named it.
  std::optional<unsigned> knownSizeAtom(const std::string &Axis) const {
    auto It = SizeAtoms.find(Axis);
    return It == SizeAtoms.end() ? std::nullopt : std::optional<unsigned>(It->second);
  }

  /// The axes that device-id helpers evaluated so far have asked about.
  const llvm::StringSet<> &helperAxes() const { return HelperAxes; }

private:
  Value eval(const Expr *E, const Frame &F, unsigned Depth);
  Value deviceId(const Expr *E, const Frame &F, unsigned Depth);
  Value variable(const DeclRefExpr *DRE, const Frame &F, unsigned Depth);
  /// An axis name held in a field: Value::axis, or unknown.
  Value axisMember(const MemberExpr *ME, const Frame &F);
  Value call(const CallExpr *Call, const Frame &F, unsigned Depth, bool WantDeviceId);
  /// A call of a lambda a local of \p F holds, evaluated as a helper whose
  /// captures are read in \p F.
  Value lambdaCall(const clang::CXXOperatorCallExpr *Call, const Frame &F, unsigned Depth,
                   bool WantDeviceId);
  /// The return statement \p S reaches under the bindings of \p F.
  const clang::ReturnStmt *returnTaken(const clang::Stmt *S, const Frame &F, unsigned Depth);
  /// The value a helper's block returns where its first test the bindings
  /// of \p F do not decide is `if (c) return a;` followed by what returns b
  /// (`if (idx == n - 1) return 0; return idx + 1;`): `c ? a : b`, as a
  /// conditional operator is (wrap). Unknown for any other block.
  Value returnedIfElse(const clang::CompoundStmt &Block, const Frame &F, unsigned Depth);
  /// A helper \p Callee whose body returns an expression of its parameters,
  /// with them bound to \p Args (evaluated in \p F).
  Value helper(const clang::FunctionDecl &Callee, llvm::ArrayRef<const clang::Expr *> Args,
               const Frame &F, const Frame *Outer, unsigned Depth, bool WantDeviceId);
  Value add(const Value &A, const Value &B, bool Subtract);
  Value remainder(const Value &A, const Value &B, const void *Site);
  Value conditional(const ConditionalOperator *CO, const Frame &F, unsigned Depth);
  /// A local variable written after its initialisation only by statements
  /// of its own block, each `v = e`, `v op= e`, `++v` or `if (c)` one of
  /// those, all before \p Use: its value there.
  Value writtenLocal(const VarDecl *V, const DeclRefExpr *Use, const Frame &F, unsigned Depth);
  Value applyWrite(const Stmt *S, const VarDecl *V, const Value &Old, const Frame &F,
                   unsigned Depth);
  std::optional<LoopInfo> countLoop(const ForStmt *For);
  const UnwrittenVariables &varsOf(const FunctionDecl *Helper) {
    return AnalysisCache::current().variables(*Helper, Api);
  }
  /// The name of the permutation made at \p Site from \p From.
  unsigned baseOf(const void *Site, const Value &From) {
    auto Key = std::make_tuple(Site, From.Axis, From.Base, From.SizeMultiple, From.Offset,
                               static_cast<const void *>(From.Loop ? From.Loop : From.PermutedBy));
    auto [It, Inserted] = Bases.try_emplace(Key, Bases.size() + 1);
    return It->second;
  }
  /// Splits \p C into `k * axis_size(Axis) + c`, when it is one.
  bool sizeAndConstant(const SymbolicCount &C, const std::string &Axis, int64_t &K,
                       int64_t &Constant);

  ASTContext &Ctx;
  const ApiIndex &Api;
  const ParentMap &PM;
  AtomTable &Atoms;
  llvm::SmallPtrSet<const DeclContext *, 2> CountedLambdas; ///< See countLambda.
  llvm::DenseMap<const ParmVarDecl *, int64_t> LambdaArguments; ///< See passConstants.
  Frame TopFrame;
  llvm::DenseMap<const ForStmt *, std::optional<LoopInfo>> Loops;
  std::map<std::tuple<const void *, std::string, unsigned, int64_t, int64_t, const void *>,
           unsigned>
      Bases;
  llvm::DenseSet<unsigned> NamedAtoms; ///< Atoms respelled by a variable's name.
  std::map<std::string, unsigned> SizeAtoms;
  llvm::DenseMap<unsigned, std::string> AxisOfSizeAtom;
  llvm::StringSet<> HelperAxes;
};

/// A key naming \p D in atom and axis keys.
std::string declKey(const Decl *D) {
  return std::to_string(reinterpret_cast<uintptr_t>(D->getCanonicalDecl()));
}

/// Whether a value of type \p T can name a mesh axis (`const char *`).
bool holdsAxisName(QualType T) {
  const auto *Pointer = T->getAs<PointerType>();
  return Pointer && Pointer->getPointeeType()->isCharType();
}

/// \p E without parentheses, implicit casts and casts between integer types.
const Expr *bareInteger(const Expr *E) {
  while (E) {
    if (const auto *DA = dyn_cast<CXXDefaultArgExpr>(E)) {
      E = DA->getExpr();
      continue;
    }
    const Expr *Next = E->IgnoreParenImpCasts();
    if (const auto *Cast = dyn_cast<ExplicitCastExpr>(Next);
        Cast && Cast->getType()->isIntegralOrEnumerationType() &&
        Cast->getSubExpr()->getType()->isIntegralOrEnumerationType())
      Next = Cast->getSubExpr();
    if (Next == E)
      return E;
    E = Next;
  }
  return E;
}

Value Evaluator::eval(const Expr *E, const Frame &F, unsigned Depth) {
  E = bareInteger(E);
  if (!E || Depth > MaxDepth || E->isValueDependent() || E->isTypeDependent())
    return {};
  if (const auto *SL = dyn_cast<StringLiteral>(E))
    return SL->getCharByteWidth() == 1 ? Value::axis(SL->getString().str()) : Value();
  if (E->getType()->isIntegralOrEnumerationType())
    if (std::optional<int64_t> C = constantInt(E, Ctx))
      return Value::uniform(SymbolicCount::constant(*C));
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    return variable(DRE, F, Depth + 1);
  if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    if (const Expr *Element = F.Vars->builtValue(ME))
      return eval(Element, F, Depth + 1);
    return axisMember(ME, F);
  }
  if (const auto *Call = dyn_cast<CallExpr>(E))
    return call(Call, F, Depth + 1, /*WantDeviceId=*/false);
  if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
    Value Sub = eval(UO->getSubExpr(), F, Depth + 1);
    if (UO->getOpcode() == UO_Plus)
      return Sub;
    if (UO->getOpcode() == UO_Minus && Sub.K == Value::Uniform)
      return Value::uniform(SymbolicCount() - Sub.Count);
    // `!right` of a helper's constant argument.
    if (std::optional<int64_t> C = Sub.constant(); C && UO->getOpcode() == UO_LNot)
      return Value::uniform(SymbolicCount::constant(*C == 0));
    return {};
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    switch (BO->getOpcode()) {
    case BO_Add:
    case BO_Sub:
      return add(eval(BO->getLHS(), F, Depth + 1), eval(BO->getRHS(), F, Depth + 1),
                 BO->getOpcode() == BO_Sub);
    case BO_Mul: {
      Value L = eval(BO->getLHS(), F, Depth + 1), R = eval(BO->getRHS(), F, Depth + 1);
      if (L.K == Value::Uniform && R.K == Value::Uniform)
        return Value::uniform(L.Count * R.Count);
      return {};
    }
    case BO_Rem:
      return remainder(eval(BO->getLHS(), F, Depth + 1), eval(BO->getRHS(), F, Depth + 1), BO);
    case BO_EQ:
    case BO_NE:
    case BO_LT:
    case BO_GT:
    case BO_LE:
    case BO_GE:
    case BO_LAnd:
    case BO_LOr: {
      // Of constants (`direction == Dir::kRight` of a helper's constant
      // argument): the test a call decides.
      std::optional<int64_t> L = eval(BO->getLHS(), F, Depth + 1).constant(),
                             R = eval(BO->getRHS(), F, Depth + 1).constant();
      if (!L || !R)
        return {};
      bool Holds = false;
      switch (BO->getOpcode()) {
      case BO_EQ: Holds = *L == *R; break;
      case BO_NE: Holds = *L != *R; break;
      case BO_LT: Holds = *L < *R; break;
      case BO_GT: Holds = *L > *R; break;
      case BO_LE: Holds = *L <= *R; break;
      case BO_GE: Holds = *L >= *R; break;
      case BO_LAnd: Holds = *L && *R; break;
      default: Holds = *L || *R; break;
      }
      return Value::uniform(SymbolicCount::constant(Holds));
    }
    default:
      return {};
    }
  }
  if (const auto *CO = dyn_cast<ConditionalOperator>(E))
    return conditional(CO, F, Depth + 1);
  return {};
}

Value Evaluator::axisMember(const MemberExpr *ME, const Frame &F) {
  // An axis name held in a field of the kernel's object or of a parameter
  // (`axis_index(axis_)`, `axis_index(cfg.axis)`): one axis, the same on
  // every device, named by the field path. Only in the judged function, whose
  // `this` and parameters are the same throughout it.
  if (!F.Top || !holdsAxisName(ME->getType()))
    return {};
  std::string Key;
  const Expr *Base = ME;
  while (const auto *Member = dyn_cast<MemberExpr>(Base)) {
    const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
    if (!Field)
      return {};
    Key = declKey(Field) + "." + Key;
    Base = Member->getBase()->IgnoreParenImpCasts();
  }
  if (isa<CXXThisExpr>(Base))
    return Value::axis("member:this." + Key);
  const auto *DRE = dyn_cast<DeclRefExpr>(Base);
  const auto *Param = DRE ? dyn_cast<ParmVarDecl>(DRE->getDecl()) : nullptr;
  if (!Param || !F.Vars->ownVariable(Param) || !F.Vars->readThroughMembers(Param))
    return {};
  return Value::axis("member:" + declKey(Param) + "." + Key);
}

Value Evaluator::variable(const DeclRefExpr *DRE, const Frame &F, unsigned Depth) {
  if (const auto *ECD = dyn_cast<EnumConstantDecl>(DRE->getDecl()))
    return Value::uniform(SymbolicCount::constant(ECD->getInitVal().getSExtValue()));
  const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
  if (!V)
    return {};
  if (auto It = F.Bindings.find(V); It != F.Bindings.end())
    return It->second;
  // What a lambda captures, read in the frame of its call: a parameter of
  // that function, or a variable it never writes (a captured variable the
  // function writes may have changed between the lambda's making and call).
  if (F.Outer && V->getDeclContext() != F.Function) {
    const Frame &Outer = *F.Outer;
    if (!isa<ParmVarDecl>(V) && V->hasLocalStorage() && !Outer.Vars->unwritten(V) &&
        !V->getType().isConstQualified())
      return {};
    return variable(DRE, Outer, Depth + 1);
  }
  if (V->getType()->isReferenceType())
    return {};
  // A constant of namespace or class scope: an axis name, a count.
  if (!V->hasLocalStorage()) {
    if (V->getInit() && (V->isConstexpr() || V->getType().isConstQualified()))
      return eval(V->getInit(), F, Depth + 1);
    return {};
  }
  // A parameter of a counted lambda that every call passes as one constant
  // (`barrier(1)`), never written in the lambda.
  if (const auto *Param = dyn_cast<ParmVarDecl>(V); Param && F.Top) {
    auto It = LambdaArguments.find(Param);
    if (It != LambdaArguments.end() && F.Vars->unwrittenInLambda(Param) &&
        Param->getType()->isIntegralOrEnumerationType())
      return Value::uniform(SymbolicCount::constant(It->second));
  }
  bool InCountedLambda = F.Top && !isa<ParmVarDecl>(V) &&
                         CountedLambdas.contains(V->getDeclContext());
  if (!F.Vars->ownVariable(V) && !InCountedLambda)
    return {}; // A lambda's or a block's variable (not one that runs in place).
  if (const auto *Param = dyn_cast<ParmVarDecl>(V)) {
    // A parameter of the judged function is an atom; a helper's is bound.
    if (!F.Top || !F.Vars->unwritten(Param))
      return {};
    // An axis name the caller passes (`barrier(sem, "x")`): one axis, the
    // same on every device, whichever it is.
    if (holdsAxisName(Param->getType()))
      return Value::axis("param:" + declKey(Param));
    if (!Param->getType()->isIntegralOrEnumerationType())
      return {};
    unsigned Id = Atoms.intern("var:" + declKey(Param), Param->getName().str());
    return Value::uniform(SymbolicCount::atom(Id));
  }
  if (V->isStaticLocal())
    return {};
  // Unwritten, or const: a device id passed by reference to a signal is
  // not a write, but UnwrittenVariables cannot tell.
  bool Unwritten = F.Vars->unwritten(V) || (InCountedLambda && F.Vars->unwrittenInLambda(V));
  if ((Unwritten || V->getType().isConstQualified()) && V->getInit()) {
    Value Init = V->getType()->isIntegralOrEnumerationType() || V->getType()->isPointerType()
                     ? eval(V->getInit(), F, Depth + 1)
                     : deviceId(V->getInit(), F, Depth + 1);
    // A count read through a variable is written by the variable's name.
    if (Init.K == Value::Uniform && V->getIdentifier())
      if (std::optional<unsigned> Atom = Init.Count.asAtom();
          Atom && NamedAtoms.insert(*Atom).second)
        Atoms.respell(*Atom, V->getName().str());
    return Init;
  }
  if (!F.Top)
    return {};
  // The counter of a counted loop, declared in its init.
  for (const Stmt *S = PM.getParent(DRE); S; S = PM.getParent(S)) {
    const auto *For = dyn_cast<ForStmt>(S);
    if (!For)
      continue;
    const auto *Init = dyn_cast_or_null<DeclStmt>(For->getInit());
    if (!Init || !Init->isSingleDecl() || Init->getSingleDecl() != V)
      continue;
    const std::optional<LoopInfo> &L = loop(For);
    if (!L || !L->Increasing || !L->Least)
      return {};
    Value Counter;
    Counter.K = Value::Counter;
    Counter.Loop = For;
    Counter.LoopLeast = *L->Least;
    if (L->AllDevicesAxis) {
      Counter.AllDevices = true;
      Counter.Axis = *L->AllDevicesAxis;
    }
    return Counter;
  }
  if (V->getType()->isIntegralOrEnumerationType())
    return writtenLocal(V, DRE, F, Depth + 1);
  return {};
}

Value Evaluator::call(const CallExpr *Call, const Frame &F, unsigned Depth, bool WantDeviceId) {
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call); Op && Op->getOperator() == OO_Call)
    return lambdaCall(Op, F, Depth, WantDeviceId);
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || isa<CXXMethodDecl>(Callee))
    return {};
  if (AxisQuery Query = Api.axisQueryOf(Callee); Query != AxisQuery::None) {
    std::string Axis;
    if (Call->getNumArgs() > 0) {
      Value Name = eval(Call->getArg(0), F, Depth + 1);
      if (Name.K != Value::AxisName)
        return {};
      Axis = Name.Axis;
    }
    if (!F.Top)
      HelperAxes.insert(Axis);
    if (Query == AxisQuery::Index)
      return Value::position(Axis, 0);
    std::string Spelled = spelling(Call, Ctx);
    if (Spelled.empty())
      Spelled = Callee->getName().str() + (Call->getNumArgs() ? "(\"" + Axis + "\")" : "()");
    return Value::uniform(SymbolicCount::atom(sizeAtom(Axis, Spelled)));
  }
  if (Api.roleOf(Callee) == ApiRole::DeviceQuery) {
    // program_id(0): one atom per query and constant arguments.
    std::string Key = "query:" + Callee->getQualifiedNameAsString();
    for (const Expr *Arg : Call->arguments()) {
      Value A = eval(Arg, F, Depth + 1);
      if (std::optional<int64_t> C = A.constant())
        Key += ":" + std::to_string(*C);
      else if (A.K == Value::AxisName)
        Key += ":\"" + A.Axis + "\"";
      else
        return {};
    }
    std::string Spelled = spelling(Call, Ctx);
    if (Spelled.empty())
      Spelled = Callee->getName().str();
    return Value::uniform(SymbolicCount::atom(Atoms.intern(Key, Spelled)));
  }
  // A helper of the translation unit that returns an expression of its
  // parameters: evaluated with them bound to the arguments.
  const FunctionDecl *Def = Callee->getDefinition();
  if (!Def)
    return {};
  return helper(*Def, llvm::ArrayRef(Call->getArgs(), Call->getNumArgs()), F, nullptr, Depth,
                WantDeviceId);
}

Value Evaluator::lambdaCall(const CXXOperatorCallExpr *Call, const Frame &F, unsigned Depth,
                            bool WantDeviceId) {
  // A local the function's own code initialises with a lambda (not a
  // generic one: its call operator is a template), called by name.
  const auto *DRE = dyn_cast<DeclRefExpr>(Call->getArg(0)->IgnoreParenImpCasts());
  const auto *Holder = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!Holder || !Holder->hasLocalStorage() || isa<ParmVarDecl>(Holder) ||
      Holder->getType()->isReferenceType() || !Holder->getInit() ||
      !F.Vars->ownVariable(Holder))
    return {};
  const auto *L = dyn_cast<LambdaExpr>(stripWrappers(Holder->getInit()));
  const CXXMethodDecl *Op = L ? L->getCallOperator() : nullptr;
  if (!Op || Op->getDescribedFunctionTemplate() || Call->getDirectCallee() != Op)
    return {};
  return helper(*Op, llvm::ArrayRef(Call->getArgs() + 1, Call->getNumArgs() - 1), F, &F, Depth,
                WantDeviceId);
}

const ReturnStmt *Evaluator::returnTaken(const Stmt *S, const Frame &F, unsigned Depth) {
  // Declarations, then the statement that returns: a return, or an if or
  // switch whose condition the bindings decide (`if (right) return ...;`,
  // `switch (dir) { case Dir::kRight: return ...; default: return ...; }`).
  // Anything else (a loop, an assignment, a condition not known here) is
  // not an expression of the parameters.
  if (!S || Depth > MaxDepth)
    return nullptr;
  if (const auto *R = dyn_cast<ReturnStmt>(S))
    return R;
  if (const auto *Block = dyn_cast<CompoundStmt>(S)) {
    for (const Stmt *Child : Block->body()) {
      if (isa<DeclStmt, NullStmt>(Child))
        continue;
      if (const auto *If = dyn_cast<IfStmt>(Child); If && !If->getElse()) {
        // `if (c) return X;` then the rest: taken, or on to the rest.
        if (If->getInit() || If->getConditionVariable() || If->isConsteval())
          return nullptr;
        std::optional<int64_t> C = eval(If->getCond(), F, Depth + 1).constant();
        if (!C)
          return nullptr;
        if (!*C)
          continue;
        return returnTaken(If->getThen(), F, Depth + 1);
      }
      return returnTaken(Child, F, Depth + 1);
    }
    return nullptr;
  }
  if (const auto *If = dyn_cast<IfStmt>(S)) {
    if (If->getInit() || If->getConditionVariable() || If->isConsteval() || !If->getElse())
      return nullptr;
    std::optional<int64_t> C = eval(If->getCond(), F, Depth + 1).constant();
    if (!C)
      return nullptr;
    return returnTaken(*C ? If->getThen() : If->getElse(), F, Depth + 1);
  }
  if (const auto *Switch = dyn_cast<SwitchStmt>(S)) {
    if (Switch->getInit() || Switch->getConditionVariable())
      return nullptr;
    std::optional<int64_t> C = eval(Switch->getCond(), F, Depth + 1).constant();
    if (!C)
      return nullptr;
    // Only `case K: return ...;` labels and a default, each returning.
    const SwitchCase *Taken = nullptr, *Default = nullptr;
    for (const SwitchCase *SC = Switch->getSwitchCaseList(); SC; SC = SC->getNextSwitchCase()) {
      if (!isa<ReturnStmt>(SC->getSubStmt()))
        return nullptr;
      if (isa<DefaultStmt>(SC)) {
        Default = SC;
        continue;
      }
      std::optional<int64_t> K = caseValue(*SC, Ctx);
      if (!K)
        return nullptr;
      if (*K == *C)
        Taken = SC;
    }
    if (!Taken)
      Taken = Default;
    return Taken ? cast<ReturnStmt>(Taken->getSubStmt()) : nullptr;
  }
  return nullptr;
}

Value Evaluator::returnedIfElse(const CompoundStmt &Block, const Frame &F, unsigned Depth) {
  if (Depth > MaxDepth)
    return {};
  llvm::ArrayRef<Stmt *> Body(Block.body_begin(), Block.body_end());
  while (!Body.empty() && isa<DeclStmt, NullStmt>(Body.front()))
    Body = Body.drop_front();
  const auto *If = Body.empty() ? nullptr : dyn_cast<IfStmt>(Body.front());
  if (!If || If->getElse() || If->getInit() || If->getConditionVariable() || If->isConsteval() ||
      eval(If->getCond(), F, Depth + 1).constant())
    return {};
  const Stmt *Then = If->getThen();
  if (const auto *Inner = dyn_cast<CompoundStmt>(Then); Inner && Inner->size() == 1)
    Then = Inner->body_front();
  const auto *Taken = dyn_cast<ReturnStmt>(Then);
  if (!Taken || !Taken->getRetValue())
    return {};
  // The rest of the block, as a block of its own: what returns b.
  llvm::ArrayRef<Stmt *> Rest = Body.drop_front();
  const ReturnStmt *Otherwise = nullptr;
  for (const Stmt *S : Rest) {
    if (isa<DeclStmt, NullStmt>(S))
      continue;
    Otherwise = returnTaken(S, F, Depth + 1);
    break;
  }
  if (!Otherwise || !Otherwise->getRetValue())
    return {};
  return wrap(If->getCond(), F, Depth + 1, eval(Taken->getRetValue(), F, Depth + 1),
              eval(Otherwise->getRetValue(), F, Depth + 1), If);
}

Value Evaluator::helper(const FunctionDecl &Callee, llvm::ArrayRef<const Expr *> Args,
                        const Frame &F, const Frame *Outer, unsigned Depth, bool WantDeviceId) {
  const FunctionDecl *Def = &Callee;
  if (!Def->hasBody() || Def->isVariadic() || Def->isDependentContext() ||
      F.HelperDepth >= MaxHelperDepth || Def->getNumParams() != Args.size())
    return {};
  const auto *Body = dyn_cast<CompoundStmt>(Def->getBody());
  if (!Body || Body->body_empty())
    return {};
  Frame Helper;
  Helper.Function = Def;
  Helper.Vars = &varsOf(Def);
  Helper.HelperDepth = F.HelperDepth + 1;
  Helper.Outer = Outer;
  for (unsigned I = 0; I < Def->getNumParams(); ++I) {
    const ParmVarDecl *Param = Def->getParamDecl(I);
    QualType T = Param->getType().getNonReferenceType();
    if (!Helper.Vars->unwritten(Param))
      return {};
    Value Arg = T->isIntegralOrEnumerationType() || T->isPointerType()
                    ? eval(Args[I], F, Depth + 1)
                    : deviceId(Args[I], F, Depth + 1);
    Helper.Bindings[Param] = std::move(Arg);
  }
  const ReturnStmt *Return = returnTaken(Body, Helper, Depth);
  QualType Result = Def->getReturnType().getNonReferenceType();
  if (!Return && !WantDeviceId && Result->isIntegralOrEnumerationType())
    return returnedIfElse(*Body, Helper, Depth);
  if (!Return || !Return->getRetValue())
    return {};
  if (WantDeviceId || !Result->isIntegralOrEnumerationType())
    return deviceId(Return->getRetValue(), Helper, Depth + 1);
  return eval(Return->getRetValue(), Helper, Depth + 1);
}

bool Evaluator::sizeAndConstant(const SymbolicCount &C, const std::string &Axis, int64_t &K,
                                int64_t &Constant) {
  K = 0;
  Constant = 0;
  for (auto &[M, Coefficient] : C.terms()) {
    if (M.empty())
      Constant = Coefficient;
    else if (M.size() == 1 && M.front() == knownSizeAtom(Axis))
      K = Coefficient;
    else
      return false;
  }
  return true;
}

Value Evaluator::add(const Value &A, const Value &B, bool Subtract) {
  if (A.K == Value::Uniform && B.K == Value::Uniform)
    return Value::uniform(Subtract ? A.Count - B.Count : A.Count + B.Count);
  // A position moved by a count: by a constant, or by whole axis extents.
  auto Move = [&](const Value &P, const SymbolicCount &By) -> Value {
    int64_t K, C;
    if (!sizeAndConstant(By, P.Axis, K, C))
      return {};
    Value Out = P;
    Out.SizeMultiple += K;
    Out.Offset += C;
    return Out;
  };
  if (A.K == Value::Position && B.K == Value::Uniform)
    return Move(A, Subtract ? SymbolicCount() - B.Count : B.Count);
  if (A.K == Value::Uniform && B.K == Value::Position && !Subtract)
    return Move(B, A.Count);
  // A position moved by the counter of a loop that every device runs alike
  // (`(me + i) % n`): a rotation by a different amount in each iteration.
  auto MoveByCounter = [](const Value &P, const Value &Counter) -> Value {
    if (P.Loop || P.PermutedBy)
      return {};
    Value Out = P;
    Out.Loop = Counter.Loop;
    Out.LoopLeast = Counter.LoopLeast;
    return Out;
  };
  if (A.K == Value::Position && B.K == Value::Counter && !Subtract)
    return MoveByCounter(A, B);
  if (A.K == Value::Counter && B.K == Value::Position && !Subtract)
    return MoveByCounter(B, A);
  return {};
}

Value Evaluator::remainder(const Value &A, const Value &B, const void *Site) {
  if (A.K != Value::Position || B.K != Value::Uniform)
    return {};
  std::optional<unsigned> Divisor = B.Count.asAtom();
  if (!Divisor || Divisor != knownSizeAtom(A.Axis))
    return {};
  // p + k * n + c is never negative when k >= 0 and 2k + c >= 0 (for n >= 2;
  // with one device every remainder is 0): the remainder is then a rotation.
  int64_t Least = 2 * A.SizeMultiple + A.Offset + (A.Loop ? A.LoopLeast : 0);
  if (A.SizeMultiple < 0 || Least < 0 || (A.Loop && A.PermutedBy))
    return {};
  Value Out = Value::position(A.Axis, baseOf(Site, A));
  Out.PermutedBy = A.Loop ? A.Loop : A.PermutedBy;
  return Out;
}

Value Evaluator::conditional(const ConditionalOperator *CO, const Frame &F, unsigned Depth) {
  Value Cond = eval(CO->getCond(), F, Depth + 1);
  if (std::optional<int64_t> C = Cond.constant())
    return *C ? eval(CO->getTrueExpr(), F, Depth + 1) : eval(CO->getFalseExpr(), F, Depth + 1);
  return wrap(CO->getCond(), F, Depth + 1, eval(CO->getTrueExpr(), F, Depth + 1),
              eval(CO->getFalseExpr(), F, Depth + 1), CO);
}

Value Evaluator::wrap(const Expr *CondExpr, const Frame &F, unsigned Depth,
                      const Value &TrueValue, const Value &FalseValue, const void *Site) {
  const auto *Cmp = dyn_cast<BinaryOperator>(bareInteger(CondExpr));
  if (!Cmp || !Cmp->isComparisonOp())
    return {};
  Value L = eval(Cmp->getLHS(), F, Depth + 1), R = eval(Cmp->getRHS(), F, Depth + 1);
  BinaryOperatorKind Op = Cmp->getOpcode();
  if (L.K == Value::Uniform && R.K == Value::Position) {
    std::swap(L, R);
    Op = BinaryOperator::reverseComparisonOp(Op);
  }
  if (L.K != Value::Position || R.K != Value::Uniform || L.Loop || L.PermutedBy)
    return {};
  // p + kL n + cL  op  U   <=>   p  op  U - kL n - cL = kT n + cT.
  int64_t KT, CT;
  if (!sizeAndConstant(R.Count, L.Axis, KT, CT))
    return {};
  KT -= L.SizeMultiple;
  CT -= L.Offset;
  // As "p < T ? Below : Above" (p is in [0, n)).
  Value Below = TrueValue, Above = FalseValue;
  switch (Op) {
  case BO_LT:
    break;
  case BO_LE:
    ++CT;
    break;
  case BO_GT:
    ++CT;
    std::swap(Below, Above);
    break;
  case BO_GE:
    std::swap(Below, Above);
    break;
  case BO_EQ:
  case BO_NE:
    // p == 0 is p < 1; p == n - 1 is p >= n - 1.
    if (KT == 0 && CT == 0)
      CT = 1;
    else if (KT == 1 && CT == -1)
      std::swap(Below, Above);
    else
      return {};
    if (Op == BO_NE)
      std::swap(Below, Above);
    break;
  default:
    return {};
  }
  // Where the condition leaves p one value, a count is a position too:
  // `p == n - 1 ? 0 : p + 1` gives 0 = p - n + 1 where p is n - 1.
  auto AtPoint = [&](Value &V, int64_t KP, int64_t CP) {
    int64_t K, C;
    if (V.K != Value::Uniform || !sizeAndConstant(V.Count, L.Axis, K, C))
      return;
    V = Value::position(L.Axis, L.Base);
    V.SizeMultiple = K - KP;
    V.Offset = C - CP;
  };
  if (KT == 0 && CT == 1)
    AtPoint(Below, 0, 0);
  else if (KT == 1 && CT == -1)
    AtPoint(Above, 1, -1);
  for (const Value *V : {&Below, &Above})
    if (V->K != Value::Position || V->Loop || V->PermutedBy || V->Axis != L.Axis ||
        V->Base != L.Base)
      return {};
  // A rotation by c > 0 is p + c below n - c and p + c - n from there; by
  // c < 0, p + c + n below -c and p + c from there. (A mesh smaller than |c|
  // has no device at some of those ids: the kernel cannot run there.)
  bool Rotation = false;
  if (KT == 1 && CT < 0) {
    int64_t C = -CT;
    Rotation = Below.SizeMultiple == 0 && Below.Offset == C && Above.SizeMultiple == -1 &&
               Above.Offset == C;
  } else if (KT == 0 && CT > 0) {
    int64_t C = -CT;
    Rotation = Below.SizeMultiple == 1 && Below.Offset == C && Above.SizeMultiple == 0 &&
               Above.Offset == C;
  }
  if (!Rotation)
    return {};
  Value From = Below;
  From.SizeMultiple = From.Offset = 0;
  return Value::position(L.Axis, baseOf(Site, From));
}

Value Evaluator::writtenLocal(const VarDecl *V, const DeclRefExpr *Use, const Frame &F,
                              unsigned Depth) {
  if (V->isStaticLocal())
    return {};
  // Its declaration is a statement of a block around Use; every write is a
  // later statement of that block, before the statement that holds Use.
  const DeclStmt *Declaration = nullptr;
  const CompoundStmt *Block = nullptr;
  const Stmt *UseStatement = Use; // The statement of Block that holds Use.
  for (const Stmt *S = PM.getParent(Use); S; UseStatement = S, S = PM.getParent(S)) {
    const auto *Around = dyn_cast<CompoundStmt>(S);
    if (!Around)
      continue;
    for (const Stmt *Child : Around->body())
      if (const auto *DS = dyn_cast<DeclStmt>(Child); DS && llvm::is_contained(DS->decls(), V)) {
        Declaration = DS;
        Block = Around;
        break;
      }
    if (Declaration)
      break;
  }
  if (!Declaration)
    return {};
  // `int left, right;` declares more than one: none of their initialisers
  // may write V.
  for (const Decl *D : Declaration->decls())
    if (const auto *Other = dyn_cast<VarDecl>(D); Other && Other->getInit() &&
                                                  writtenIn(V, Other->getInit(), PM))
      return {};
  // The writes, in order; any write elsewhere leaves the value unknown.
  llvm::SmallVector<const Stmt *, 4> Writes;
  bool After = false, Done = false;
  for (const Stmt *S : Block->body()) {
    if (S == Declaration) {
      After = true;
      continue;
    }
    if (S == UseStatement)
      Done = true;
    if (!writtenIn(V, S, PM))
      continue;
    if (!After || Done)
      return {};
    Writes.push_back(S);
  }
  // Without an initialiser (`int left;`), the first write must give it a
  // value whatever it held: `if (c) left = a; else left = b;`.
  Value Current = V->getInit() ? eval(V->getInit(), F, Depth + 1) : Value();
  for (const Stmt *S : Writes) {
    Current = applyWrite(S, V, Current, F, Depth + 1);
    if (!Current.known())
      return {};
  }
  return Current;
}

Value Evaluator::applyWrite(const Stmt *S, const VarDecl *V, const Value &Old, const Frame &F,
                            unsigned Depth) {
  Frame Inner = F;
  Inner.Bindings[V] = Old;
  if (const auto *If = dyn_cast<IfStmt>(S)) {
    if (If->getInit() || If->getConditionVariable() || If->isConstexpr())
      return {};
    // Each arm one write of V (a block of one statement), or no else.
    auto Arm = [&](const Stmt *Branch) -> Value {
      if (const auto *Block = dyn_cast<CompoundStmt>(Branch)) {
        if (Block->size() != 1)
          return {};
        Branch = Block->body_front();
      }
      if (isa<IfStmt>(Branch))
        return {};
      return applyWrite(Branch, V, Old, F, Depth + 1);
    };
    Value New = Arm(If->getThen());
    Value Otherwise = If->getElse() ? Arm(If->getElse()) : Old;
    Value Cond = eval(If->getCond(), Inner, Depth + 1);
    if (std::optional<int64_t> C = Cond.constant())
      return *C ? New : Otherwise;
    return wrap(If->getCond(), Inner, Depth + 1, New, Otherwise, If);
  }
  const auto *E = dyn_cast<Expr>(S);
  if (!E)
    return {};
  E = E->IgnoreParenImpCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(E); UO && UO->isIncrementDecrementOp() &&
                                                   referencedVar(UO->getSubExpr()) == V)
    return add(Old, Value::uniform(SymbolicCount::constant(1)), UO->isDecrementOp());
  const auto *BO = dyn_cast<BinaryOperator>(E);
  if (!BO || !BO->isAssignmentOp() || referencedVar(BO->getLHS()) != V ||
      writtenIn(V, BO->getRHS(), PM))
    return {};
  Value RHS = eval(BO->getRHS(), Inner, Depth + 1);
  switch (BO->getOpcode()) {
  case BO_Assign:
    return RHS;
  case BO_AddAssign:
  case BO_SubAssign:
    return add(Old, RHS, BO->getOpcode() == BO_SubAssign);
  case BO_RemAssign:
    return remainder(Old, RHS, BO);
  default:
    return {};
  }
}

Value Evaluator::deviceId(const Expr *E, const Frame &F, unsigned Depth) {
  if (!E || Depth > MaxDepth)
    return {};
  if (const auto *DA = dyn_cast<CXXDefaultArgExpr>(E))
    E = DA->getExpr();
  E = stripWrappers(E);
  if (!E || E->isValueDependent() || E->isTypeDependent())
    return {};
  QualType T = E->getType();
  if (const auto *RD = T->getAsCXXRecordDecl();
      RD && RD->getIdentifier() && RD->getName() == "nullopt_t" && RD->isInStdNamespace())
    return Value::deviceId(Value::Self);
  if (T->isIntegralOrEnumerationType()) {
    Value V = eval(E, F, Depth + 1);
    return V.known() ? Value::deviceId(Value::Single, {V}) : Value();
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(E); UO && UO->getOpcode() == UO_AddrOf)
    return deviceId(UO->getSubExpr(), F, Depth + 1);
  // `right ? DeviceId{...} : DeviceId{...}` with the condition known here
  // (a helper's parameter bound to a constant).
  if (const auto *CO = dyn_cast<ConditionalOperator>(E)) {
    std::optional<int64_t> C = eval(CO->getCond(), F, Depth + 1).constant();
    if (!C)
      return {};
    return deviceId(*C ? CO->getTrueExpr() : CO->getFalseExpr(), F, Depth + 1);
  }
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
    if (isStdOptional(CE->getType()))
      return CE->getNumArgs() == 0 ? Value::deviceId(Value::Self)
                                   : deviceId(CE->getArg(CE->getNumArgs() - 1), F, Depth + 1);
    if (!Api.isDeviceIdType(CE->getType()) || CE->getNumArgs() != 1)
      return {};
    if (const auto *List = dyn_cast<CXXStdInitializerListExpr>(stripWrappers(CE->getArg(0)))) {
      const auto *Inits = dyn_cast<InitListExpr>(stripWrappers(List->getSubExpr()));
      if (!Inits)
        return {};
      std::vector<Value> Coordinates;
      for (const Expr *Init : Inits->inits()) {
        Coordinates.push_back(eval(Init, F, Depth + 1));
        if (!Coordinates.back().known())
          return {};
      }
      return Value::deviceId(Value::List, std::move(Coordinates));
    }
    return deviceId(CE->getArg(0), F, Depth + 1);
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    if (const FunctionDecl *Callee = Call->getDirectCallee();
        Callee && Callee->getIdentifier() && Callee->getName() == "make_optional" &&
        Callee->isInStdNamespace() && Call->getNumArgs() == 1)
      return deviceId(Call->getArg(0), F, Depth + 1);
    Value V = call(Call, F, Depth + 1, /*WantDeviceId=*/true);
    return V.K == Value::DeviceId ? V : Value();
  }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    Value V = variable(DRE, F, Depth + 1);
    return V.K == Value::DeviceId ? V : Value();
  }
  return {};
}

std::optional<LoopInfo> Evaluator::countLoop(const ForStmt *For) {
  const auto *Init = dyn_cast_or_null<DeclStmt>(For->getInit());
  const auto *Counter = Init && Init->isSingleDecl() ? dyn_cast<VarDecl>(Init->getSingleDecl())
                                                     : nullptr;
  if (!Counter || !Counter->getInit() || !Counter->getType()->isIntegralOrEnumerationType() ||
      For->getConditionVariable() || !For->getCond() || !For->getInc() ||
      writtenIn(Counter, For->getBody(), PM) || writtenIn(Counter, For->getCond(), PM))
    return std::nullopt;
  // The step: ++i, i++, i += 1, i = i + 1 (or the same downwards).
  std::optional<bool> Up;
  const Expr *Inc = For->getInc()->IgnoreParenImpCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(Inc);
      UO && UO->isIncrementDecrementOp() && referencedVar(UO->getSubExpr()) == Counter) {
    Up = UO->isIncrementOp();
  } else if (const auto *BO = dyn_cast<BinaryOperator>(Inc);
             BO && referencedVar(BO->getLHS()) == Counter) {
    std::optional<int64_t> Step;
    if (BO->getOpcode() == BO_AddAssign || BO->getOpcode() == BO_SubAssign) {
      Step = constantInt(BO->getRHS(), Ctx);
      if (Step && BO->getOpcode() == BO_SubAssign)
        Step = -*Step;
    } else if (BO->getOpcode() == BO_Assign) {
      const auto *Sum = dyn_cast<BinaryOperator>(BO->getRHS()->IgnoreParenImpCasts());
      if (Sum && (Sum->getOpcode() == BO_Add || Sum->getOpcode() == BO_Sub) &&
          referencedVar(Sum->getLHS()) == Counter) {
        Step = constantInt(Sum->getRHS(), Ctx);
        if (Step && Sum->getOpcode() == BO_Sub)
          Step = -*Step;
      }
    }
    if (Step && (*Step == 1 || *Step == -1))
      Up = *Step == 1;
  }
  if (!Up)
    return std::nullopt;
  const auto *Cond = dyn_cast<BinaryOperator>(bareInteger(For->getCond()));
  if (!Cond || !Cond->isComparisonOp())
    return std::nullopt;
  BinaryOperatorKind Op = Cond->getOpcode();
  const Expr *Bound = Cond->getRHS();
  if (referencedVar(Cond->getLHS()) != Counter) {
    if (referencedVar(Cond->getRHS()) != Counter)
      return std::nullopt;
    Bound = Cond->getLHS();
    Op = BinaryOperator::reverseComparisonOp(Op);
  }
  Value First = eval(Counter->getInit(), TopFrame, 0);
  Value Limit = eval(Bound, TopFrame, 0);
  if (First.K != Value::Uniform || Limit.K != Value::Uniform)
    return std::nullopt;
  LoopInfo L;
  L.Counter = Counter;
  L.Increasing = *Up;
  SymbolicCount Span;
  if (*Up && (Op == BO_LT || Op == BO_NE))
    Span = Limit.Count - First.Count;
  else if (*Up && Op == BO_LE)
    Span = Limit.Count - First.Count + SymbolicCount::constant(1);
  else if (!*Up && (Op == BO_GT || Op == BO_NE))
    Span = First.Count - Limit.Count;
  else if (!*Up && Op == BO_GE)
    Span = First.Count - Limit.Count + SymbolicCount::constant(1);
  else
    return std::nullopt;
  // A constant loop that would not run runs zero times; a symbolic one is
  // judged only where its count is provably not negative.
  if (std::optional<int64_t> C = Span.asConstant())
    Span = SymbolicCount::constant(std::max<int64_t>(*C, 0));
  L.Trip = Span;
  if (*Up)
    L.Least = First.constant();
  if (std::optional<unsigned> Atom = Limit.Count.asAtom();
      Atom && *Up && First.constant() == 0 && (Op == BO_LT || Op == BO_NE))
    if (auto It = AxisOfSizeAtom.find(*Atom); It != AxisOfSizeAtom.end())
      L.AllDevicesAxis = It->second;
  return L;
}

// ------------------------------------------------------------- scan ---

/// One signal or wait of the function.
struct BarrierCall {
  const CallExpr *Call = nullptr;
  bool Signal = false;
  const SemaphoreCallUse *Use = nullptr;
  bool InLambda = false;
  /// The lambda it is in, when in one (not in place) that is in none.
  const LambdaExpr *Lambda = nullptr;
  const Expr *SemaphoreArg = nullptr;
  std::optional<SemaphoreName> Name;
};

/// One walk of the body: the barrier calls, every mention of a variable, the
/// axis queries, the functions called, and whether there is a goto.
class BodyScan : public RecursiveASTVisitor<BodyScan> {
  using Base = RecursiveASTVisitor<BodyScan>;

public:
  BodyScan(const ApiIndex &Api, const ASTContext &Ctx) : Api(Api), Ctx(Ctx) {}
  bool shouldVisitTemplateInstantiations() const { return true; }

  bool TraverseLambdaExpr(LambdaExpr *L) {
    if (NeverRun.contains(L))
      return true; // `when(false, ...)`: none of its calls is made.
    // One that runs where it is written is the function's own code: a
    // region inside it is counted; one it would cut is not (RegionCounter
    // knows no lambda on the way).
    bool Lambda = !InPlace.contains(L);
    InLambda += Lambda;
    if (Lambda)
      Lambdas.push_back(L);
    bool Result = Base::TraverseLambdaExpr(L);
    if (Lambda)
      Lambdas.pop_back();
    InLambda -= Lambda;
    return Result;
  }
  // A variable named in a capture list (`[sem]`, `[&sem]`) is mentioned
  // where the body uses it, as with `[=]` or `[&]`.
  bool TraverseLambdaCapture(LambdaExpr *L, const LambdaCapture *C, Expr *Init) {
    if (C->capturesVariable() && !cast<VarDecl>(C->getCapturedVar())->isInitCapture())
      return true;
    return Base::TraverseLambdaCapture(L, C, Init);
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *Call) {
    // Visited before its callee: `barrier()` of a local lambda.
    if (Call->getOperator() == OO_Call && Call->getNumArgs() > 0 && InLambda == 0)
      if (const auto *DRE = dyn_cast<DeclRefExpr>(Call->getArg(0)->IgnoreParenImpCasts())) {
        Callees.insert(DRE);
        CallOf[DRE] = Call;
      }
    return true;
  }
  bool VisitVarDecl(VarDecl *V) {
    if (const Expr *Init = V->getInit())
      if (const auto *L = dyn_cast<LambdaExpr>(stripWrappers(Init)))
        Holders[L] = V->getCanonicalDecl();
    return true;
  }

  /// The lambdas a local of the function (\p FD) holds and the function's
  /// own code (no lambda's) only calls, at least once, and in no other
  /// lambda: the barrier calls in one are the function's own code at each
  /// call, so a region in its body is counted (each call runs it whole);
  /// one it would cut is not (RegionCounter knows no lambda on the way).
  llvm::SmallPtrSet<const LambdaExpr *, 2> onlyCalledLambdas(const FunctionDecl &FD) const {
    llvm::SmallPtrSet<const LambdaExpr *, 2> Out;
    for (const BarrierCall &C : Calls) {
      const VarDecl *Holder = C.Lambda ? Holders.lookup(C.Lambda) : nullptr;
      // A generic one's pattern hides the calls whose arguments depend on
      // its parameters.
      if (!Holder || C.Lambda->getLambdaClass()->isGenericLambda() || Holder->getDeclContext() != &FD || !Holder->isLocalVarDecl() ||
          Holder->isStaticLocal() || Holder->getType()->isReferenceType())
        continue;
      auto It = Mentions.find(Holder);
      if (It != Mentions.end() && !It->second.empty() &&
          llvm::all_of(It->second, [&](const DeclRefExpr *M) { return Callees.contains(M); }))
        Out.insert(C.Lambda);
    }
    return Out;
  }
  /// The integer parameters of the lambdas in \p Lambdas (each one
  /// onlyCalledLambdas gives) that every call passes as the same constant.
  llvm::DenseMap<const ParmVarDecl *, int64_t>
  constantArguments(const llvm::SmallPtrSetImpl<const LambdaExpr *> &Lambdas) const {
    llvm::DenseMap<const ParmVarDecl *, int64_t> Out;
    for (const LambdaExpr *L : Lambdas) {
      const CXXMethodDecl *Op = L->getCallOperator();
      auto It = Mentions.find(Holders.lookup(L));
      if (It == Mentions.end())
        continue;
      for (unsigned I = 0; I < Op->getNumParams(); ++I) {
        std::optional<int64_t> Same;
        bool One = true;
        for (const DeclRefExpr *M : It->second) {
          const CXXOperatorCallExpr *Call = CallOf.lookup(M);
          std::optional<int64_t> K = Call && I + 1 < Call->getNumArgs()
                                         ? constantInt(Call->getArg(I + 1), Ctx)
                                         : std::nullopt;
          if (!K || (Same && *Same != *K)) {
            One = false;
            break;
          }
          Same = K;
        }
        if (One && Same)
          Out[Op->getParamDecl(I)] = *Same;
      }
    }
    return Out;
  }
  bool VisitCallExpr(CallExpr *Call) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    unsigned Before = InPlace.size();
    addInPlaceLambdas(*Call, InPlace); // Met before its arguments.
    if (InPlace.size() != Before) {
      llvm::ArrayRef<const Expr *> Args = parameterArguments(*Call);
      for (unsigned I = 0; I < Args.size(); ++I)
        if (std::optional<bool> Runs = runsInPlace(Callee, Args, I, Ctx); Runs && !*Runs)
          NeverRun.insert(cast<LambdaExpr>(stripWrappers(Args[I])));
    }
    if (!Callee)
      return true;
    if (!Api.mayName(Callee)) {
      Called.insert(Callee);
      return true;
    }
    const LambdaExpr *Within = InLambda == 1 ? Lambdas.back() : nullptr;
    if (const SemaphoreCallUse *Use = Api.semaphoreSignalOf(Callee))
      Calls.push_back({Call, true, Use, InLambda > 0, Within});
    else if (const SemaphoreCallUse *Use = Api.semaphoreWaitOf(Callee))
      Calls.push_back({Call, false, Use, InLambda > 0, Within});
    else if (Api.axisQueryOf(Callee) != AxisQuery::None)
      AxisQueries.push_back(Call);
    else
      Called.insert(Callee);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *DRE) {
    if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
      Mentions[V->getCanonicalDecl()].push_back(DRE);
    return true;
  }
  bool VisitMemberExpr(MemberExpr *ME) {
    if (const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl()))
      FieldMentions[F->getCanonicalDecl()].push_back(ME);
    return true;
  }
  bool VisitGotoStmt(GotoStmt *) { return !(HasGoto = true); }
  bool VisitIndirectGotoStmt(IndirectGotoStmt *) { return !(HasGoto = true); }

  std::vector<BarrierCall> Calls;
  std::vector<const CallExpr *> AxisQueries;
  llvm::SetVector<const FunctionDecl *> Called;
  llvm::DenseMap<const VarDecl *, std::vector<const DeclRefExpr *>> Mentions;
  /// The mentions of members (`s.barrier`).
  llvm::DenseMap<const FieldDecl *, std::vector<const MemberExpr *>> FieldMentions;
  bool HasGoto = false;
  /// The lambdas whose barrier calls are counted (onlyCalledLambdas).
  llvm::SmallPtrSet<const LambdaExpr *, 2> Counted;

private:
  const ApiIndex &Api;
  const ASTContext &Ctx;
  unsigned InLambda = 0;
  llvm::SmallPtrSet<const LambdaExpr *, 4> InPlace, NeverRun;
  llvm::SmallVector<const LambdaExpr *, 2> Lambdas; ///< The walk's, innermost last.
  llvm::DenseMap<const LambdaExpr *, const VarDecl *> Holders;
  /// Callees of calls in the function's own code (`barrier` of `barrier()`).
  llvm::DenseSet<const DeclRefExpr *> Callees;
  llvm::DenseMap<const DeclRefExpr *, const CXXOperatorCallExpr *> CallOf; ///< Of each callee.
};

/// The axis queries of the functions a function calls, directly or not
/// (their axes named by a constant: a query of a parameter asks about what
/// the caller passes, which the caller's own queries name).
class CalleeAxes : public RecursiveASTVisitor<CalleeAxes> {
public:
  CalleeAxes(const ApiIndex &Api, const SourceManager &SM, llvm::StringSet<> &Axes)
      : Api(Api), SM(SM), Axes(Axes) {}

  /// Reads the bodies of \p Callees and of what they call, up to a bound.
  void scan(llvm::ArrayRef<const FunctionDecl *> Callees) {
    for (const FunctionDecl *Callee : Callees)
      enqueue(Callee);
    for (size_t I = 0; I < Queue.size() && I < MaxFunctions; ++I)
      TraverseStmt(Queue[I]->getBody());
  }

  bool VisitCallExpr(CallExpr *Call) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee)
      return true;
    if (Api.axisQueryOf(Callee) == AxisQuery::None) {
      enqueue(Callee);
      return true;
    }
    if (Call->getNumArgs() == 0) {
      Axes.insert("");
      return true;
    }
    const Expr *Arg = Call->getArg(0)->IgnoreParenImpCasts();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(Arg))
      if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
          V && !V->hasLocalStorage() && V->getInit() &&
          (V->isConstexpr() || V->getType().isConstQualified()))
        Arg = V->getInit()->IgnoreParenImpCasts();
    if (const auto *SL = dyn_cast<StringLiteral>(Arg); SL && SL->getCharByteWidth() == 1)
      Axes.insert(SL->getString());
    return true;
  }

private:
  static constexpr size_t MaxFunctions = 64;
  void enqueue(const FunctionDecl *Callee) {
    const FunctionDecl *Def = Callee->getDefinition();
    if (Def && Def->hasBody() && !SM.isInSystemHeader(SM.getExpansionLoc(Def->getLocation())) &&
        Seen.insert(Def).second)
      Queue.push_back(Def);
  }

  const ApiIndex &Api;
  const SourceManager &SM;
  llvm::StringSet<> &Axes;
  llvm::DenseSet<const FunctionDecl *> Seen;
  std::vector<const FunctionDecl *> Queue;
};

// ------------------------------------------------------------ counting ---

/// How often one call runs in one run of its region, and the loops on the way.
struct PathCount {
  SymbolicCount Runs = SymbolicCount::constant(1);
  llvm::SmallVector<std::pair<const ForStmt *, SymbolicCount>, 2> Factors;
  /// A range-for over a braced list on the way (`for (int peer : {left,
  /// right})`): it runs once per element, with its variable bound to it.
  const CXXForRangeStmt *OverList = nullptr;
};

/// The elements of the braced list \p For runs over, when it runs over one
/// and its variable is an integer it never writes (by value or const
/// reference).
std::optional<llvm::ArrayRef<const Expr *>> listElements(const CXXForRangeStmt *For,
                                                         const UnwrittenVariables &Vars) {
  const VarDecl *Var = For->getLoopVariable();
  if (!Var || !Var->getType().getNonReferenceType()->isIntegralOrEnumerationType() ||
      (Var->getType()->isReferenceType() &&
       !Var->getType().getNonReferenceType().isConstQualified()) ||
      !Vars.unwritten(Var))
    return std::nullopt;
  const auto *List = dyn_cast_or_null<CXXStdInitializerListExpr>(stripWrappers(For->getRangeInit()));
  const auto *Inits = List ? dyn_cast<InitListExpr>(stripWrappers(List->getSubExpr())) : nullptr;
  if (!Inits || Inits->getNumInits() == 0)
    return std::nullopt;
  return llvm::ArrayRef<const Expr *>(Inits->getInits(), Inits->getNumInits());
}

/// A loop over every device of an axis that skips the device itself, or
/// runs something only for it: `d != me` / `d == me`.
struct SelfTest {
  const ForStmt *Loop = nullptr;
  bool Equal = false; ///< `d == me`.
};

class RegionCounter {
public:
  RegionCounter(Evaluator &Eval, const ParentMap &PM, ASTContext &Ctx,
                const UnwrittenVariables &Vars)
      : Eval(Eval), PM(PM), Ctx(Ctx), Vars(Vars) {}

  /// How often \p Call runs per run of \p Region, an ancestor of it.
  std::optional<PathCount> count(const Stmt *Call, const Stmt *Region);
  /// True when nothing in \p Region can leave it, or skip to another
  /// iteration of a loop on the way to a call, between the first and the last
  /// of \p Calls.
  bool noEarlyExit(const Stmt *Region, llvm::ArrayRef<const Stmt *> Calls);

  /// The symbolic iteration counts that count() multiplied by: each must
  /// be provably not negative for the counts to be exact.
  std::vector<SymbolicCount> SymbolicTrips;

private:
  std::optional<SelfTest> selfTest(const Expr *Cond);
  /// `if (d == me) continue;` in the body of \p Loop over every device.
  const ContinueStmt *skipsItself(const Stmt *S, const ForStmt *Loop);
  /// \p Block is the body of this loop.
  const ForStmt *loopOfBody(const CompoundStmt *Block) const {
    const auto *For = dyn_cast_or_null<ForStmt>(PM.getParent(Block));
    return For && For->getBody() == Block ? For : nullptr;
  }
  /// \p Later comes after \p Earlier in the block where their paths to
  /// \p Region meet (false when they meet anywhere but in a block).
  bool comesAfter(const Stmt *Later, const Stmt *Earlier, const Stmt *Region) const;

  Evaluator &Eval;
  const ParentMap &PM;
  ASTContext &Ctx;
  const UnwrittenVariables &Vars;
  llvm::DenseSet<const Stmt *> RecognisedSkips;
};

std::optional<SelfTest> RegionCounter::selfTest(const Expr *Cond) {
  const auto *Cmp = dyn_cast_or_null<BinaryOperator>(bareInteger(Cond));
  if (!Cmp || (Cmp->getOpcode() != BO_EQ && Cmp->getOpcode() != BO_NE))
    return std::nullopt;
  Value L = Eval.eval(Cmp->getLHS()), R = Eval.eval(Cmp->getRHS());
  if (R.K == Value::Counter)
    std::swap(L, R);
  // The counter runs over every device of the axis and the other side is a
  // bijection onto them: exactly one iteration tests equal.
  if (L.K != Value::Counter || !L.AllDevices || !R.isPermutation() || R.Axis != L.Axis)
    return std::nullopt;
  return SelfTest{L.Loop, Cmp->getOpcode() == BO_EQ};
}

const ContinueStmt *RegionCounter::skipsItself(const Stmt *S, const ForStmt *Loop) {
  const auto *If = dyn_cast<IfStmt>(S);
  if (!If || If->getElse() || If->getInit() || If->getConditionVariable() || If->isConstexpr())
    return nullptr;
  const Stmt *Then = If->getThen();
  if (const auto *Block = dyn_cast<CompoundStmt>(Then); Block && Block->size() == 1)
    Then = Block->body_front();
  const auto *Continue = dyn_cast<ContinueStmt>(Then);
  if (!Continue)
    return nullptr;
  std::optional<SelfTest> Test = selfTest(If->getCond());
  if (!Test || !Test->Equal || Test->Loop != Loop)
    return nullptr;
  return Continue;
}

std::optional<PathCount> RegionCounter::count(const Stmt *Call, const Stmt *Region) {
  PathCount Out;
  // A test of the device itself on the way, applied at its loop: the branch
  // for every other device runs n - 1 times, the one for itself once.
  struct Skip {
    const ForStmt *Loop;
    bool Others;
  };
  std::optional<Skip> Pending;
  for (const Stmt *Child = Call; Child != Region;) {
    const Stmt *Parent = PM.getParent(Child);
    if (!Parent)
      return std::nullopt;
    // Between a self test and its loop there are only blocks.
    if (Pending && !isa<CompoundStmt>(Parent) && Parent != Pending->Loop)
      return std::nullopt;
    if (const auto *Block = dyn_cast<CompoundStmt>(Parent)) {
      if (const ForStmt *Loop = loopOfBody(Block))
        for (const Stmt *S : Block->body()) {
          if (S == Child)
            break;
          if (const ContinueStmt *Continue = skipsItself(S, Loop)) {
            if (Pending)
              return std::nullopt;
            Pending = Skip{Loop, true};
            RecognisedSkips.insert(Continue);
          }
        }
    } else if (const auto *If = dyn_cast<IfStmt>(Parent)) {
      if (Child != If->getThen() && Child != If->getElse())
        return std::nullopt;
      if (If->getInit() || If->getConditionVariable())
        return std::nullopt;
      bool InThen = Child == If->getThen();
      Value Cond = Eval.eval(If->getCond());
      if (std::optional<int64_t> C = Cond.constant()) {
        if ((*C != 0) != InThen)
          Out.Runs = SymbolicCount(); // The branch that never runs.
      } else if (std::optional<SelfTest> Test = selfTest(If->getCond())) {
        if (Pending)
          return std::nullopt;
        Pending = Skip{Test->Loop, Test->Equal != InThen};
      } else {
        return std::nullopt;
      }
    } else if (const auto *For = dyn_cast<ForStmt>(Parent)) {
      if (Child != For->getBody())
        return std::nullopt;
      const std::optional<LoopInfo> &L = Eval.loop(For);
      if (!L)
        return std::nullopt;
      SymbolicCount Factor = L->Trip;
      if (Pending) {
        Factor = Pending->Others ? L->Trip - SymbolicCount::constant(1)
                                 : SymbolicCount::constant(1);
        Pending.reset();
      }
      if (!L->Trip.asConstant())
        SymbolicTrips.push_back(L->Trip);
      Out.Runs = Out.Runs * Factor;
      Out.Factors.push_back({For, Factor});
    } else if (const auto *Range = dyn_cast<CXXForRangeStmt>(Parent)) {
      std::optional<llvm::ArrayRef<const Expr *>> Elements = listElements(Range, Vars);
      if (Child != Range->getBody() || !Elements || Out.OverList || Pending)
        return std::nullopt;
      Out.OverList = Range;
      Out.Runs = Out.Runs * SymbolicCount::constant(int64_t(Elements->size()));
    } else if (const auto *Do = dyn_cast<DoStmt>(Parent)) {
      // do { ... } while (0): the body of a statement-like macro.
      std::optional<int64_t> C = constantInt(Do->getCond(), Ctx);
      if (Child != Do->getBody() || !C || *C != 0)
        return std::nullopt;
    } else if (const auto *BO = dyn_cast<BinaryOperator>(Parent)) {
      if (BO->getOpcode() != BO_Comma)
        return std::nullopt;
    } else if (const auto *Cast = dyn_cast<ExplicitCastExpr>(Parent)) {
      if (!Cast->getType()->isVoidType())
        return std::nullopt;
    } else if (!isa<AttributedStmt, ExprWithCleanups, ParenExpr, ImplicitCastExpr, DeclStmt>(
                   Parent)) {
      return std::nullopt;
    }
    Child = Parent;
  }
  if (Pending)
    return std::nullopt;
  return Out;
}

bool RegionCounter::comesAfter(const Stmt *Later, const Stmt *Earlier,
                               const Stmt *Region) const {
  llvm::SmallVector<const Stmt *, 8> LaterPath, EarlierPath;
  for (const Stmt *S = Later; S && S != Region; S = PM.getParent(S))
    LaterPath.push_back(S);
  for (const Stmt *S = Earlier; S && S != Region; S = PM.getParent(S))
    EarlierPath.push_back(S);
  LaterPath.push_back(Region);
  EarlierPath.push_back(Region);
  // Walk down from the region while the paths agree.
  size_t I = LaterPath.size(), J = EarlierPath.size();
  while (I > 1 && J > 1 && LaterPath[I - 2] == EarlierPath[J - 2]) {
    --I;
    --J;
  }
  if (I < 2 || J < 2)
    return false; // One holds the other.
  const auto *Block = dyn_cast<CompoundStmt>(LaterPath[I - 1]);
  if (!Block)
    return false;
  const Stmt *L = LaterPath[I - 2], *E = EarlierPath[J - 2];
  for (const Stmt *S : Block->body()) {
    if (S == E)
      return true; // E first, then L.
    if (S == L)
      return false;
  }
  return false;
}

bool RegionCounter::noEarlyExit(const Stmt *Region, llvm::ArrayRef<const Stmt *> Calls) {
  // The statements that hold a call.
  llvm::DenseSet<const Stmt *> HoldCalls;
  for (const Stmt *Call : Calls)
    for (const Stmt *S = Call; S && S != Region; S = PM.getParent(S))
      HoldCalls.insert(S);
  // A jump after every call, in no loop that holds one, leaves the region
  // only once all its calls ran.
  auto AfterAll = [&](const Stmt *Jump) {
    for (const Stmt *S = PM.getParent(Jump); S && S != Region; S = PM.getParent(S))
      if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S) && HoldCalls.contains(S))
        return false;
    return llvm::all_of(Calls, [&](const Stmt *Call) { return comesAfter(Jump, Call, Region); });
  };
  bool Harmless = true;
  std::function<void(const Stmt *)> Visit = [&](const Stmt *S) {
    if (!S || !Harmless || isa<LambdaExpr, BlockExpr>(S))
      return;
    if (isa<CXXThrowExpr, GotoStmt, IndirectGotoStmt, CoreturnStmt, CoyieldExpr>(S)) {
      Harmless = false;
      return;
    }
    if (isa<ReturnStmt>(S)) {
      Harmless = AfterAll(S);
      return;
    }
    if (isa<BreakStmt, ContinueStmt>(S)) {
      // Its target: the innermost loop (or, for break, switch) around it.
      const Stmt *Target = nullptr;
      for (const Stmt *P = PM.getParent(S); P && !Target; P = PM.getParent(P)) {
        if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(P) ||
            (isa<BreakStmt>(S) && isa<SwitchStmt>(P)))
          Target = P;
        if (P == Region)
          break;
      }
      bool InsideRegion = false;
      for (const Stmt *P = Target; P; P = PM.getParent(P))
        if (P == Region) {
          InsideRegion = Target != Region;
          break;
        }
      if (InsideRegion)
        Harmless = !HoldCalls.contains(Target) || RecognisedSkips.contains(S);
      else
        Harmless = AfterAll(S);
      return;
    }
    for (const Stmt *Child : S->children())
      Visit(Child);
  };
  Visit(Region);
  return Harmless;
}

// ------------------------------------------------------------ judging ---

/// What a semaphore may add to another it may be: the difference of its
/// signals and waits in this function.
enum class Contribution { Zero, Positive, Negative, NotNegative, NotPositive, Any };

Contribution ofSign(CountSign Sign) {
  switch (Sign) {
  case CountSign::Zero:
    return Contribution::Zero;
  case CountSign::Positive:
    return Contribution::Positive;
  case CountSign::Negative:
    return Contribution::Negative;
  case CountSign::Unknown:
    return Contribution::Any;
  }
  return Contribution::Any;
}

/// The semaphores of one root that are provably one (indices the same).
struct Unit {
  const ValueDecl *Root = nullptr;
  std::vector<const BarrierCall *> Calls;
  std::optional<BarrierBalance> Balance;
  /// RegionCounter::SymbolicTrips[TripsBegin, TripsEnd): its loops.
  size_t TripsBegin = 0, TripsEnd = 0;
};

class Judge {
public:
  /// With \p CallerMayUse null, a parameter is judged as if no function of
  /// the translation unit called this one, and askedCaller() says whether
  /// that mattered.
  Judge(const FunctionDecl &FD, ASTContext &Ctx, const ApiIndex &Api,
        llvm::function_ref<bool(const ParmVarDecl &)> CallerMayUse, BodyScan &Scan)
      : Ctx(Ctx), Api(Api), CallerMayUse(CallerMayUse), Scan(Scan),
        Vars(AnalysisCache::current().variables(FD, Api)),
        PM(const_cast<Stmt *>(FD.getBody())), Atoms(std::make_shared<AtomTable>()),
        Eval(FD, Ctx, Api, Vars, PM, *Atoms), Counter(Eval, PM, Ctx, Vars) {
    for (const LambdaExpr *L : Scan.Counted)
      Eval.countLambda(*L->getCallOperator());
    Eval.passConstants(Scan.constantArguments(Scan.Counted));
  }

  std::vector<BarrierBalance> run();
  bool askedCaller() const { return AskedCaller; }

private:
  /// Whether \p Root may be judged at all (where it lives, who mentions it).
  bool judgeable(const ValueDecl *Root);
  /// Every mention of \p S (a DeclRefExpr) is in the semaphore argument of
  /// a barrier call, or in the initialiser of a local that is only that.
  bool onlyBarrierArgument(const Stmt *S, unsigned Depth);
  void count(Unit &U);
  /// The source of \p Signal's signals, and the loop over every device that
  /// it signals, if it does.
  /// Where \p Signal sends, with \p Var bound to \p Init when given.
  /// Where a signal's target comes from, and the loops whose iterations
  /// pick it (a loop over every device of an axis, one per such coordinate:
  /// nested loops over a mesh; or the loop that rotates a neighbour).
  using SignalFrom = std::pair<SignalSource, llvm::SmallVector<const ForStmt *, 2>>;
  std::optional<SignalFrom> sourceOf(const BarrierCall &Signal, const VarDecl *Var = nullptr,
                                 const Expr *Init = nullptr);
  static Contribution contributionOf(const Unit &U, const AtomTable &Atoms);

  ASTContext &Ctx;
  const ApiIndex &Api;
  llvm::function_ref<bool(const ParmVarDecl &)> CallerMayUse;
  BodyScan &Scan;
  const UnwrittenVariables &Vars; ///< Shared with the other protocol checks.
  ParentMap PM;
  std::shared_ptr<AtomTable> Atoms;
  Evaluator Eval;
  RegionCounter Counter;
  llvm::DenseSet<const Stmt *> BarrierArguments;
  llvm::StringSet<> Axes;
  bool AxesKnown = true;
  bool AskedCaller = false;
};

bool Judge::onlyBarrierArgument(const Stmt *S, unsigned Depth) {
  for (const Stmt *P = S; P; P = PM.getParent(P)) {
    if (BarrierArguments.contains(P))
      return true;
    if (isa<LambdaExpr, BlockExpr>(P))
      return false;
    if (const auto *DS = dyn_cast<DeclStmt>(P)) {
      // `Semaphore s = sems[0];`: the semaphore model follows s to sems[0]
      // when s is never written; then s's own mentions count.
      const auto *V = DS->isSingleDecl() ? dyn_cast<VarDecl>(DS->getSingleDecl()) : nullptr;
      if (!V || !V->isLocalVarDecl() || V->isStaticLocal() || !Vars.unwritten(V) || Depth > 4)
        return false;
      auto It = Scan.Mentions.find(V->getCanonicalDecl());
      if (It == Scan.Mentions.end())
        return true;
      return llvm::all_of(It->second, [&](const DeclRefExpr *Use) {
        return onlyBarrierArgument(Use, Depth + 1);
      });
    }
    if (!isa<Expr>(P))
      return false; // Reached a statement: the mention was something else.
  }
  return false;
}

bool Judge::judgeable(const ValueDecl *Root) {
  // A member of a parameter or local (`s.barrier` of `Sems &s`, or
  // `c.sync.barrier` of `const Ctx &c`) is judged as that variable is, when
  // the function names the variable (and each member on the way) only to
  // reach its members; a member of `*this` is not.
  const auto *F = dyn_cast_or_null<FieldDecl>(Root);
  const auto *V = F ? Vars.holdingVariable(F) : dyn_cast_or_null<VarDecl>(Root);
  if (!V || !V->hasLocalStorage() || V->isStaticLocal())
    return false; // Members and globals: other functions may signal or wait them.
  if (F && Vars.mentionedWhole(V))
    return false;
  if (const auto *Param = dyn_cast<ParmVarDecl>(V)) {
    if (!CallerMayUse)
      AskedCaller = true; // Judged as if uncalled: the caller says.
    else if (CallerMayUse(*Param))
      return false; // The caller may signal or wait what it passes.
  }
  if (F) {
    auto It = Scan.FieldMentions.find(F->getCanonicalDecl());
    return It != Scan.FieldMentions.end() &&
           llvm::all_of(It->second,
                        [&](const MemberExpr *Use) { return onlyBarrierArgument(Use, 0); });
  }
  auto It = Scan.Mentions.find(V->getCanonicalDecl());
  if (It == Scan.Mentions.end())
    return false;
  return llvm::all_of(It->second,
                      [&](const DeclRefExpr *Use) { return onlyBarrierArgument(Use, 0); });
}

std::optional<Judge::SignalFrom> Judge::sourceOf(const BarrierCall &Signal, const VarDecl *Var,
                                             const Expr *Init) {
  using Result = SignalFrom;
  const DeviceIdUse *Use = Api.deviceIdUseOf(Signal.Call->getDirectCallee());
  if (!Use)
    return Result{SignalSource::Itself, {}}; // The API signals only locally.
  DeviceIdArguments Args = deviceIdArguments(Signal.Call, Api);
  if (!Args.Id || !Args.Kind)
    return std::nullopt;
  Value Id = Var ? Eval.deviceIdWith(Args.Id, Var, Init) : Eval.deviceId(Args.Id);
  if (Id.K != Value::DeviceId)
    return std::nullopt;
  if (Id.Shape == Value::Self)
    return Result{SignalSource::Itself, {}};
  std::optional<DeviceIdKind> Kind = deviceIdKind(Args.Kind, Api, Ctx);
  if (!Kind || (Id.Shape == Value::List && *Kind != DeviceIdKind::Mesh) || !AxesKnown)
    return std::nullopt;
  // Each coordinate a bijection of the device's own coordinate on its own
  // axis, or the counter of a loop over every device of it (of several
  // nested loops, one per axis: every device of a mesh); together all the
  // axes the kernel uses (else the id names a part of a larger mesh).
  llvm::StringSet<> IdAxes;
  llvm::SmallVector<const ForStmt *, 2> Every;
  const ForStmt *Rotating = nullptr;
  bool AllOwn = true;
  for (const Value &C : Id.Coordinates) {
    if (C.isPermutation()) {
      AllOwn &= C.isOwnIndex();
    } else if (C.K == Value::Counter && C.AllDevices && !Rotating &&
               !llvm::is_contained(Every, C.Loop)) {
      Every.push_back(C.Loop);
      AllOwn = false;
    } else if (C.K == Value::Position && C.PermutedBy && !C.Loop && C.SizeMultiple == 0 &&
               C.Offset == 0 && Every.empty() && !Rotating) {
      Rotating = C.PermutedBy;
      AllOwn = false;
    } else {
      return std::nullopt;
    }
    if (!IdAxes.insert(C.Axis).second)
      return std::nullopt;
  }
  auto Covers = [&](const llvm::StringSet<> &Used) {
    return llvm::all_of(Used, [&](const auto &Axis) { return IdAxes.contains(Axis.getKey()); });
  };
  if (!Covers(Axes) || !Covers(Eval.helperAxes()))
    return std::nullopt;
  if (AllOwn)
    return Result{SignalSource::Itself, {}};
  if (!Every.empty())
    return Result{SignalSource::EveryDevice, Every};
  if (Rotating)
    return Result{SignalSource::NeighbourPerIteration, {Rotating}};
  return Result{SignalSource::Neighbour, {}};
}

void Judge::count(Unit &U) {
  if (llvm::any_of(U.Calls, [](const BarrierCall *C) { return C->InLambda; }))
    return;
  bool AnySignal = false, AnyWait = false;
  for (const BarrierCall *C : U.Calls)
    (C->Signal ? AnySignal : AnyWait) = true;
  if (!AnySignal || !AnyWait)
    return; // A handshake with another function or grid step.
  // The region: the innermost block that holds every call.
  llvm::SmallVector<const Stmt *, 16> FirstPath;
  llvm::DenseMap<const Stmt *, unsigned> Height;
  for (const Stmt *S = U.Calls.front()->Call; S; S = PM.getParent(S)) {
    Height[S] = FirstPath.size();
    FirstPath.push_back(S);
  }
  unsigned Top = 0;
  for (const BarrierCall *C : U.Calls) {
    const Stmt *S = C->Call;
    while (S && !Height.count(S))
      S = PM.getParent(S);
    if (!S)
      return;
    Top = std::max(Top, Height[S]);
  }
  const Stmt *Common = FirstPath[Top];
  while (Common && !isa<CompoundStmt>(Common))
    Common = PM.getParent(Common);
  if (!Common)
    return;
  BarrierBalance B;
  B.Atoms = Atoms;
  B.Received = B.Waited = SymbolicCount();
  for (const BarrierCall *C : U.Calls) {
    std::optional<PathCount> Runs = Counter.count(C->Call, Common);
    if (!Runs)
      return;
    SymbolicCount Amount = SymbolicCount::constant(1);
    if (C->Use->AmountParam != NoPosition) {
      llvm::SmallVector<const Expr *, 8> Args = callArguments(C->Call);
      if (C->Use->AmountParam >= Args.size())
        return;
      Value V = Eval.eval(Args[C->Use->AmountParam]);
      if (V.K != Value::Uniform)
        return;
      Amount = V.Count;
    }
    if (!C->Signal) {
      B.Waits.push_back({C->Call, Amount * Runs->Runs});
      B.Waited = B.Waited + B.Waits.back().Total;
      // A wait takes at least one signal: `wait(sem, n)` says n >= 1.
      if (std::optional<SymbolicCount::Linear> L = Amount.asLinear(); L && L->Coefficient > 0) {
        int64_t Rest = 1 - L->Constant, K = L->Coefficient; // atom >= ceil(Rest / K)
        Atoms->boundBelow(L->Atom, Rest >= 0 ? (Rest + K - 1) / K : -(-Rest / K));
      }
      continue;
    }
    std::optional<SignalFrom> Source;
    int64_t ListSize = 0;
    if (const CXXForRangeStmt *Range = Runs->OverList) {
      // Each element of the list picks a source, all of one kind and none
      // by a loop of its own.
      llvm::ArrayRef<const Expr *> Elements = *listElements(Range, Vars);
      for (const Expr *Element : Elements) {
        auto One = sourceOf(*C, Range->getLoopVariable(), Element);
        if (!One || !One->second.empty() || (Source && Source->first != One->first))
          return;
        Source = One;
      }
      ListSize = int64_t(Elements.size());
    } else {
      Source = sourceOf(*C);
    }
    if (!Source)
      return;
    BarrierSignal S;
    S.Call = C->Call;
    S.Source = Source->first;
    S.PerSource = Amount;
    S.Sources = SymbolicCount::constant(1);
    // The list's elements: so many neighbours, or so many signals to itself.
    if (ListSize && S.Source == SignalSource::Neighbour)
      S.Sources = SymbolicCount::constant(ListSize);
    else if (ListSize)
      S.PerSource = S.PerSource * SymbolicCount::constant(ListSize);
    const llvm::SmallVector<const ForStmt *, 2> &SourceLoops = Source->second;
    unsigned FoundLoops = 0;
    for (auto &[Loop, Factor] : Runs->Factors) {
      if (!llvm::is_contained(SourceLoops, Loop)) {
        S.PerSource = S.PerSource * Factor;
        continue;
      }
      // The loops that pick the source: their iterations are the sources,
      // each loop in full. (Skipping the device itself skips a different
      // rotation on each device: only a single loop over every device may.)
      const std::optional<LoopInfo> &L = Eval.loop(Loop);
      S.Sources = FoundLoops++ == 0 ? Factor : S.Sources * Factor;
      if (SourceLoops.size() == 1 && Factor == L->Trip - SymbolicCount::constant(1) &&
          S.Source == SignalSource::EveryDevice)
        S.Source = SignalSource::EveryOtherDevice;
      else if (Factor != L->Trip)
        return;
    }
    if (FoundLoops != SourceLoops.size())
      return;
    S.Received = S.PerSource * S.Sources;
    B.Received = B.Received + S.Received;
    B.Signals.push_back(std::move(S));
  }
  llvm::SmallVector<const Stmt *, 8> Calls;
  for (const BarrierCall *C : U.Calls)
    Calls.push_back(C->Call);
  if (!Counter.noEarlyExit(Common, Calls))
    return;
  for (const BarrierCall *C : llvm::reverse(U.Calls))
    if (!C->Signal) {
      B.Semaphore = C->SemaphoreArg;
      break;
    }
  U.Balance = std::move(B);
}

Contribution Judge::contributionOf(const Unit &U, const AtomTable &Atoms) {
  if (U.Balance)
    return ofSign(signOf(U.Balance->Received - U.Balance->Waited, Atoms));
  bool AnySignal = false, AnyWait = false;
  for (const BarrierCall *C : U.Calls)
    (C->Signal ? AnySignal : AnyWait) = true;
  if (AnySignal && AnyWait)
    return Contribution::Any;
  return AnySignal ? Contribution::NotNegative : Contribution::NotPositive;
}

std::vector<BarrierBalance> Judge::run() {
  // The axes the kernel uses: its own queries and those of its helpers.
  for (const CallExpr *Query : Scan.AxisQueries) {
    if (Query->getNumArgs() == 0) {
      Axes.insert("");
      continue;
    }
    Value Name = Eval.eval(Query->getArg(0));
    if (Name.K != Value::AxisName)
      AxesKnown = false;
    else
      Axes.insert(Name.Axis);
  }
  CalleeAxes(Api, Ctx.getSourceManager(), Axes).scan(Scan.Called.getArrayRef());

  for (BarrierCall &C : Scan.Calls) {
    llvm::SmallVector<const Expr *, 8> Args = callArguments(C.Call);
    if (C.Use->SemaphoreParam < Args.size()) {
      C.SemaphoreArg = Args[C.Use->SemaphoreParam];
      if (!C.InLambda)
        BarrierArguments.insert(C.SemaphoreArg);
      C.Name = semaphoreName(C.SemaphoreArg, Vars);
    }
  }
  // One unit per semaphore: calls of one root whose indices are provably the
  // same; a root with two calls that may or may not be one is not judged.
  std::vector<Unit> Units;
  std::vector<const BarrierCall *> Unnamed;
  std::set<const ValueDecl *> Rejected;
  for (const BarrierCall &C : Scan.Calls) {
    if (!C.Name || !C.Name->Root) {
      Unnamed.push_back(&C);
      continue;
    }
    Unit *Into = nullptr;
    for (Unit &U : Units) {
      if (U.Root != C.Name->Root)
        continue;
      SemaphoreRelation R = compareSemaphores(*U.Calls.front()->Name, *C.Name, Vars, Ctx);
      if (R == SemaphoreRelation::Same)
        Into = &U;
      else if (R != SemaphoreRelation::Disjoint)
        Rejected.insert(U.Root);
      if (Into)
        break;
    }
    if (!Into) {
      Units.push_back(Unit{C.Name->Root, {}, std::nullopt, 0, 0});
      Into = &Units.back();
    }
    Into->Calls.push_back(&C);
  }
  if (Scan.HasGoto)
    for (Unit &U : Units)
      Rejected.insert(U.Root);
  for (Unit &U : Units) {
    if (Rejected.count(U.Root) || !judgeable(U.Root))
      continue;
    U.TripsBegin = Counter.SymbolicTrips.size();
    count(U);
    U.TripsEnd = Counter.SymbolicTrips.size();
  }
  // A count is exact only where the symbolic iteration counts of its loops
  // are not negative (given what every wait says of its atoms).
  for (Unit &U : Units)
    for (size_t I = U.TripsBegin; I < U.TripsEnd && U.Balance; ++I) {
      std::optional<int64_t> Least = Atoms->leastValue(Counter.SymbolicTrips[I]);
      if (!Least || *Least < 0)
        U.Balance.reset();
    }
  std::vector<BarrierBalance> Out;
  for (const Unit &U : Units) {
    if (!U.Balance)
      continue;
    BarrierBalance B = *U.Balance;
    B.Difference = signOf(B.Received - B.Waited, *Atoms);
    if (B.Difference == CountSign::Unknown)
      continue;
    // Another root may name the same semaphore: only a difference that it
    // cannot cancel is provable.
    bool Cancellable = false;
    auto Cancels = [&](Contribution Other) {
      switch (Other) {
      case Contribution::Zero:
        return false;
      case Contribution::Positive:
      case Contribution::NotNegative:
        return B.Difference == CountSign::Negative;
      case Contribution::Negative:
      case Contribution::NotPositive:
        return B.Difference == CountSign::Positive;
      case Contribution::Any:
        return B.Difference != CountSign::Zero;
      }
      return true;
    };
    // A semaphore the function makes (mentioned only as the barrier calls'
    // argument, as judged units are) has no other name.
    bool Made = madeHere(U.Root, Vars);
    for (const Unit &Other : Units)
      if (Other.Root != U.Root && !Made && !madeHere(Other.Root, Vars))
        Cancellable |= Cancels(contributionOf(Other, *Atoms));
    for (const BarrierCall *C : Unnamed)
      if (!Made)
        Cancellable |= Cancels(C->Signal ? Contribution::NotNegative : Contribution::NotPositive);
    if (!Cancellable)
      Out.push_back(std::move(B));
  }
  return Out;
}

} // namespace barriers
} // namespace

std::vector<BarrierBalance> barrierBalances(const FunctionDecl &FD, ASTContext &Ctx,
                                            const ApiIndex &Api,
                                            llvm::function_ref<bool(const ParmVarDecl &)> CallerMayUse,
                                            bool *AssumedUncalled) {
  if (!FD.hasBody() || FD.isDependentContext() || !isa<CompoundStmt>(FD.getBody()))
    return {};
  // A lambda's calls are judged (as unknown) in the function around it.
  if (const auto *MD = dyn_cast<CXXMethodDecl>(&FD); MD && MD->getParent()->isLambda())
    return {};
  barriers::BodyScan Scan(Api, Ctx);
  Scan.TraverseStmt(FD.getBody());
  Scan.Counted = Scan.onlyCalledLambdas(FD);
  for (barriers::BarrierCall &C : Scan.Calls)
    if (C.Lambda && Scan.Counted.contains(C.Lambda))
      C.InLambda = false;
  // A region ends at a wait; one in a lambda leaves its semaphore unjudged.
  if (llvm::none_of(Scan.Calls,
                    [](const barriers::BarrierCall &C) { return !C.Signal && !C.InLambda; }))
    return {};
  // Whether a function calls this one is a walk of the whole translation
  // unit: judge first as if none did. A caller only makes parameters
  // unjudgeable, which can only remove balances (an unjudged semaphore
  // cancels at least what a counted one does), so the answer is needed
  // only when a balance depends on it.
  barriers::Judge Uncalled(FD, Ctx, Api, nullptr, Scan);
  std::vector<BarrierBalance> Out = Uncalled.run();
  if (!Uncalled.askedCaller() || Out.empty())
    return Out;
  if (AssumedUncalled && llvm::all_of(Out, [](const BarrierBalance &B) {
        return B.Difference == CountSign::Zero;
      })) {
    *AssumedUncalled = true;
    return Out;
  }
  // (A judge names the scan's calls again, the same way: the scan serves.)
  return barriers::Judge(FD, Ctx, Api, CallerMayUse, Scan).run();
}

} // namespace dmalint
