//===- Identity.h - What a finding is about, read from the AST --*- C++ -*-===//
//
// A finding's fingerprint (Fingerprint.h) must survive what does not change
// the finding: lines inserted above it, a comment edited on its line, the
// file renamed or checked out elsewhere, the message reworded in a release.
// So it is made of what the AST says at the finding's location, while the
// AST is still there: the enclosing function, the descriptor concerned, and
// the tokens of the statement.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_TOOL_IDENTITY_H
#define DMALINT_TOOL_IDENTITY_H

#include "Findings.h"
#include "dmalint/ApiModel.h"
#include "clang/AST/ASTContext.h"
#include <vector>

namespace dmalint::tool {

/// The declarations at the top of a translation unit with the files they
/// begin and end in, read once: a location is then ordered against those of
/// its own files only, not against each declaration of the standard headers
/// (a file with many findings places each of them).
class TopLevelDecls {
public:
  explicit TopLevelDecls(const clang::ASTContext &Ctx);

  struct Entry {
    const clang::Decl *D;
    clang::FileID Begin, End;
  };
  const std::vector<Entry> &entries() const { return Entries; }

private:
  std::vector<Entry> Entries;
};

/// What the code at \p Loc is:
/// - Function: the qualified name of the innermost function (not lambda)
///   whose definition holds \p Loc, or empty at namespace scope;
/// - Statement: the innermost statement holding \p Loc (a declaration at
///   namespace scope), as its tokens one space apart: comments and layout do
///   not count; of an if, a loop or a switch, only the part outside its
///   bodies;
/// - Descriptor: the descriptor \p Loc is about, as spelled: the object of
///   the descriptor method called there, the descriptor (or container or
///   pointer of them) named there, or the one the statement declares.
/// \p Api may be null (then no descriptor is named).
/// \p Index, if given: the translation unit's, for many calls.
FindingIdentity identify(clang::ASTContext &Ctx, clang::SourceLocation Loc, const ApiIndex *Api,
                         const TopLevelDecls *Index = nullptr);

/// The innermost function whose definition holds \p Loc, as its qualified
/// name and where it is declared ("ns::f@file:offset"), or empty: which
/// notes of a finding are in the same function as the finding.
std::string enclosingFunction(clang::ASTContext &Ctx, clang::SourceLocation Loc,
                              const TopLevelDecls *Index = nullptr);

} // namespace dmalint::tool

#endif
