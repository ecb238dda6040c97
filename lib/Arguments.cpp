//===- Arguments.cpp - What an API call's arguments say, without dataflow ===//
#include "dmalint/Arguments.h"
#include "dmalint/AnalysisCache.h"
#include "dmalint/AstUtil.h"
#include "dmalint/Semaphores.h"
#include "dmalint/TypeModel.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"

using namespace clang;

namespace dmalint {

llvm::SmallVector<const Expr *, 8> callArguments(const Expr *Call) {
  llvm::SmallVector<const Expr *, 8> Args;
  if (const auto *CE = dyn_cast<CXXConstructExpr>(Call))
    Args.append(CE->arg_begin(), CE->arg_end());
  else if (const auto *CE = dyn_cast<CallExpr>(Call)) {
    llvm::ArrayRef<const Expr *> Of = parameterArguments(*CE);
    Args.append(Of.begin(), Of.end());
  }
  return Args;
}

llvm::ArrayRef<const Expr *> parameterArguments(const CallExpr &Call) {
  llvm::ArrayRef<const Expr *> Args(Call.getArgs(), Call.getNumArgs());
  // Member operator calls carry the object as argument 0.
  if (isa<CXXOperatorCallExpr>(Call) && isa_and_nonnull<CXXMethodDecl>(Call.getDirectCallee()))
    return Args.drop_front();
  return Args;
}

static bool isNulloptType(QualType T);

bool mayForwardConstruction(const FunctionDecl *FD) {
  if (!FD || !FD->getIdentifier())
    return false;
  StringRef Name = FD->getName();
  return Name == "make_unique" || Name == "make_shared" || Name == "emplace_back" ||
         Name == "emplace_front" || Name == "emplace";
}

std::optional<ForwardedConstruction> forwardedConstruction(const CallExpr &Call,
                                                           const ApiIndex &Api) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!mayForwardConstruction(FD))
    return std::nullopt;
  StringRef Name = FD->getName();
  bool MakeHeap = Name.starts_with("make_");
  // A member function's context is its class: the class is in std.
  const auto *MD = dyn_cast<CXXMethodDecl>(FD);
  if (!(MD ? MD->getParent()->isInStdNamespace() : FD->isInStdNamespace()))
    return std::nullopt;
  auto FirstType = [](const TemplateArgumentList *Args) {
    return Args && Args->size() > 0 && Args->get(0).getKind() == TemplateArgument::Type
               ? Args->get(0).getAsType()
               : QualType();
  };
  QualType Built;
  Shape Holder = Shape::None;
  if (MakeHeap) {
    Built = FirstType(FD->getTemplateSpecializationArgs());
  } else if (const auto *MC = dyn_cast<CXXMemberCallExpr>(&Call)) {
    const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(MC->getRecordDecl());
    if (Spec)
      Built = FirstType(&Spec->getTemplateArgs());
    Holder = TypeModel::stdTypeKind(MC->getObjectType());
    if (Holder != Shape::Sequence && Holder != Shape::Optional)
      return std::nullopt;
  }
  const CXXRecordDecl *RD = Built.isNull() ? nullptr : Built->getAsCXXRecordDecl();
  if (!RD || !RD->hasDefinition() || !Api.isDescriptorRecord(RD))
    return std::nullopt;
  // Constructors, templates among them (the reference API's general
  // constructor is one over the element type).
  ForwardedConstruction Out;
  for (const Decl *D : RD->decls()) {
    const auto *Ctor = dyn_cast<CXXConstructorDecl>(D);
    if (const auto *Template = dyn_cast<FunctionTemplateDecl>(D))
      Ctor = dyn_cast<CXXConstructorDecl>(Template->getTemplatedDecl());
    if (Ctor && Api.isDescriptorConstructor(Ctor) &&
        (!Out.Constructor || Ctor->getNumParams() > Out.Constructor->getNumParams()))
      Out.Constructor = Ctor;
  }
  if (!Out.Constructor)
    return std::nullopt;
  Out.Arguments = callArguments(&Call);
  // A container's emplace(position, args...).
  if (Name == "emplace" && Holder == Shape::Sequence && !Out.Arguments.empty())
    Out.Arguments.erase(Out.Arguments.begin());
  // emplace_back(d), make_unique<D>(d): a copy, not the general constructor.
  if (Out.Arguments.size() < 3)
    return std::nullopt;
  return Out;
}

