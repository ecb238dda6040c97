#!/bin/sh
# Runs the reproducer of system_header_path_bare_compiler.cc through `dmalint -p`
# with a bare compiler name, then with an absolute one, and shows the error line
# of each. Usage: system_header_path_bare_compiler.sh [DMALINT]  (default build/bin/dmalint)
set -u
here=$(cd "$(dirname "$0")" && pwd)
dmalint=${1:-$here/../../../build/bin/dmalint}
dir=$(mktemp -d)
cp "$here/system_header_path_bare_compiler.cc" "$dir/repro.cc"
for cc in clang++ /usr/bin/c++; do
  printf '[{"directory": "%s", "file": "%s/repro.cc", "arguments": ["%s", "-std=c++17", "-c", "%s/repro.cc"]}]\n' \
    "$dir" "$dir" "$cc" "$dir" > "$dir/compile_commands.json"
  echo "compiler $cc:"
  "$dmalint" -p "$dir" 2>&1 | grep 'error: invalid'
done
rm -rf "$dir"
# Seen with dmalint 0.1.0 (main at 5a291e8):
#   compiler clang++:
#   /include/c++/12/bits/unique_ptr.h:0:0: error: invalid application of 'sizeof' to an incomplete type 'Incomplete'
#   compiler /usr/bin/c++:
#   /usr/include/c++/12/bits/unique_ptr.h:93:16: error: invalid application of 'sizeof' to an incomplete type 'Incomplete'
