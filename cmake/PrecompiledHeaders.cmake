# The clang and LLVM headers that most of our translation units include,
# parsed once per target instead of once per file. They are most of a
# translation unit's compile time (docs/robustness.md, "CI time"): every
# build of the suite (plain, sanitized, fuzz, LLVM 22) compiles the same
# seventy files against them.
option(DMALINT_PRECOMPILED_HEADERS "Precompile the clang and LLVM headers of each target" ON)

set(DMALINT_PRECOMPILED_HEADER_LIST
  <clang/AST/ASTContext.h> <clang/AST/DeclCXX.h> <clang/AST/ExprCXX.h>
  <clang/AST/ParentMapContext.h> <clang/AST/RecursiveASTVisitor.h>
  <clang/ASTMatchers/ASTMatchFinder.h> <clang/ASTMatchers/ASTMatchers.h>
  <clang/Analysis/CFG.h> <clang/Basic/SourceManager.h> <clang/Lex/Lexer.h>
  <clang-tidy/ClangTidyCheck.h> <clang-tidy/ClangTidyOptions.h>
  <llvm/ADT/STLExtras.h> <llvm/ADT/StringRef.h> <llvm/Support/Error.h>
  <llvm/Support/JSON.h> <llvm/Support/raw_ostream.h>
  <map> <memory> <optional> <set> <string> <vector>)

# dmalint_precompile_headers(TARGET [REUSE_FROM OTHER]): TARGET gets the list
# above, or the precompiled header of OTHER when both compile with the same
# flags and definitions.
function(dmalint_precompile_headers target)
  cmake_parse_arguments(ARG "" "REUSE_FROM" "" ${ARGN})
  if(NOT DMALINT_PRECOMPILED_HEADERS)
    return()
  endif()
  if(ARG_REUSE_FROM)
    target_precompile_headers(${target} REUSE_FROM ${ARG_REUSE_FROM})
  else()
    target_precompile_headers(${target} PRIVATE ${DMALINT_PRECOMPILED_HEADER_LIST})
  endif()
endfunction()