Engagement forwardedEngagement(llvm::ArrayRef<const Expr *> Args, unsigned Index) {
  if (Index >= Args.size())
    return Engagement::Omitted;
  const Expr *E = stripWrappers(Args[Index]);
  // nullptr forwarded to a pointer parameter (nullptr_t is not a pointer
  // type): the parameter is null.
  if (isNulloptType(E->getType()) || E->getType()->isNullPtrType())
    return Engagement::Disengaged;
  if (isStdOptional(E->getType()) || E->getType()->isPointerType())
    return engagementOf(Args[Index]);
  return Engagement::Engaged;
}

bool isStdOptional(QualType T) {
  const auto *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  if (!RD || !RD->getIdentifier() || RD->getName() != "optional")
    return false;
  return RD->isInStdNamespace();
}

static bool isNulloptType(QualType T) {
  const auto *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  return RD && RD->getIdentifier() && RD->getName() == "nullopt_t" &&
         RD->isInStdNamespace();
}

Engagement engagementOf(const Expr *Arg) {
  if (!Arg)
    return Engagement::Unknown;
  if (const auto *DA = dyn_cast<CXXDefaultArgExpr>(Arg)) {
    Engagement Default = engagementOf(DA->getExpr());
    return Default == Engagement::Disengaged ? Engagement::Omitted : Default;
  }
  const Expr *E = stripWrappers(Arg);
  if (isNulloptType(E->getType()))
    return Engagement::Disengaged;
  // A pointer parameter is "set" when it is not null.
  if (Arg->getType()->isPointerType()) {
    const Expr *P = Arg->IgnoreParenImpCasts();
    if (isa<CXXNullPtrLiteralExpr, GNUNullExpr>(P))
      return Engagement::Disengaged;
    if (const auto *Literal = dyn_cast<IntegerLiteral>(P); Literal && Literal->getValue() == 0)
      return Engagement::Disengaged;
    if (const auto *UO = dyn_cast<UnaryOperator>(P); UO && UO->getOpcode() == UO_AddrOf)
      return Engagement::Engaged;
    return Engagement::Unknown;
  }
  if (const auto *ILE = dyn_cast<InitListExpr>(E))
    return ILE->getNumInits() == 0 ? Engagement::Disengaged : Engagement::Unknown;
  if (isa<CXXScalarValueInitExpr>(E) || isa<ImplicitValueInitExpr>(E))
    return Engagement::Disengaged;
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
    if (!isStdOptional(CE->getType()))
      return Engagement::Unknown;
    if (CE->getNumArgs() == 0)
      return Engagement::Disengaged;
    const Expr *Inner = CE->getArg(0);
    QualType InnerType = stripWrappers(Inner)->getType();
    if (isNulloptType(InnerType))
      return Engagement::Disengaged;
    if (isStdOptional(InnerType))
      return engagementOf(Inner); // optional<T> from another optional.
    return Engagement::Engaged;   // From a value, or std::in_place.
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    if (const FunctionDecl *FD = Call->getDirectCallee())
      if (FD->getIdentifier() && FD->getName() == "make_optional" &&
          FD->isInStdNamespace())
        return Engagement::Engaged;
  }
  return Engagement::Unknown;
}

Engagement argumentEngagement(llvm::ArrayRef<const Expr *> Args,
                              unsigned Index) {
  if (Index >= Args.size())
    return Engagement::Omitted;
  return engagementOf(Args[Index]);
}

std::optional<int64_t> constantInt(const Expr *E, const ASTContext &Ctx) {
  if (!E || E->isValueDependent() || E->isTypeDependent())
    return std::nullopt;
  if (const auto *DA = dyn_cast<CXXDefaultArgExpr>(E))
    E = DA->getExpr();
  Expr::EvalResult Result;
  if (!E->EvaluateAsInt(Result, Ctx))
    return std::nullopt;
  return Result.Val.getInt().getSExtValue();
}

