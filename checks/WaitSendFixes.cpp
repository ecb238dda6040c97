//===- WaitSendFixes.cpp - Fix-its for wait_send on a local copy ----------===//
#include "WaitSendFixes.h"
#include "dmalint/AstUtil.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace dmalint::checks {

namespace {

/// The statement a call is the whole of, and the statement holding it.
struct Placement {
  const Stmt *Statement = nullptr;
  const Stmt *Parent = nullptr;
};

/// Where \p Current sits as a whole statement of \p Parent, or nothing.
Placement asBodyStatement(const Stmt *Current, const Stmt *Parent) {
  // Only where the call is a whole statement of a block or a body.
  bool IsBody = false;
  if (const auto *CS = dyn_cast<CompoundStmt>(Parent))
    IsBody = llvm::is_contained(CS->body(), Current);
  else if (const auto *If = dyn_cast<IfStmt>(Parent))
    IsBody = If->getThen() == Current || If->getElse() == Current;
  else if (const auto *For = dyn_cast<ForStmt>(Parent))
    IsBody = For->getBody() == Current;
  else if (const auto *Range = dyn_cast<CXXForRangeStmt>(Parent))
    IsBody = Range->getBody() == Current;
  else if (const auto *While = dyn_cast<WhileStmt>(Parent))
    IsBody = While->getBody() == Current;
  else if (const auto *Do = dyn_cast<DoStmt>(Parent))
    IsBody = Do->getBody() == Current;
  else if (const auto *Case = dyn_cast<SwitchCase>(Parent)) // `case 1: d.wait_send();`
    IsBody = Case->getSubStmt() == Current;
  if (!IsBody)
    return {};
  return {Current, Parent};
}

Placement placementOf(const Expr &Call, BodyParents &Parents, ASTContext &Ctx) {
  // The function's own statements ask its parent map, not the translation
  // unit's (built whole at the first question).
  bool Own = Parents.contains(Call);
  auto ParentOf = [&](const Stmt &S) -> const Stmt * {
    if (Own)
      return Parents.parent(S);
    DynTypedNodeList Found = Ctx.getParents(S);
    return Found.size() == 1 ? Found[0].get<Stmt>() : nullptr;
  };
  const Stmt *Current = &Call;
  while (true) {
    const Stmt *P = ParentOf(*Current);
    if (!P)
      return {};
    if (isa<ExprWithCleanups>(P)) {
      Current = P;
      continue;
    }
    if (isa<Expr>(P))
      return {}; // Part of a larger expression: no statement-level fix.
    return asBodyStatement(Current, P);
  }
}

/// The file range of a statement including its semicolon, or invalid when it
/// is not spelled in a file (macro bodies).
CharSourceRange statementRange(const Stmt &S, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange Range = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(S.getSourceRange()), SM, Ctx.getLangOpts());
  if (Range.isInvalid() || S.getBeginLoc().isMacroID() || S.getEndLoc().isMacroID())
    return CharSourceRange();
  // The semicolon after the expression (whitespace may precede it).
  SourceLocation End = Range.getEnd();
  auto [File, Offset] = SM.getDecomposedLoc(End);
  StringRef Buffer = SM.getBufferData(File);
  size_t At = Offset;
  while (At < Buffer.size() && (Buffer[At] == ' ' || Buffer[At] == '\t'))
    ++At;
  if (At < Buffer.size() && Buffer[At] == ';')
    End = End.getLocWithOffset(static_cast<int>(At - Offset + 1));
  return CharSourceRange::getCharRange(Range.getBegin(), End);
}

/// Where the line holding the character at \p Offset starts. (StringRef's
/// rfind looks before its position, so a line break just before \p Offset
/// counts: a statement in column 1 starts its line.)
size_t lineStart(StringRef Buffer, size_t Offset) {
  size_t Break = Buffer.rfind('\n', Offset);
  return Break == StringRef::npos ? 0 : Break + 1;
}

/// The whitespace before \p Loc on its line, if only whitespace precedes it.
std::optional<std::string> leadingIndent(SourceLocation Loc, const SourceManager &SM) {
  auto [File, Offset] = SM.getDecomposedLoc(Loc);
  StringRef Buffer = SM.getBufferData(File);
  StringRef Before = Buffer.slice(lineStart(Buffer, Offset), Offset);
  if (Before.find_first_not_of(" \t") != StringRef::npos)
    return std::nullopt;
  return Before.str();
}

std::string lineIndent(SourceLocation Loc, const SourceManager &SM) {
  auto [File, Offset] = SM.getDecomposedLoc(Loc);
  StringRef Buffer = SM.getBufferData(File);
  StringRef Line = Buffer.substr(lineStart(Buffer, Offset));
  return Line.take_while([](char C) { return C == ' ' || C == '\t'; }).str();
}

