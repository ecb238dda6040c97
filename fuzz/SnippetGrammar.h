//===- SnippetGrammar.h - Kernels decoded from fuzz input ---------*- C++ -*-===//
//
// fuzz-snippet does not feed its input to clang as C++ (that mostly exercises
// clang's parser). It reads the input as a sequence of choices (one byte
// each, taken modulo the number of alternatives) in a grammar of statement
// templates over descriptors, containers, pointers, optionals, semaphores and
// bools, and prints a translation unit that includes <tpu/dma.h>. Running out
// of input picks the first alternative everywhere, which ends every list, so
// any input decodes to a finite program. The grammar is in docs/fuzzing.md.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_FUZZ_SNIPPETGRAMMAR_H
#define DMALINT_FUZZ_SNIPPETGRAMMAR_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace dmalint::fuzz {

/// What the input's first bytes choose besides the code.
struct SnippetConfig {
  bool RunChecks = false;      ///< Also run the dma-* checks through clang-tidy's library.
  unsigned ModelVariant = 0;   ///< Index into modelVariants().
  unsigned SmallWorkLimit = 50; ///< Limits of the extra run with a small budget.
  unsigned SmallMaxValues = 32;
  unsigned SmallLambdaDepth = 4;
};

struct Snippet {
  std::string Code;
  SnippetConfig Config;
  /// Grammar productions the input used (to pick seeds that cover them all).
  std::set<std::string> Productions;
};

/// Decodes \p Data (any bytes) into a kernel translation unit.
Snippet decodeSnippet(const uint8_t *Data, size_t Size);

/// The #include lines every snippet starts with (and nothing else).
const char *snippetIncludes();

/// The dma.* options of each API-model variant (0 is the built-in model).
/// Each applies without errors and names only what <tpu/dma.h> has, so it is a
/// model the checks would accept.
const std::vector<std::map<std::string, std::string>> &modelVariants();

} // namespace dmalint::fuzz

#endif