/// True when a local variable is never the target of an assignment, so its
/// initialiser is its value everywhere. (Taking its address counts too,
/// unless only as a pointer to const, and so do binding a reference to it
/// that is not const and passing it to such a reference parameter: `DeviceId
/// &alias = id; alias = ...;`, an out-parameter `pick(id)`.) One walk of
/// the function's statements, with each one's parent at hand.
static bool isNeverAssigned(const VarDecl *VD) {
  const auto *Fn = dyn_cast_or_null<FunctionDecl>(VD->getParentFunctionOrMethod());
  if (!Fn || !Fn->getBody())
    return false;
  auto IsVar = [&](const Expr *E) {
    const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    return DRE && DRE->getDecl() == VD;
  };
  // The conversion of `&v` to a pointer to const, as written in the type.
  auto ToConst = [](const Stmt *Parent) {
    const auto *Cast = dyn_cast_or_null<ImplicitCastExpr>(Parent);
    const auto *Pointer = Cast ? dyn_cast<PointerType>(Cast->getType().getTypePtr()) : nullptr;
    return Pointer && Pointer->getPointeeType().isConstQualified();
  };
  llvm::SmallVector<std::pair<const Stmt *, const Stmt *>, 32> Pending{{Fn->getBody(), nullptr}};
  while (!Pending.empty()) {
    auto [S, Parent] = Pending.pop_back_val();
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
        Op && Op->isAssignmentOp() && Op->getNumArgs() > 0 && IsVar(Op->getArg(0)))
      return false;
    if (const auto *BO = dyn_cast<BinaryOperator>(S); BO && BO->isAssignmentOp() && IsVar(BO->getLHS()))
      return false;
    if (const auto *UO = dyn_cast<UnaryOperator>(S);
        UO && UO->getOpcode() == UO_AddrOf && IsVar(UO->getSubExpr()) && !ToConst(Parent))
      return false;
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *D : DS->decls())
        if (const auto *Ref = dyn_cast<VarDecl>(D);
            Ref && Ref->getType()->isLValueReferenceType() &&
            !Ref->getType().getNonReferenceType().isConstQualified() && Ref->getInit() &&
            IsVar(Ref->getInit()))
          return false;
    // An argument bound to a reference parameter that is not const (a
    // std::optional built from it only copies it).
    auto ToMutableReference = [&](const Stmt *Site, const FunctionDecl *Callee,
                                  llvm::ArrayRef<const Expr *> Args) {
      const auto *Ctor = dyn_cast_or_null<CXXConstructorDecl>(Callee);
      const CXXRecordDecl *Built = Ctor ? Ctor->getParent() : nullptr;
      if (!Callee || isStdOptional(Callee->getReturnType()) ||
          (Built && Built->isInStdNamespace() && Built->getIdentifier() &&
           Built->getName() == "optional"))
        return false;
      unsigned Shift = isa<CXXMethodDecl>(Callee) && isa<CXXOperatorCallExpr>(Site) &&
                               cast<CXXMethodDecl>(Callee)->isInstance()
                           ? 1
                           : 0;
      for (unsigned I = Shift; I < Args.size() && I - Shift < Callee->getNumParams(); ++I) {
        QualType T = Callee->getParamDecl(I - Shift)->getType();
        if (T->isLValueReferenceType() && !T.getNonReferenceType().isConstQualified() &&
            IsVar(Args[I]))
          return true;
      }
      return false;
    };
    if (const auto *Call = dyn_cast<CallExpr>(S))
      if (ToMutableReference(S, Call->getDirectCallee(),
                             llvm::ArrayRef(Call->getArgs(), Call->getNumArgs())))
        return false;
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(S))
      if (ToMutableReference(S, Construct->getConstructor(),
                             llvm::ArrayRef(Construct->getArgs(), Construct->getNumArgs())))
        return false;
    for (const Stmt *Child : S->children())
      if (Child)
        Pending.push_back({Child, S});
  }
  return true;
}

/// The initialiser of element \p Index of a local array that is const
/// (`const DeviceId ids[2] = {...}`, `const std::array<DeviceId, 2> ids =
/// {...}`): nothing can change it, so it is the element's value everywhere.
static const Expr *constElementInit(const Expr *Array, const Expr *Index,
                                    const ASTContext &Ctx) {
  const auto *DRE = dyn_cast<DeclRefExpr>(Array->IgnoreParenImpCasts());
  const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  std::optional<int64_t> At = constantInt(Index, Ctx);
  if (!VD || !VD->hasLocalStorage() || isa<ParmVarDecl>(VD) ||
      VD->getType()->isReferenceType() || !At || *At < 0)
    return nullptr;
  QualType T = VD->getType();
  if (const ArrayType *AT = Ctx.getAsArrayType(T))
    T = AT->getElementType();
  if (!T.isConstQualified())
    return nullptr;
  const auto *List = dyn_cast_or_null<InitListExpr>(VD->getInit() ? VD->getInit()->IgnoreImplicit()
                                                                  : nullptr);
  if (List && !List->isSemanticForm())
    List = List->getSemanticForm();
  // std::array is a struct around the array: its one initialiser.
  if (List && !List->getType()->isArrayType() && List->getNumInits() == 1)
    List = dyn_cast<InitListExpr>(List->getInit(0)->IgnoreImplicit());
  if (!List || !List->getType()->isArrayType() || uint64_t(*At) >= List->getNumInits())
    return nullptr;
  return List->getInit(*At);
}

