//===- Identity.cpp - What a finding is about, read from the AST ----------===//
#include "Identity.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseSet.h"

using namespace clang;

namespace dmalint::tool {

namespace {

/// Containment of locations by the expansion (file) positions, so that code
/// written with macros is placed where the macro is used.
class Locator {
public:
  Locator(ASTContext &Ctx, SourceLocation Loc)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), At(SM.getExpansionLoc(Loc)) {
    // The files whose text holds the location: its own, and each that
    // includes the one before.
    for (FileID F = SM.getFileID(At); F.isValid() && Holding.insert(F).second;) {
      SourceLocation IncludedAt = SM.getIncludeLoc(F);
      if (IncludedAt.isInvalid())
        break;
      F = SM.getFileID(SM.getExpansionLoc(IncludedAt));
    }
  }

  bool holds(SourceRange Range) const {
    if (Range.isInvalid())
      return false;
    SourceLocation Begin = SM.getExpansionLoc(Range.getBegin());
    SourceLocation End = SM.getExpansionRange(Range.getEnd()).getEnd();
    return !SM.isBeforeInTranslationUnit(At, Begin) && !SM.isBeforeInTranslationUnit(End, At);
  }

  /// False for a declaration that begins and ends in one file of which the
  /// location's file is no part (the standard headers, for a location in the
  /// main file): what holds() would say, without ordering locations.
  bool mayHold(SourceRange Range) const {
    if (Range.isInvalid())
      return false;
    FileID Begin = SM.getFileID(SM.getExpansionLoc(Range.getBegin()));
    FileID End = SM.getFileID(SM.getExpansionRange(Range.getEnd()).getEnd());
    return Begin != End || Holding.contains(Begin);
  }

  /// The innermost function definition (not a lambda's call operator, which
  /// is reached through the statements) that holds the location, through
  /// namespaces, classes and templates; else the innermost declaration.
  const Decl *innermostDecl(const DeclContext &DC, const Decl *Around = nullptr) const {
    for (const Decl *D : DC.decls()) {
      if (D->isImplicit() || !mayHold(D->getSourceRange()) || !holds(D->getSourceRange()))
        continue;
      return within(D);
    }
    return Around;
  }

  /// innermostDecl of the translation unit, from its index.
  const Decl *innermostDecl(const TopLevelDecls &Index) const {
    for (const TopLevelDecls::Entry &E : Index.entries()) {
      if ((E.Begin == E.End && !Holding.contains(E.Begin)) || !holds(E.D->getSourceRange()))
        continue;
      return within(E.D);
    }
    return nullptr;
  }

  const Decl *innermostDecl(ASTContext &Ctx, const TopLevelDecls *Index) const {
    return Index ? innermostDecl(*Index) : innermostDecl(*Ctx.getTranslationUnitDecl());
  }

private:
  /// The declaration \p D holds the location: it, or what in it does.
  const Decl *within(const Decl *D) const {
    if (const auto *Template = dyn_cast<TemplateDecl>(D))
      if (const NamedDecl *Pattern = Template->getTemplatedDecl())
        D = Pattern;
    if (const auto *Function = dyn_cast<FunctionDecl>(D))
      return Function;
    if (const auto *Inner = dyn_cast<DeclContext>(D);
        Inner && isa<NamespaceDecl, LinkageSpecDecl, ExportDecl, CXXRecordDecl>(D))
      return innermostDecl(*Inner, D);
    return D;
  }

public:

