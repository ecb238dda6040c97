//===- TypeModel.cpp - Which types hold descriptors, and how --------------===//
#include "dmalint/TypeModel.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "llvm/ADT/StringSwitch.h"
#include <memory>
#include <mutex>

using namespace clang;

namespace dmalint {

namespace {

struct StdType {
  const char *Name;
  Shape Kind;
  unsigned ElementArgument;
};

const StdType StdTypes[] = {
#define DMALINT_STD_TYPE(Name, Kind, Element) {Name, Shape::Kind, Element},
#include "StdLibrary.def"
};

struct StdMethod {
  Shape Kind;
  const char *Name;
  MethodEffect Effect;
};

const StdMethod StdMethods[] = {
#define DMALINT_STD_METHOD(Kind, Name, Effect) {Shape::Kind, Name, MethodEffect::Effect},
#include "StdLibrary.def"
};

struct StdFunction {
  const char *Name;
  FunctionEffect Effect;
};

const StdFunction StdFunctions[] = {
#define DMALINT_STD_FUNCTION(Name, Effect) {Name, FunctionEffect::Effect},
#include "StdLibrary.def"
};

const StdType *stdTypeNamed(llvm::StringRef Name) {
  for (const StdType &T : StdTypes)
    if (Name == T.Name)
      return &T;
  return nullptr;
}

bool derivesFromDescriptor(const CXXRecordDecl *RD, const ApiIndex &Api, unsigned Depth = 0) {
  if (!RD || !RD->hasDefinition() || Depth > 8)
    return false;
  for (const CXXBaseSpecifier &Base : RD->bases()) {
    const CXXRecordDecl *B = Base.getType()->getAsCXXRecordDecl();
    if (Api.isDescriptorRecord(B) || derivesFromDescriptor(B, Api, Depth + 1))
      return true;
  }
  return false;
}

/// A class whose unary operator* returns a reference to \p Out, or whose
/// operator-> returns a pointer to it: an iterator or a handle.
bool designatesLike(const CXXRecordDecl *RD, QualType &Out) {
  for (const CXXMethodDecl *MD : RD->methods()) {
    OverloadedOperatorKind K = MD->getOverloadedOperator();
    QualType R = MD->getReturnType();
    if (K == OO_Star && MD->getNumParams() == 0 && R->isReferenceType()) {
      Out = R.getNonReferenceType();
      return true;
    }
    if (K == OO_Arrow && MD->getNumParams() == 0 && R->isPointerType()) {
      Out = R->getPointeeType();
      return true;
    }
  }
  return false;
}

} // namespace

const TypeShape &TypeModel::shapeOf(QualType T) {
  static const TypeShape NoShape;
  if (T.isNull())
    return NoShape;
  const Type *Key = T.getNonReferenceType().getCanonicalType().getUnqualifiedType().getTypePtr();
  auto It = Shapes.find(Key);
  if (It != Shapes.end())
    return It->second ? *It->second : NoShape;
  // A placeholder first: a type that holds itself (a node with a vector of
  // nodes) is seen as holding nothing on the way down.
  Shapes[Key] = nullptr;
  auto Computed = std::make_unique<TypeShape>(compute(QualType(Key, 0)));
  TypeShape &Result = *Computed;
  Shapes[Key] = std::move(Computed);
  return Result;
}

TypeShape TypeModel::compute(QualType T) {
  TypeShape S;
  if (const auto *AT = dyn_cast<ConstantArrayType>(T.getTypePtr())) {
    if (holdsDescriptors(AT->getElementType())) {
      S.Kind = Shape::FixedArray;
      S.Element = AT->getElementType();
      S.Extent = AT->getSize().getZExtValue();
    }
    return S;
  }
  if (const auto *PT = T->getAs<PointerType>()) {
    if (holdsDescriptors(PT->getPointeeType())) {
      S.Kind = Shape::Pointer;
      S.Element = PT->getPointeeType();
    }
    return S;
  }
  const auto *RD = T->getAsCXXRecordDecl();
  if (!RD || !RD->hasDefinition())
    return S;
  if (Api.isDescriptorRecord(RD) || derivesFromDescriptor(RD, Api)) {
    S.Kind = Shape::Descriptor;
    return S;
  }
  if (RD->isInStdNamespace() && RD->getIdentifier()) {
    if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD))
      if (const StdType *Std = stdTypeNamed(RD->getName())) {
        const TemplateArgumentList &Args = Spec->getTemplateArgs();
        auto TypeArgument = [&](unsigned I) {
          return I < Args.size() && Args[I].getKind() == TemplateArgument::Type
                     ? Args[I].getAsType()
                     : QualType();
        };
        switch (Std->Kind) {
        case Shape::Sequence:
        case Shape::FixedArray:
        case Shape::Optional:
        case Shape::Pointer: {
          QualType Element = TypeArgument(Std->ElementArgument);
          if (Element.isNull())
            return S;
          if (!holdsDescriptors(Element)) {
            if (Std->Kind == Shape::Optional)
              S.Kind = Shape::Engagement;
            return S;
          }
          S.Kind = Std->Kind;
          S.Element = Element;
          if (Std->Kind == Shape::FixedArray && Args.size() > 1 &&
              Args[1].getKind() == TemplateArgument::Integral)
            S.Extent = Args[1].getAsIntegral().getZExtValue();
          return S;
        }
        case Shape::Pair:
          for (const FieldDecl *FD : RD->fields())
            if (holdsDescriptors(FD->getType()))
              S.Parts.push_back({PathStep::field(FD), FD->getType()});
          if (!S.Parts.empty())
            S.Kind = Shape::Pair;
          return S;
        case Shape::Tuple:
        case Shape::Variant: {
          if (Args.size() == 0 || Args[0].getKind() != TemplateArgument::Pack)
            return S;
          unsigned I = 0;
          for (const TemplateArgument &A : Args[0].pack_elements()) {
            unsigned Index = I++;
            if (A.getKind() == TemplateArgument::Type && holdsDescriptors(A.getAsType()))
              S.Parts.push_back({PathStep::part(Index), A.getAsType()});
          }
          if (!S.Parts.empty())
            S.Kind = Std->Kind;
          return S;
        }
        default:
          return S;
        }
      }
  }
  // Iterators and handles: they designate what their operator* gives.
  QualType Designated;
  if (designatesLike(RD, Designated)) {
    if (holdsDescriptors(Designated)) {
      S.Kind = Shape::Pointer;
      S.Element = Designated;
    }
    return S;
  }
  if (RD->isInStdNamespace())
    return S; // std::function, std::map, ...: not followed.
  // A class, struct or union: the fields that hold descriptors, its bases' too.
  llvm::SmallVector<const CXXRecordDecl *, 4> Classes{RD};
  for (unsigned I = 0; I < Classes.size() && I < 16; ++I) {
    for (const FieldDecl *FD : Classes[I]->fields())
      if (holdsDescriptors(FD->getType()))
        S.Parts.push_back({PathStep::field(FD), FD->getType()});
    for (const CXXBaseSpecifier &Base : Classes[I]->bases())
      if (const CXXRecordDecl *B = Base.getType()->getAsCXXRecordDecl();
          B && B->hasDefinition())
        Classes.push_back(B);
  }
  if (!S.Parts.empty())
    S.Kind = Shape::Record;
  return S;
}