/// What a local variable initialised once and never assigned (a DeclRefExpr)
/// holds everywhere: its initialiser; and a member of a local struct the
/// function only reads members of (`const Neighbours nb{DeviceId{x, y - 1},
/// ...}; f(nb.up)`): what its braced initialiser gives the member, as the
/// semaphore names take it. Null for anything else.
static const Expr *localInitialiser(const Expr *E, const ApiIndex &Api) {
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
    if (!VD || !VD->hasLocalStorage() || isa<ParmVarDecl>(VD) || !VD->getInit() ||
        VD->getType()->isReferenceType() || !isNeverAssigned(VD))
      return nullptr;
    return VD->getInit();
  }
  const auto *ME = dyn_cast<MemberExpr>(E);
  const VarDecl *Holder = ME ? memberChainVariable(*ME) : nullptr;
  const auto *Fn =
      Holder ? dyn_cast_or_null<FunctionDecl>(Holder->getParentFunctionOrMethod()) : nullptr;
  std::optional<NameRoot> Root =
      Fn ? nameRoot(ME, AnalysisCache::current().variables(*Fn, Api)) : std::nullopt;
  return Root ? Root->Init : nullptr;
}

static std::optional<DeviceIdShape> shapeOf(const Expr *Arg, const ApiIndex &Api,
                                            ASTContext &Ctx, unsigned CallDepth);

/// The device id every return of \p Callee (a function or lambda of the
/// translation unit) gives, when all of them give one of one count: the
/// first of them. (`auto peer = [&](int d) { return DeviceId{x + d, y}; };`
/// then `peer(1)`.)
static std::optional<DeviceIdShape> returnedDeviceId(const FunctionDecl &Callee,
                                                     const ApiIndex &Api, ASTContext &Ctx,
                                                     unsigned CallDepth) {
  std::optional<DeviceIdShape> First;
  bool Agree = true;
  llvm::SmallVector<const Stmt *, 32> Work{Callee.getBody()};
  while (!Work.empty() && Agree) {
    const Stmt *S = Work.pop_back_val();
    if (!S || isa<LambdaExpr>(S)) // A lambda's returns are its own.
      continue;
    if (const auto *Return = dyn_cast<ReturnStmt>(S)) {
      std::optional<DeviceIdShape> Shape =
          Return->getRetValue() ? shapeOf(Return->getRetValue(), Api, Ctx, CallDepth + 1)
                                : std::nullopt;
      Agree = Shape && (!First || First->MeshCoordinates == Shape->MeshCoordinates);
      if (!First)
        First = Shape;
      continue;
    }
    for (const Stmt *Child : S->children())
      Work.push_back(Child);
  }
  if (!Agree || !First)
    return std::nullopt;
  First->ThroughVariable = true;
  return First;
}

std::optional<DeviceIdShape> deviceIdShape(const Expr *Arg, const ApiIndex &Api,
                                           ASTContext &Ctx) {
  return shapeOf(Arg, Api, Ctx, 0);
}

