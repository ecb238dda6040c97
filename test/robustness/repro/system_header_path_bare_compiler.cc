// Reproducer (found by test/robustness/run_corpus.py on llvm/MC/MCGOFFStreamer.h):
// with -p, when the compile command names the compiler without a directory
// ("clang++", "c++", "g++", as meson and Bear write it), a compiler error
// located in a libstdc++ header is printed with a wrong path and no line:
//
//   /include/c++/12/bits/unique_ptr.h:0:0: error: invalid application of 'sizeof' to an incomplete type 'Incomplete'
//
// instead of /usr/include/c++/12/bits/unique_ptr.h:93:16 (what the `--` form,
// or a compile command with /usr/bin/c++, prints). The driver then finds GCC
// through /lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12, /lib being a
// symlink to usr/lib on Debian; removing the `..` lexically
// (llvm::sys::path::remove_dots with remove_dot_dot, tool/Diagnostics.cpp and
// others) gives /include/..., which does not exist, so the line and column
// cannot be computed either. Run system_header_path_bare_compiler.sh.
#include <memory>

struct Incomplete;

struct Holder {
  std::unique_ptr<Incomplete> p;
  ~Holder() {}  // instantiates ~unique_ptr<Incomplete>: an error inside <memory>
};