std::optional<PathStep> TypeModel::partStep(QualType T, unsigned Index) {
  const TypeShape &S = shapeOf(T);
  if (S.Kind == Shape::Tuple || S.Kind == Shape::Variant) {
    for (const TypePart &P : S.Parts)
      if (P.Step.Index == int32_t(Index))
        return P.Step;
    return std::nullopt;
  }
  // std::get<I> of a std::array (a structured binding of one): element I.
  if (S.Kind == Shape::FixedArray)
    return PathStep::element(Index < unsigned(MaxTrackedIndex) ? int32_t(Index) : PathStep::Any);
  if (S.Kind == Shape::Pair) {
    const auto *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
    unsigned I = 0;
    for (const FieldDecl *FD : RD->fields())
      if (I++ == Index) {
        for (const TypePart &P : S.Parts)
          if (P.Step.FieldD == FD)
            return P.Step;
        // A bool or enum beside the descriptors: a flag's place (Flags.cpp).
        if (FD->getType()->isBooleanType() || FD->getType()->isEnumeralType())
          return PathStep::field(FD);
      }
  }
  return std::nullopt;
}

void TypeModel::leafPaths(QualType T, llvm::SmallVectorImpl<Leaf> &Out, unsigned MaxDepth) {
  AccessPath Prefix;
  leafPathsFrom(T, Prefix, Out, MaxDepth);
}

