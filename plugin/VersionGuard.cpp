//===- VersionGuard.cpp - Refuse to run inside the wrong clang-tidy -------===//
//
// A plugin built against one clang-tidy release and loaded into another loads
// without complaint and then silently runs nothing (or worse, crashes on an
// ABI mismatch). Check the host's version when the library is loaded and stop
// with a message that says what to do.
//
//===----------------------------------------------------------------------===//
#include "clang/Basic/Version.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>
#include <string>

namespace {

struct VersionGuard {
  VersionGuard() {
    // getClangFullVersion() comes from the host clang-tidy, while
    // DMALINT_EXPECTED_CLANG_VERSION is the release this plugin was built for.
    std::string Host = clang::getClangFullVersion();
    std::string Expected = DMALINT_EXPECTED_CLANG_VERSION;
    std::string Needle = "version " + Expected;
    size_t At = Host.find(Needle);
    char After = At == std::string::npos ? 0 : Host[At + Needle.size()];
    bool Match = At != std::string::npos && (After == 0 || After == ' ' || After == '-' ||
                                             After == '~' || After == '+' || After == '(');
    if (Match)
      return;
    llvm::errs() << "error: libdmalint-tidy was built for clang-tidy " << Expected
                 << ", but this clang-tidy is '" << Host
                 << "'; rebuild dmalint against this LLVM (cmake "
                    "-DDMALINT_LLVM_MAJOR=<major>) or run the matching clang-tidy\n";
    std::_Exit(2);
  }
};

VersionGuard Guard;

} // namespace
