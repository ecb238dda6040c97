//===- ScopeExit.h - Run a callable when the scope ends, on LLVM 19 and 22 -===//
//
// LLVM 22 deprecates llvm::make_scope_exit for the constructor of
// llvm::scope_exit, which LLVM 19 keeps in llvm::detail.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_LIB_SCOPEEXIT_H
#define DMALINT_LIB_SCOPEEXIT_H

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Config/llvm-config.h"
#include <type_traits>
#include <utility>

namespace dmalint {

template <typename Callable> auto onScopeExit(Callable &&F) {
#if LLVM_VERSION_MAJOR >= 22
  return llvm::scope_exit<std::decay_t<Callable>>(std::forward<Callable>(F));
#else
  return llvm::make_scope_exit(std::forward<Callable>(F));
#endif
}

} // namespace dmalint

#endif
