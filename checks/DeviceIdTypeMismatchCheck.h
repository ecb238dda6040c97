//===- DeviceIdTypeMismatchCheck.h ------------------------------*- C++ -*-===//
#ifndef DMALINT_CHECKS_DEVICEIDTYPEMISMATCHCHECK_H
#define DMALINT_CHECKS_DEVICEIDTYPEMISMATCHCHECK_H

#include "DmaCheck.h"

namespace dmalint::checks {

/// Flags a device id made of several mesh coordinates passed with the
/// logical device-id kind, which takes a single id.
///
/// For the user-facing documentation see:
/// docs/checks/dma-device-id-type-mismatch.md
class DeviceIdTypeMismatchCheck : public DmaCheck {
public:
  using DmaCheck::DmaCheck;
  void registerDmaMatchers(DmaMatchers &Matchers) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
};

} // namespace dmalint::checks

#endif