static std::optional<DeviceIdShape> shapeOf(const Expr *Arg, const ApiIndex &Api,
                                            ASTContext &Ctx, unsigned CallDepth) {
  const Expr *E = stripWrappers(Arg);
  bool InOptional = false;
  bool ThroughVariable = false;
  // Peel what carries a device id without changing it, in any order and at
  // any depth (`std::optional<DeviceId> t = DeviceId{x, y}; f(t)`, or a
  // variable initialised from another): a std::optional of it, a pointer to
  // it, std::make_optional, and a local variable initialised once and never
  // assigned. The bound keeps a self-referencing initialiser (`auto t = t;`)
  // finite.
  for (unsigned Step = 0; Step < 16; ++Step) {
    if (!E || E->isTypeDependent() || E->isValueDependent())
      return std::nullopt;
    // An integer that the optional's constructor turns into a device id
    // (`{peer}` or `peer` for a std::optional<DeviceId>): the logical-id
    // constructor, whatever the integer's own origin.
    if (InOptional && E->getType()->isIntegralOrUnscopedEnumerationType())
      return DeviceIdShape{0, E, nullptr, ThroughVariable};
    // std::optional<DeviceId>(x) and std::make_optional(x): look at x.
    if (const auto *CE = dyn_cast<CXXConstructExpr>(E);
        CE && isStdOptional(CE->getType()) && CE->getNumArgs() >= 1) {
      E = stripWrappers(CE->getArg(CE->getNumArgs() - 1));
      InOptional = true;
      continue;
    }
    // A pointer to a device id (nullptr meaning none): look at what it points to.
    if (const auto *UO = dyn_cast<UnaryOperator>(E); UO && UO->getOpcode() == UO_AddrOf) {
      E = stripWrappers(UO->getSubExpr());
      continue;
    }
    if (const auto *Call = dyn_cast<CallExpr>(E); Call && Call->getNumArgs() == 1)
      if (const FunctionDecl *FD = Call->getDirectCallee();
          FD && FD->getIdentifier() && FD->getName() == "make_optional" &&
          FD->isInStdNamespace()) {
        E = stripWrappers(Call->getArg(0));
        InOptional = true;
        continue;
      }
    if (isa<DeclRefExpr, MemberExpr>(E)) {
      const Expr *Init = localInitialiser(E, Api);
      if (!Init)
        return std::nullopt;
      E = stripWrappers(Init);
      ThroughVariable = true;
      continue;
    }
    // An element of a const local array, at a constant index.
    const Expr *Element = nullptr;
    if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(E))
      Element = constElementInit(ASE->getBase(), ASE->getIdx(), Ctx);
    else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
             Op && Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2 &&
             TypeModel::stdTypeKind(Op->getArg(0)->getType()) == Shape::FixedArray)
      Element = constElementInit(Op->getArg(0), Op->getArg(1), Ctx);
    if (Element) {
      E = stripWrappers(Element);
      ThroughVariable = true;
      continue;
    }
    // A call of a function or lambda whose returns all give an id of one
    // count (not in an optional: its own conversions are not followed).
    if (const auto *Call = dyn_cast<CallExpr>(E); Call && !InOptional && CallDepth < 4) {
      const FunctionDecl *Callee = Call->getDirectCallee();
      const FunctionDecl *Definition = nullptr;
      if (Callee && Callee->isDefined(Definition) && Definition->getBody() &&
          !Definition->isDependentContext() && Api.isDeviceIdType(Definition->getReturnType()))
        return returnedDeviceId(*Definition, Api, Ctx, CallDepth);
    }
    break;
  }
  if (!E || E->isTypeDependent() || E->isValueDependent())
    return std::nullopt;
  const auto *CE = dyn_cast<CXXConstructExpr>(E);
  if (!CE || !Api.isDeviceIdType(CE->getType()) || CE->getNumArgs() != 1)
    return std::nullopt;
  const auto *List =
      dyn_cast<CXXStdInitializerListExpr>(stripWrappers(CE->getArg(0)));
  if (!List) {
    // The logical-id constructor takes an integer; the coordinates'
    // constructor handed a list it did not build here (`DeviceId(coords)` of
    // a std::initializer_list variable) has as many as that list: unknown.
    const CXXConstructorDecl *Ctor = CE->getConstructor();
    if (!Ctor || Ctor->getNumParams() == 0 ||
        !Ctor->getParamDecl(0)->getType().getNonReferenceType()->isIntegralOrEnumerationType())
      return std::nullopt;
    return DeviceIdShape{0, CE, nullptr, ThroughVariable};
  }
  const auto *Inits = dyn_cast<InitListExpr>(stripWrappers(List->getSubExpr()));
  if (!Inits)
    return std::nullopt;
  return DeviceIdShape{Inits->getNumInits(), CE, Inits, ThroughVariable};
}