/// Whether the function's author braces one-statement bodies, and puts an
/// opening brace on a line of its own (Allman) or after the header.
class BraceStyle : public RecursiveASTVisitor<BraceStyle> {
public:
  explicit BraceStyle(const SourceManager &SM) : SM(SM) {}
  unsigned Braced = 0, Unbraced = 0, OwnLine = 0, SameLine = 0;
  void count(const Stmt *Body) {
    if (!Body)
      return;
    if (const auto *CS = dyn_cast<CompoundStmt>(Body)) {
      if (CS->size() == 1)
        ++Braced;
      countBrace(*CS);
    } else if (!isa<IfStmt>(Body)) {
      ++Unbraced;
    }
  }
  void countBrace(const CompoundStmt &CS) {
    SourceLocation Brace = CS.getLBracLoc();
    if (Brace.isInvalid() || Brace.isMacroID())
      return;
    ++(leadingIndent(Brace, SM) ? OwnLine : SameLine);
  }
  bool VisitIfStmt(IfStmt *S) {
    count(S->getThen());
    return true;
  }
  bool VisitForStmt(ForStmt *S) {
    count(S->getBody());
    return true;
  }
  bool VisitCXXForRangeStmt(CXXForRangeStmt *S) {
    count(S->getBody());
    return true;
  }
  bool VisitWhileStmt(WhileStmt *S) {
    count(S->getBody());
    return true;
  }

private:
  const SourceManager &SM;
};

const FunctionDecl *enclosingFunction(const Stmt &S, BodyParents &Parents, ASTContext &Ctx) {
  if (const FunctionDecl *Owner = Parents.owner(S)) {
    // The innermost lambda around it in the body, or the body's function.
    for (const Stmt *P = Parents.parent(S); P; P = Parents.parent(*P))
      if (const auto *LE = dyn_cast<LambdaExpr>(P))
        return LE->getCallOperator();
    return Owner;
  }
  DynTypedNodeList Found = Ctx.getParents(S);
  while (!Found.empty()) {
    if (const auto *FD = Found[0].get<FunctionDecl>())
      return FD;
    if (const auto *LE = Found[0].get<LambdaExpr>())
      return LE->getCallOperator();
    Found = Ctx.getParents(Found[0]);
  }
  return nullptr;
}

/// How the function around \p S places braces: whether it braces
/// one-statement bodies, and whether an opening brace goes on its own line.
struct Bracing {
  bool Braces = false, OwnLine = false;
};

/// Whether an `else` follows \p S (a body statement of \p Parent) with only
/// unbraced bodies between: an if, while, for or range-for holds it as its
/// body, up to an if whose then-branch it is and that has an else.
bool elseFollows(const Stmt &S, const Stmt *Parent, BodyParents &Parents, ASTContext &Ctx) {
  bool Own = Parents.contains(S);
  const Stmt *Child = &S;
  for (const Stmt *P = Parent; P;) {
    if (const auto *If = dyn_cast<IfStmt>(P)) {
      if (If->getThen() == Child && If->getElse())
        return true;
    } else if (!isa<ForStmt, WhileStmt, CXXForRangeStmt>(P)) {
      return false; // A block, a do-while, a switch: the else is not ours.
    }
    Child = P;
    if (Own) {
      P = Parents.parent(*P);
    } else {
      DynTypedNodeList Found = Ctx.getParents(*P);
      P = Found.size() == 1 ? Found[0].get<Stmt>() : nullptr;
    }
  }
  return false;
}

Bracing bracingOf(const Stmt &S, BodyParents &Parents, ASTContext &Ctx) {
  const FunctionDecl *FD = enclosingFunction(S, Parents, Ctx);
  if (!FD || !FD->getBody())
    return {};
  BraceStyle Style(Ctx.getSourceManager());
  Style.TraverseStmt(FD->getBody());
  // The function's own body counts for where braces go (not for whether).
  if (const auto *Body = dyn_cast<CompoundStmt>(FD->getBody()))
    Style.countBrace(*Body);
  return {Style.Braced > Style.Unbraced, Style.OwnLine > Style.SameLine};
}

/// The line break of the line \p Loc is on: "\r\n" in a CRLF file.
std::string lineBreak(SourceLocation Loc, const SourceManager &SM) {
  auto [File, Offset] = SM.getDecomposedLoc(Loc);
  StringRef Buffer = SM.getBufferData(File);
  size_t End = Buffer.find('\n', Offset);
  if (End != StringRef::npos && End > 0 && Buffer[End - 1] == '\r')
    return "\r\n";
  return "\n";
}