  ASTContext &Ctx;
  const SourceManager &SM;
  SourceLocation At;
  llvm::SmallDenseSet<FileID, 4> Holding;
};

/// The sub-statements of \p S that are bodies (of an if, a loop, ...): not
/// part of \p S's own tokens.
llvm::SmallVector<const Stmt *, 2> bodiesOf(const Stmt &S) {
  llvm::SmallVector<const Stmt *, 2> Bodies;
  if (const auto *If = dyn_cast<IfStmt>(&S)) {
    Bodies.push_back(If->getThen());
    Bodies.push_back(If->getElse());
  } else if (const auto *While = dyn_cast<WhileStmt>(&S)) {
    Bodies.push_back(While->getBody());
  } else if (const auto *Do = dyn_cast<DoStmt>(&S)) {
    Bodies.push_back(Do->getBody());
  } else if (const auto *For = dyn_cast<ForStmt>(&S)) {
    Bodies.push_back(For->getBody());
  } else if (const auto *Range = dyn_cast<CXXForRangeStmt>(&S)) {
    Bodies.push_back(Range->getBody());
  } else if (const auto *Switch = dyn_cast<SwitchStmt>(&S)) {
    Bodies.push_back(Switch->getBody());
  } else if (const auto *Case = dyn_cast<SwitchCase>(&S)) {
    Bodies.push_back(Case->getSubStmt());
  } else if (const auto *Label = dyn_cast<LabelStmt>(&S)) {
    Bodies.push_back(Label->getSubStmt());
  } else if (const auto *Attributed = dyn_cast<AttributedStmt>(&S)) {
    Bodies.push_back(Attributed->getSubStmt());
  } else if (const auto *Compound = dyn_cast<CompoundStmt>(&S)) {
    for (const Stmt *Child : Compound->body())
      Bodies.push_back(Child);
  }
  llvm::erase_if(Bodies, [](const Stmt *S) { return !S; });
  return Bodies;
}

/// The tokens of \p Range (a file range) outside \p Excluded, one space
/// apart: comments and layout do not count.
std::string tokensOf(SourceRange Range, llvm::ArrayRef<SourceRange> Excluded,
                     const ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  auto FileRange = [&](SourceRange R) {
    CharSourceRange Chars = Lexer::makeFileCharRange(CharSourceRange::getTokenRange(R), SM, LO);
    if (Chars.isInvalid())
      Chars = CharSourceRange::getCharRange(SM.getExpansionLoc(R.getBegin()),
                                            Lexer::getLocForEndOfToken(
                                                SM.getExpansionRange(R.getEnd()).getEnd(), 0,
                                                SM, LO));
    return Chars;
  };
  CharSourceRange Chars = FileRange(Range);
  if (Chars.isInvalid())
    return "";
  auto [File, Begin] = SM.getDecomposedLoc(Chars.getBegin());
  unsigned End = SM.getFileOffset(Chars.getEnd());
  std::vector<std::pair<unsigned, unsigned>> Skip;
  for (SourceRange R : Excluded) {
    CharSourceRange Body = FileRange(R);
    if (Body.isValid() && SM.getFileID(Body.getBegin()) == File)
      Skip.push_back({SM.getFileOffset(Body.getBegin()), SM.getFileOffset(Body.getEnd())});
  }
  bool Invalid = false;
  llvm::StringRef Buffer = SM.getBufferData(File, &Invalid);
  if (Invalid || End > Buffer.size() || Begin > End)
    return "";
  // The parts of the range outside the excluded ones, each lexed on its
  // own: an excluded body (a function's, tens of thousands of lines) is
  // skipped, not lexed. A part starts where a token does: at the range's
  // start or at the end of an excluded range's last token.
  llvm::sort(Skip);
  std::vector<std::pair<unsigned, unsigned>> Parts;
  unsigned From = Begin;
  for (auto [SkipBegin, SkipEnd] : Skip) {
    if (SkipBegin > From)
      Parts.push_back({From, std::min(SkipBegin, End)});
    From = std::max(From, SkipEnd);
  }
  if (From < End)
    Parts.push_back({From, End});
  std::string Tokens;
  for (auto [PartBegin, PartEnd] : Parts) {
    Lexer Lex(SM.getLocForStartOfFile(File), LO, Buffer.begin(), Buffer.begin() + PartBegin,
              Buffer.end());
    Token T;
    while (true) {
      Lex.LexFromRawLexer(T);
      if (T.is(tok::eof) || SM.getFileOffset(T.getLocation()) >= PartEnd)
        break;
      if (!Tokens.empty())
        Tokens += ' ';
      Tokens += Lexer::getSpelling(T, SM, LO);
    }
  }
  return Tokens;
}

/// True for a type that holds or designates descriptors: a descriptor, a
/// reference, pointer or array of them, or a template of them (a vector,
/// an optional, ...).
bool holdsDescriptors(QualType T, const ApiIndex &Api) {
  for (int Depth = 0; Depth < 8 && !T.isNull(); ++Depth) {
    T = T.getNonReferenceType();
    if (Api.isDescriptorType(T))
      return true;
    if (const Type *Element = T->getPointeeOrArrayElementType(); Element != T.getTypePtr()) {
      T = QualType(Element, 0);
      continue;
    }
    const auto *Record = T->getAsCXXRecordDecl();
    const auto *Specialization = dyn_cast_or_null<ClassTemplateSpecializationDecl>(Record);
    if (!Specialization)
      return false;
    for (const TemplateArgument &Argument : Specialization->getTemplateArgs().asArray())
      if (Argument.getKind() == TemplateArgument::Type &&
          holdsDescriptors(Argument.getAsType(), Api))
        return true;
    return false;
  }
  return false;
}

/// One step of the way from a function body down to the location.
struct Step {
  const Stmt *S = nullptr;
  const VarDecl *Var = nullptr;
};

/// The way from \p From down to the innermost statement or variable that
/// holds the location.
std::vector<Step> wayDown(const Stmt *From, const Locator &L) {
  std::vector<Step> Way;
  const Stmt *Current = From;
  while (Current) {
    Way.push_back({Current, nullptr});
    const Stmt *Next = nullptr;
    if (const auto *Decls = dyn_cast<DeclStmt>(Current)) {
      for (const Decl *D : Decls->decls()) {
        const auto *Var = dyn_cast<VarDecl>(D);
        if (!Var || !L.holds(Var->getSourceRange()))
          continue;
        Way.push_back({nullptr, Var});
        if (Var->getInit() && L.holds(Var->getInit()->getSourceRange()))
          Next = Var->getInit();
        break;
      }
    } else {
      for (const Stmt *Child : Current->children())
        if (Child && L.holds(Child->getSourceRange())) {
          Next = Child;
          break;
        }
    }
    Current = Next;
  }
  return Way;
}

std::string spelt(const Expr *E, const ASTContext &Ctx) {
  E = E->IgnoreImplicit();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    return Ref->getDecl()->getNameAsString();
  return tokensOf(E->getSourceRange(), {}, Ctx);
}

} // namespace

