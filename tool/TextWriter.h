//===- TextWriter.h - Findings in clang's diagnostic format -----*- C++ -*-===//
//
// The standalone driver renders findings itself, in clang's format
// (location, level, message, [check], source line, caret), so that its
// output reads exactly like the plugin's inside clang-tidy.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_TOOL_TEXTWRITER_H
#define DMALINT_TOOL_TEXTWRITER_H

#include "Findings.h"
#include "llvm/Support/raw_ostream.h"

namespace dmalint::tool {

/// Prints every finding of \p Findings, with its notes, in clang's format.
void printFindings(llvm::ArrayRef<const Finding *> Findings, llvm::raw_ostream &OS,
                   bool UseColor);

} // namespace dmalint::tool

#endif