/// True when evaluating \p E twice (in the guard and in the call) is the
/// same as once: names, fields, constant or side-effect-free subscripts,
/// dereferences, and the ->, * and [] of containers and smart pointers.
bool repeatable(const Expr *E, ASTContext &Ctx) {
  E = E->IgnoreParenImpCasts();
  if (isa<DeclRefExpr, CXXThisExpr>(E))
    return true;
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    return repeatable(ME->getBase(), Ctx);
  if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(E))
    return repeatable(ASE->getBase(), Ctx) && !ASE->getIdx()->HasSideEffects(Ctx, true);
  if (const auto *UO = dyn_cast<UnaryOperator>(E))
    return UO->getOpcode() == UO_Deref && repeatable(UO->getSubExpr(), Ctx);
  // `(r ? loc : rmt).wait_send()`: the same choice again.
  if (const auto *CO = dyn_cast<ConditionalOperator>(E))
    return !CO->getCond()->HasSideEffects(Ctx, true) && repeatable(CO->getTrueExpr(), Ctx) &&
           repeatable(CO->getFalseExpr(), Ctx);
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    OverloadedOperatorKind K = Op->getOperator();
    if ((K != OO_Arrow && K != OO_Star && K != OO_Subscript) || Op->getNumArgs() == 0)
      return false;
    if (!repeatable(Op->getArg(0), Ctx))
      return false;
    return Op->getNumArgs() < 2 || !Op->getArg(1)->HasSideEffects(Ctx, true);
  }
  // front(), back(), at(i), value() of a standard container or optional.
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    const Expr *Object = MC->getImplicitObjectArgument();
    if (!MD || !Object || !MD->getParent()->isInStdNamespace() || !MD->getIdentifier())
      return false;
    StringRef Name = MD->getName();
    if (Name != "front" && Name != "back" && Name != "at" && Name != "value")
      return false;
    return repeatable(Object, Ctx) &&
           llvm::none_of(MC->arguments(),
                         [&](const Expr *A) { return A->HasSideEffects(Ctx, true); });
  }
  return false;
}

} // namespace

llvm::SmallVector<FixItHint, 2> definiteLocalFix(const CXXMemberCallExpr &WaitSend,
                                                ReceiveWaitAfter After, const ApiIndex &Api,
                                                ASTContext &Ctx, BodyParents &Parents) {
  const SourceManager &SM = Ctx.getSourceManager();
  const auto *Member = cast<MemberExpr>(WaitSend.getCallee()->IgnoreParens());
  Placement P = placementOf(WaitSend, Parents, Ctx);
  if (!P.Statement)
    return {};
  CharSourceRange Range = statementRange(*P.Statement, Ctx);
  if (Range.isInvalid())
    return {};
  if (After != ReceiveWaitAfter::Always) {
    std::string WaitRecv = methodWithRole(Api.model(), ApiRole::WaitRecv);
    if (WaitRecv.empty() || Member->getMemberLoc().isMacroID())
      return {};
    return {FixItHint::CreateReplacement(
        CharSourceRange::getTokenRange(Member->getMemberLoc()), WaitRecv)};
  }
  // The wait that follows already takes the bytes: remove this one. As the
  // body of an if or a loop it becomes an empty block: removed, the
  // statement after it would become the body.
  if (!isa<CompoundStmt>(P.Parent))
    return {FixItHint::CreateReplacement(Range, "{}")};
  // In a block, it goes with its line when it stands alone on it. The removal starts at the previous
  // line's line break (clang's fix-it merging drops a whitespace character
  // next to a removal that would leave two adjacent ones), so the removed
  // line's own break ends the previous line: CRLF stays CRLF.
  SourceLocation Begin = Range.getBegin(), End = Range.getEnd();
  if (std::optional<std::string> Indent = leadingIndent(Begin, SM)) {
    auto [File, Offset] = SM.getDecomposedLoc(Begin);
    size_t LineStart = Offset - Indent->size();
    StringRef Buffer = SM.getBufferData(File);
    auto [EndFile, EndOffset] = SM.getDecomposedLoc(End);
    size_t Stop = EndOffset;
    while (Stop < Buffer.size() && (Buffer[Stop] == ' ' || Buffer[Stop] == '\t'))
      ++Stop;
    bool LineEnds = Stop == Buffer.size() || Buffer[Stop] == '\n' ||
                    (Buffer[Stop] == '\r' && Stop + 1 < Buffer.size() && Buffer[Stop + 1] == '\n');
    if (LineStart > 0 && LineEnds) {
      size_t Break = LineStart >= 2 && Buffer[LineStart - 2] == '\r' ? 2 : 1;
      Begin = Begin.getLocWithOffset(-static_cast<int>(Indent->size() + Break));
      End = End.getLocWithOffset(static_cast<int>(Stop - EndOffset));
    }
  }
  return {FixItHint::CreateRemoval(CharSourceRange::getCharRange(Begin, End))};
}