TopLevelDecls::TopLevelDecls(const ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  for (const Decl *D : Ctx.getTranslationUnitDecl()->decls()) {
    if (D->isImplicit())
      continue;
    SourceRange R = D->getSourceRange();
    if (R.isInvalid())
      continue; // holds() says no.
    Entries.push_back({D, SM.getFileID(SM.getExpansionLoc(R.getBegin())),
                       SM.getFileID(SM.getExpansionRange(R.getEnd()).getEnd())});
  }
}

std::string enclosingFunction(ASTContext &Ctx, SourceLocation Loc, const TopLevelDecls *Index) {
  Locator L(Ctx, Loc);
  const auto *Function = dyn_cast_or_null<FunctionDecl>(L.innermostDecl(Ctx, Index));
  if (!Function)
    return "";
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation At = SM.getExpansionLoc(Function->getLocation());
  return Function->getQualifiedNameAsString() + "@" + SM.getFilename(At).str() + ":" +
         std::to_string(SM.getFileOffset(At));
}

FindingIdentity identify(ASTContext &Ctx, SourceLocation Loc, const ApiIndex *Api,
                         const TopLevelDecls *Index) {
  FindingIdentity Identity;
  Locator L(Ctx, Loc);
  const Decl *Around = L.innermostDecl(Ctx, Index);
  if (!Around)
    return Identity;
  const auto *Function = dyn_cast<FunctionDecl>(Around);
  if (!Function || !Function->getBody() || !L.holds(Function->getBody()->getSourceRange())) {
    // Outside any body: the declaration, without its body.
    if (Function)
      Identity.Function = Function->getQualifiedNameAsString();
    llvm::SmallVector<SourceRange, 1> Body;
    if (Function && Function->getBody())
      Body.push_back(Function->getBody()->getSourceRange());
    Identity.Statement = tokensOf(Around->getSourceRange(), Body, Ctx);
    return Identity;
  }
  Identity.Function = Function->getQualifiedNameAsString();
  std::vector<Step> Way = wayDown(Function->getBody(), L);
  // The statement: the innermost step that is a body of its parent (a
  // statement of a block, the branch of an if, the body of a loop).
  size_t Statement = 0;
  for (size_t I = 1; I < Way.size(); ++I) {
    if (!Way[I].S || !Way[I - 1].S)
      continue;
    if (llvm::is_contained(bodiesOf(*Way[I - 1].S), Way[I].S))
      Statement = I;
  }
  const Stmt *Primary = Way[Statement].S;
  llvm::SmallVector<SourceRange, 2> Bodies;
  for (const Stmt *Body : bodiesOf(*Primary))
    Bodies.push_back(Body->getSourceRange());
  Identity.Statement = tokensOf(Primary->getSourceRange(), Bodies, Ctx);
  if (!Api)
    return Identity;
  // The descriptor: from the location up to the statement, the first one
  // named or whose method is called; else the one the statement declares.
  for (size_t I = Way.size(); I-- > Statement;) {
    if (const VarDecl *Var = Way[I].Var) {
      if (holdsDescriptors(Var->getType(), *Api)) {
        Identity.Descriptor = Var->getNameAsString();
        break;
      }
      continue;
    }
    const auto *E = dyn_cast<Expr>(Way[I].S);
    if (!E)
      continue;
    if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E)) {
      const CXXMethodDecl *Method = Call->getMethodDecl();
      if (Method && Api->isDescriptorRecord(Method->getParent()) &&
          Call->getImplicitObjectArgument()) {
        Identity.Descriptor = spelt(Call->getImplicitObjectArgument(), Ctx);
        break;
      }
    }
    if (isa<DeclRefExpr, MemberExpr>(E) && holdsDescriptors(E->getType(), *Api)) {
      Identity.Descriptor = spelt(E, Ctx);
      break;
    }
    // A call that hands a named descriptor on (to a helper): the first.
    llvm::ArrayRef<const Expr *> Arguments;
    if (const auto *Call = dyn_cast<CallExpr>(E))
      Arguments = llvm::ArrayRef(Call->getArgs(), Call->getNumArgs());
    const Expr *const *Handed = llvm::find_if(Arguments, [&](const Expr *Argument) {
      const Expr *Named = Argument->IgnoreParenImpCasts();
      if (const auto *Unary = dyn_cast<UnaryOperator>(Named);
          Unary && (Unary->getOpcode() == UO_AddrOf || Unary->getOpcode() == UO_Deref))
        Named = Unary->getSubExpr()->IgnoreParenImpCasts();
      return isa<DeclRefExpr, MemberExpr>(Named) && holdsDescriptors(Named->getType(), *Api);
    });
    if (Handed != Arguments.end()) {
      Identity.Descriptor = spelt(*Handed, Ctx);
      break;
    }
  }
  return Identity;
}

} // namespace dmalint::tool
