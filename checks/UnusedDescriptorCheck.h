//===- UnusedDescriptorCheck.h ----------------------------------*- C++ -*-===//
#ifndef DMALINT_CHECKS_UNUSEDDESCRIPTORCHECK_H
#define DMALINT_CHECKS_UNUSEDDESCRIPTORCHECK_H

#include "DataflowCheck.h"

namespace dmalint::checks {

/// Flags a descriptor that is built and then, on every path, neither started
/// nor waited, and never leaves the function.
///
/// For the user-facing documentation see: docs/checks/dma-unused-descriptor.md
class UnusedDescriptorCheck : public DataflowCheck {
public:
  using DataflowCheck::DataflowCheck;
  void registerDmaMatchers(DmaMatchers &Matchers) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
};

} // namespace dmalint::checks

#endif
