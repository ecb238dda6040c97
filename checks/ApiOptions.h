//===- ApiOptions.h - The API model every dma-* check reads -----*- C++ -*-===//
//
// One loader for the API model, so that all checks agree on what the API is.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_CHECKS_APIOPTIONS_H
#define DMALINT_CHECKS_APIOPTIONS_H

#include "dmalint/ApiModel.h"
#include <memory>

namespace dmalint::checks {

/// The API model in force. Today the built-in model of <tpu/dma.h>.
std::shared_ptr<const ApiIndex> loadApiIndex();

} // namespace dmalint::checks

#endif // DMALINT_CHECKS_APIOPTIONS_H