llvm::SmallVector<FixItHint, 2> guardFix(const CXXMemberCallExpr &WaitSend,
                                        const ApiIndex &Api, ASTContext &Ctx,
                                        BodyParents &Parents) {
  const SourceManager &SM = Ctx.getSourceManager();
  const Expr *Object = WaitSend.getImplicitObjectArgument()->IgnoreImplicit();
  const auto *Member = cast<MemberExpr>(WaitSend.getCallee()->IgnoreParens());
  std::string IsRemote = methodWithRole(Api.model(), ApiRole::IsRemote);
  // The guard evaluates the object a second time.
  if (IsRemote.empty() || !repeatable(Object, Ctx))
    return {};
  // The object as written before the member operator, then that operator:
  // `d.`, `p->`, `opt->`, `(*p).`.
  SourceLocation ObjectBegin = WaitSend.getBeginLoc(), Operator = Member->getOperatorLoc();
  if (ObjectBegin.isMacroID() || Operator.isMacroID() || Operator.isInvalid())
    return {};
  std::string Prefix =
      Lexer::getSourceText(CharSourceRange::getCharRange(ObjectBegin, Operator), SM,
                           Ctx.getLangOpts())
          .rtrim()
          .str();
  if (Prefix.empty())
    return {};
  Placement P = placementOf(WaitSend, Parents, Ctx);
  if (!P.Statement)
    return {};
  CharSourceRange Range = statementRange(*P.Statement, Ctx);
  if (Range.isInvalid())
    return {};
  std::string Guard = "if (" + Prefix + (Member->isArrow() ? "->" : ".") + IsRemote + "())";
  std::string EOL = lineBreak(Range.getBegin(), SM);
  std::optional<std::string> Indent = leadingIndent(Range.getBegin(), SM);
  std::string ParentIndent = lineIndent(P.Parent->getBeginLoc(), SM);
  std::string Step;
  if (Indent)
    Step = Indent->size() > ParentIndent.size()
               ? Indent->substr(ParentIndent.size())
               : std::string(Indent->find('\t') != std::string::npos ? "\t" : "  ");
  // As the then-branch of an if with an else, the guard (braced or not)
  // would take that else: the branch itself gets the braces.
  if (const auto *ParentIf = dyn_cast<IfStmt>(P.Parent);
      ParentIf && ParentIf->getThen() == P.Statement && ParentIf->getElse()) {
    SourceLocation AfterParen = Lexer::getLocForEndOfToken(ParentIf->getRParenLoc(), 0, SM,
                                                           Ctx.getLangOpts());
    if (AfterParen.isInvalid() || AfterParen.isMacroID())
      return {};
    if (!Indent)
      return {FixItHint::CreateInsertion(AfterParen, " {"),
              FixItHint::CreateInsertion(Range.getBegin(), Guard + " "),
              FixItHint::CreateInsertion(Range.getEnd(), " }")};
    return {FixItHint::CreateInsertion(AfterParen, " {"),
            FixItHint::CreateInsertion(Range.getBegin(), Guard + EOL + *Indent + Step),
            FixItHint::CreateInsertion(Range.getEnd(), EOL + ParentIndent + "}")};
  }
  Bracing Style = bracingOf(*P.Statement, Parents, Ctx);
  // Deeper in the then-branch of an if with an else, through bodies with no
  // braces (`if (n > 0) for (...) d.wait_send(); else ...`), an unbraced
  // guard would take that else too: the guard and its statement go in a
  // block of their own.
  if (!Style.Braces && elseFollows(*P.Statement, P.Parent, Parents, Ctx))
    return {FixItHint::CreateInsertion(Range.getBegin(), "{ " + Guard + " "),
            FixItHint::CreateInsertion(Range.getEnd(), " }")};
  if (!Indent) {
    if (Style.Braces)
      return {FixItHint::CreateInsertion(Range.getBegin(), Guard + " { "),
              FixItHint::CreateInsertion(Range.getEnd(), " }")};
    return {FixItHint::CreateInsertion(Range.getBegin(), Guard + " ")};
  }
  if (Style.Braces)
    return {FixItHint::CreateInsertion(Range.getBegin(),
                                       Guard + (Style.OwnLine ? EOL + *Indent + "{" : " {") +
                                           EOL + *Indent + Step),
            FixItHint::CreateInsertion(Range.getEnd(), EOL + *Indent + "}")};
  return {FixItHint::CreateInsertion(Range.getBegin(), Guard + EOL + *Indent + Step)};
}

} // namespace dmalint::checks