DeviceIdArguments deviceIdArguments(const Expr *Call, const ApiIndex &Api) {
  const FunctionDecl *Callee = nullptr;
  if (const auto *CE = dyn_cast_or_null<CallExpr>(Call))
    Callee = CE->getDirectCallee();
  else if (const auto *CE = dyn_cast_or_null<CXXConstructExpr>(Call))
    Callee = CE->getConstructor();
  const DeviceIdUse *Use = Api.deviceIdUseOf(Callee);
  if (!Use)
    return DeviceIdArguments{};
  auto Args = callArguments(Call);
  if (Use->DeviceIdTypeParam >= Args.size() || Use->DeviceIdParam >= Args.size())
    return DeviceIdArguments{};
  return DeviceIdArguments{Args[Use->DeviceIdParam], Args[Use->DeviceIdTypeParam]};
}

std::optional<DeviceIdKind> deviceIdKind(const Expr *Arg, const ApiIndex &Api,
                                         const ASTContext &Ctx) {
  if (!Arg)
    return std::nullopt;
  if (const auto *DA = dyn_cast<CXXDefaultArgExpr>(Arg))
    Arg = DA->getExpr();
  auto KindOf = [&](const EnumConstantDecl *ECD) -> std::optional<DeviceIdKind> {
    if (Api.isLogicalEnumerator(ECD))
      return DeviceIdKind::Logical;
    if (Api.isMeshEnumerator(ECD))
      return DeviceIdKind::Mesh;
    return std::nullopt;
  };
  // A local never assigned, or a member of a local struct, that holds the
  // kind it was initialised with (`DeviceIdType t = DeviceIdType::kLogical;`,
  // `Route rt{.dst = ..., .type = DeviceIdType::kLogical}`); an enumerator
  // is neither.
  for (unsigned Step = 0; Step < 8; ++Step) {
    const Expr *Init = localInitialiser(stripWrappers(Arg), Api);
    if (!Init)
      break;
    Arg = Init;
  }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(stripWrappers(Arg)))
    if (const auto *ECD = dyn_cast<EnumConstantDecl>(DRE->getDecl()))
      return KindOf(ECD);
  // A constant of the enum type (a constexpr variable, a macro): by value.
  const auto *Enum = Arg->getType()->getAs<EnumType>();
  std::optional<int64_t> Value = constantInt(Arg, Ctx);
  if (!Enum || !Value)
    return std::nullopt;
  for (const EnumConstantDecl *ECD : Enum->getDecl()->enumerators())
    if (ECD->getInitVal() == *Value)
      if (std::optional<DeviceIdKind> Kind = KindOf(ECD))
        return Kind;
  return std::nullopt;
}

CopyBuffers copyBuffers(const Expr *Copy, const ApiIndex &Api) {
  CopyBuffers Buffers;
  for (const Expr *Arg : callArguments(Copy)) {
    if (!Api.isBufferType(Arg->getType()))
      continue;
    if (!Buffers.Source)
      Buffers.Source = Arg;
    else if (!Buffers.Target)
      Buffers.Target = Arg;
  }
  if (!Buffers.Target)
    return CopyBuffers{};
  return Buffers;
}

std::optional<ConstantSlice> constantSlice(const Expr *Buffer, const ApiIndex &Api,
                                           const ASTContext &Ctx) {
  const auto *Call = dyn_cast_or_null<CXXMemberCallExpr>(stripWrappers(Buffer));
  if (!Call || !Api.isSliceMethod(Call->getMethodDecl()))
    return std::nullopt;
  unsigned Index = Api.model().SliceSizeParam;
  if (Index >= Call->getNumArgs())
    return std::nullopt;
  const Expr *SizeArg = Call->getArg(Index);
  std::optional<int64_t> Size = constantInt(SizeArg, Ctx);
  if (!Size)
    return std::nullopt;
  return ConstantSlice{*Size, SizeArg};
}

QualType bufferElementType(QualType T, const ApiIndex &Api) {
  if (T.isNull() || !Api.isBufferType(T))
    return QualType();
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T.getNonReferenceType()->getAsCXXRecordDecl());
  if (!Spec || Spec->getTemplateArgs().size() == 0)
    return QualType();
  const TemplateArgument &First = Spec->getTemplateArgs()[0];
  if (First.getKind() != TemplateArgument::Type)
    return QualType();
  return First.getAsType().getCanonicalType().getUnqualifiedType();
}

} // namespace dmalint
