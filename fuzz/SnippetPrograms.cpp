//===- SnippetPrograms.cpp - Kernels of the fuzz grammar as files ---------===//
//
// Writes the translation units that random inputs of fuzz-snippet's grammar
// decode to, one file each, from a fixed seed: the same programs on every
// machine, for the fix-it differential test (test/differential/) and for
// comparing what two builds find (test/differential/run_differential.py
// --dump). Built without libFuzzer or sanitizers, so the plain build has it.
//
//   snippet-programs --seed N --count K --out DIR
//
//===----------------------------------------------------------------------===//
#include "SnippetGrammar.h"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>

int main(int Argc, char **Argv) {
  unsigned long Seed = 20261201, Count = 200;
  std::string Out;
  for (int I = 1; I + 1 < Argc; I += 2) {
    std::string Flag = Argv[I];
    char *End = nullptr;
    if (Flag == "--out") {
      Out = Argv[I + 1];
      continue;
    }
    unsigned long Value = std::strtoul(Argv[I + 1], &End, 10);
    if (!*Argv[I + 1] || *End) {
      std::fprintf(stderr, "snippet-programs: %s needs a number, got '%s'\n", Flag.c_str(),
                   Argv[I + 1]);
      return 2;
    }
    if (Flag == "--seed")
      Seed = Value;
    else if (Flag == "--count")
      Count = Value;
    else {
      std::fprintf(stderr, "snippet-programs: unknown option '%s'\n", Flag.c_str());
      return 2;
    }
  }
  if (Out.empty() || Argc % 2 == 0) {
    std::fprintf(stderr, "usage: snippet-programs [--seed N] [--count K] --out DIR\n");
    return 2;
  }
  std::mt19937 Random(Seed);
  for (unsigned long I = 0; I < Count; ++I) {
    std::vector<uint8_t> Bytes(8 + Random() % 400);
    for (uint8_t &B : Bytes)
      B = static_cast<uint8_t>(Random());
    dmalint::fuzz::Snippet S = dmalint::fuzz::decodeSnippet(Bytes.data(), Bytes.size());
    char Name[32];
    std::snprintf(Name, sizeof Name, "/program-%04lu.cc", I);
    std::ofstream File(Out + Name, std::ios::binary);
    // Only the built-in API model: the other variants need their own
    // .clang-tidy, and the grammar's code is the same for all of them.
    File << "// snippet-programs --seed " << Seed << ", program " << I << "\n" << S.Code;
    if (!File) {
      std::fprintf(stderr, "snippet-programs: cannot write %s%s\n", Out.c_str(), Name);
      return 2;
    }
  }
  return 0;
}
