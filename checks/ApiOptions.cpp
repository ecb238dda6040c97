//===- ApiOptions.cpp - The API model every dma-* check reads -------------===//
#include "ApiOptions.h"

namespace dmalint::checks {

std::shared_ptr<const ApiIndex> loadApiIndex() {
  static const auto Builtin = std::make_shared<const ApiIndex>(ApiModel::builtin());
  return Builtin;
}

} // namespace dmalint::checks