void TypeModel::leafPathsFrom(QualType T, AccessPath &Prefix, llvm::SmallVectorImpl<Leaf> &Out,
                              unsigned MaxDepth) {
  if (Out.size() >= 64)
    return; // Enough: what is not materialised reads as unknown.
  const TypeShape &S = shapeOf(T);
  switch (S.Kind) {
  case Shape::None:
    return;
  case Shape::Descriptor:
  case Shape::Pointer:
  case Shape::Engagement:
    Out.push_back({Prefix, S.Kind});
    return;
  default:
    break;
  }
  auto Below = [&](PathStep Step, QualType Type) {
    if (Prefix.Depth >= MaxDepth)
      return;
    AccessPath Child = Prefix;
    Child.append(Step);
    leafPathsFrom(Type, Child, Out, MaxDepth);
  };
  if (S.isContainer()) {
    Below(PathStep::element(PathStep::Summary), S.Element);
    return;
  }
  // Copy the parts: the recursion may compute (and store) other shapes.
  llvm::SmallVector<TypePart, 2> Parts = S.Parts;
  for (const TypePart &P : Parts)
    Below(P.Step, P.Type);
}

MethodEffect TypeModel::methodEffect(Shape Kind, llvm::StringRef Name) {
  for (const StdMethod &M : StdMethods)
    if (M.Kind == Kind && Name == M.Name)
      return M.Effect;
  return MethodEffect::Unlisted;
}

MethodEffect TypeModel::methodEffect(Shape Kind, const CXXMethodDecl *MD) {
  if (Kind == Shape::Pointer && MD->getReturnType()->isReferenceType() &&
      (isa<CXXConversionDecl>(MD) ||
       methodEffect(Kind, MD->getIdentifier() ? MD->getName() : StringRef()) ==
           MethodEffect::DesignatedAddress))
    return MethodEffect::Designated;
  return methodEffect(Kind, MD->getIdentifier() ? MD->getName() : StringRef());
}

Shape TypeModel::stdTypeKind(QualType T) {
  const auto *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  if (!RD || !RD->getIdentifier() || !RD->isInStdNamespace())
    return Shape::None;
  const StdType *Std = stdTypeNamed(RD->getName());
  return Std ? Std->Kind : Shape::None;
}

FunctionEffect TypeModel::functionEffect(const FunctionDecl *FD) {
  if (!FD || !FD->isInStdNamespace() || !FD->getIdentifier())
    return FunctionEffect::Unlisted;
  llvm::StringRef Name = FD->getName();
  for (const StdFunction &F : StdFunctions)
    if (Name == F.Name) {
      // std::move(first, last, out) is the algorithm of that name, not the
      // cast: it moves elements into another range.
      if (F.Effect == FunctionEffect::Identity && FD->getNumParams() > 2)
        return FunctionEffect::Unlisted;
      return F.Effect;
    }
  return FunctionEffect::Unlisted;
}

} // namespace dmalint
