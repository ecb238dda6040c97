#!/usr/bin/env python3
"""Inputs of bench/run.py: generated C++ translation units, all clean code
(dmalint must report nothing on any of them; a finding means the generator is
wrong or the analysis has a false positive).

Each generator returns the text of one translation unit compiled with
`-std=c++17 -I<repo>/include`. Run standalone to write them for inspection:

  bench/generate.py OUTDIR [--quick]
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "test", "corpus")

# The headers of the realistic and the no-API translation units: what a host
# or kernel source file of a real project pulls in.
HEAVY_HEADERS = ["algorithm", "array", "cassert", "cstddef", "cstdint", "functional", "map",
                 "memory", "numeric", "optional", "set", "string", "tuple", "unordered_map",
                 "utility", "vector"]


def corpus_kernels():
    """The clean corpus kernels (test/corpus/<name>.cc, not the .bug- variants)."""
    return sorted(f for f in os.listdir(CORPUS) if f.endswith(".cc") and ".bug-" not in f)


def _headers(with_dma):
    out = ["#include <tpu/dma.h>"] if with_dma else []
    return out + [f"#include <{h}>" for h in HEAVY_HEADERS] + [""]


HOST_COMMON = """namespace host {
struct Shard {
  std::string name;
  int device = 0;
  std::vector<int> rows;
  std::optional<double> weight;
};
using Groups = std::map<int, std::vector<Shard>>;
using Plan = std::vector<std::tuple<int, std::string, long>>;
}  // namespace host
"""


def _host_module(j):
    """Ordinary host-side C++ with no DMA API: planning code over standard
    containers and algorithms (the kind of code that shares a translation unit
    with kernels, and that a no-API file is made of). The types are shared
    (HOST_COMMON); each module's lambdas instantiate the algorithms anew."""
    return f"""namespace host_{j} {{
using host::Shard;
using host::Groups;
inline Groups group_by_device(const std::vector<Shard>& shards) {{
  Groups groups;
  for (const Shard& s : shards) groups[s.device + {j}].push_back(s);
  return groups;
}}
inline void sort_shards(std::vector<Shard>& shards) {{
  std::sort(shards.begin(), shards.end(), [](const Shard& a, const Shard& b) {{
    return a.device != b.device ? a.device < b.device : a.name < b.name;
  }});
}}
inline std::optional<int> first_row_above(const Shard& s, int limit) {{
  auto it = std::find_if(s.rows.begin(), s.rows.end(), [&](int r) {{ return r > limit + {j}; }});
  if (it == s.rows.end()) return std::nullopt;
  return *it;
}}
inline long total_rows(const Groups& groups) {{
  long total = 0;
  for (const auto& [device, shards] : groups)
    for (const Shard& s : shards) total += std::accumulate(s.rows.begin(), s.rows.end(), 0L);
  return total;
}}
inline double total_weight(const std::vector<Shard>& shards) {{
  double w = 0;
  for (const Shard& s : shards) {{
    if (s.weight.has_value()) {{
      w += s.weight.value();
    }}
  }}
  return w;
}}
inline std::unordered_map<std::string, std::size_t> index_by_name(const std::vector<Shard>& shards) {{
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < shards.size(); ++i) index.emplace(shards[i].name, i);
  return index;
}}
inline std::set<int> devices(const Groups& groups) {{
  std::set<int> out;
  std::transform(groups.begin(), groups.end(), std::inserter(out, out.end()),
                 [](const auto& kv) {{ return kv.first; }});
  return out;
}}
inline int checksum(const std::string& s) {{
  int h = {j};
  for (char c : s) {{
    h = h * 31 + c;
    if (h > 1000000) {{
      h %= 1000003;
    }}
  }}
  return h;
}}
inline const char* status_name(int code) {{
  switch (code) {{
    case 0: return "ok";
    case 1: return "pending";
    case 2: return "failed";
    default: return "unknown";
  }}
}}
struct Stats {{
  long count = 0;
  double mean = 0, m2 = 0;
  void add(double x) {{
    ++count;
    double delta = x - mean;
    mean += delta / count;
    m2 += delta * (x - mean);
  }}
  double variance() const {{ return count > 1 ? m2 / (count - 1) : 0.0; }}
}};
inline Stats row_stats(const std::vector<Shard>& shards) {{
  Stats st;
  for (const Shard& s : shards) {{
    for (int r : s.rows) {{
      st.add(r * 0.5 + checksum(s.name) % 7);
    }}
  }}
  return st;
}}
class Planner {{
 public:
  explicit Planner(std::vector<Shard> shards) : shards_(std::move(shards)) {{ sort_shards(shards_); }}
  std::function<bool(const Shard&)> filter = [](const Shard& s) {{ return s.device != {j}; }};
  host::Plan plan() const {{
    host::Plan out;
    auto owned = std::make_unique<Groups>(group_by_device(shards_));
    for (const auto& [device, shards] : *owned) {{
      for (const Shard& s : shards) {{
        if (!filter(s)) {{
          continue;
        }}
        out.emplace_back(device, s.name, static_cast<long>(s.rows.size()));
      }}
    }}
    std::sort(out.begin(), out.end());
    return out;
  }}
 private:
  std::vector<Shard> shards_;
}};
}}  // namespace host_{j}
"""


def realistic(copies):
    """A large realistic translation unit: heavy standard headers and the
    kernel header, then `copies` copies of every clean corpus kernel (each in
    its own namespace, so 9 * copies kernel files' worth of code) interleaved
    with host-side planning code over standard containers."""
    out = _headers(True) + [HOST_COMMON]
    for j in range(copies):
        out.append(_host_module(j))
        for name in corpus_kernels():
            with open(os.path.join(CORPUS, name)) as f:
                body = [line for line in f.read().splitlines() if not line.startswith("#include")]
            ns = "k%d_%s" % (j, re.sub(r"\W", "_", name[:-3]))
            out.append(f"namespace {ns} {{")
            out += body
            out.append(f"}}  // namespace {ns}")
    return "\n".join(out) + "\n"


def no_api(modules):
    """A large translation unit with no DMA API at all (not even the header):
    heavy standard headers and `modules` namespaces of host-side code."""
    out = _headers(False) + [HOST_COMMON]
    for j in range(modules):
        out.append(_host_module(j))
        # Instantiate the templates a real caller would.
        out.append(f"""inline long use_host_{j}(std::vector<host_{j}::Shard> shards) {{
  host_{j}::Planner planner(shards);
  auto plan = planner.plan();
  auto groups = host_{j}::group_by_device(shards);
  long n = host_{j}::total_rows(groups) + static_cast<long>(host_{j}::devices(groups).size());
  for (const auto& s : shards) {{
    if (auto r = host_{j}::first_row_above(s, 3)) {{
      n += *r;
    }}
  }}
  return n + static_cast<long>(plan.size() + host_{j}::index_by_name(shards).size()) +
         static_cast<long>(host_{j}::total_weight(shards));
}}""")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------
# Kernel source files as users open them (issue 18): mostly kernels, and the
# file with the bug.

# What a kernel file includes: the corpus kernels' own headers, and three more.
# The size of the dense inputs, as in issue 18: as many copies of the corpus
# as make about 700 KB (the corpus grows, so the copies are counted, not set).
DENSE_BYTES = 700_000


def dense_copies():
    """Copies of the clean corpus kernels that make about DENSE_BYTES."""
    one = sum(len("\n".join(_kernel_body(name))) for name in corpus_kernels())
    return max(1, round(DENSE_BYTES / one))

DENSE_HEADERS = ["algorithm", "array", "cassert", "cstddef", "cstdint", "functional", "memory",
                 "optional", "tuple", "utility", "vector"]


def bug_variants():
    """By clean corpus kernel, its planted-bug variants (`name.bug-<what>.cc`)."""
    variants = {name: [] for name in corpus_kernels()}
    for f in sorted(os.listdir(CORPUS)):
        if ".bug-" in f and f.endswith(".cc"):
            variants.setdefault(f.split(".bug-")[0] + ".cc", []).append(f)
    return variants


def _kernel_body(name):
    with open(os.path.join(CORPUS, name)) as f:
        return [line for line in f.read().splitlines() if not line.startswith("#include")]


def dense(copies, findings=False):
    """A translation unit of kernels only: `copies` copies of every clean
    corpus kernel (each in its own namespace) after the tpu header and
    eleven standard headers, no host code. With `findings`, each kernel is
    one of its planted-bug variants instead (in turn): one finding per
    kernel file, about one function in five (a corpus kernel file defines
    five functions on average, helpers and lambdas included)."""
    out = ["#include <tpu/dma.h>"] + [f"#include <{h}>" for h in DENSE_HEADERS] + [""]
    variants = bug_variants()
    for j in range(copies):
        for name in corpus_kernels():
            source = name
            if findings and variants[name]:
                source = variants[name][j % len(variants[name])]
            ns = "k%d_%s" % (j, re.sub(r"\W", "_", name[:-3]))
            out.append(f"namespace {ns} {{")
            out += _kernel_body(source)
            out.append(f"}}  // namespace {ns}")
    return "\n".join(out) + "\n"


def host_with_one_finding(modules):
    """A large file of host code (the no-API translation unit, with the tpu
    header) and one small kernel with one definite finding: a
    `wait_send()` on a local copy, whose fix-it (a receive wait follows, so
    the wait_send goes) is placed in the kernel's own statements."""
    out = ["#include <tpu/dma.h>", no_api(modules)]
    out.append("""using namespace tpu;

void local_fetch(Ref<float> src, Ref<float> dst, DmaSemaphore sem) {
  AsyncCopyDescriptor fetch = make_async_copy(src, dst, sem);
  fetch.start();
  fetch.wait_send();
  fetch.wait_recv();
}""")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------
# The shared skeleton: one control-flow shape, written twice.

KERNEL_PARAMS = "Ref<float> a, Ref<float> b, DmaSemaphore s, DmaSemaphore r, int k, int n"


def skeleton(blocks, flavor, functions=1, planted=False):
    """`functions` functions of `blocks` blocks each. Block i declares a
    value, makes it "present" under the condition `k > i` (a remote copy /
    an engaged optional) and leaves it "absent" otherwise (a local copy /
    nullopt), uses it unconditionally, then does the guarded operation
    (`wait_send` under `is_remote()` / `value()` under `has_value()`); every
    other block runs inside a loop. The two flavours have the same CFG.

    With `planted`, the first and the last block outside a loop also do the
    operation unguarded (a `wait_send` on a maybe-local copy / a `value()` of
    a maybe-empty optional): two real bugs per function, which a check that
    analysed the function reports."""
    assert flavor in ("dma", "optional")
    last_outside = blocks - 1 if (blocks - 1) % 2 == 0 else blocks - 2
    if flavor == "dma":
        out = ["#include <tpu/dma.h>", "using namespace tpu;", ""]
        params = KERNEL_PARAMS
    else:
        out = ["#include <tpu/dma.h>", "#include <optional>", "using namespace tpu;", "",
               "void touch(const std::optional<int>& o);", "void sink(int v);", ""]
        params = "int k, int n"
    for f in range(functions):
        out.append(f"void skeleton_{f}({params}) {{")
        for i in range(blocks):
            v = f"d{i}"
            if flavor == "dma":
                body = [
                    f"AsyncCopyDescriptor {v} = make_async_copy(a, b, s);",
                    f"if (k > {i}) {{",
                    f"  {v} = make_async_remote_copy(a, b, s, r, DeviceId({i}));",
                    "}",
                    f"{v}.start();",
                    f"if ({v}.is_remote()) {{",
                    f"  {v}.wait_send();",
                    "}",
                    f"{v}.wait_recv();",
                ]
            else:
                body = [
                    f"std::optional<int> {v};",
                    f"if (k > {i}) {{",
                    f"  {v} = {i};",
                    "}",
                    f"touch({v});",
                    f"if ({v}.has_value()) {{",
                    f"  sink({v}.value());",
                    "}",
                    f"touch({v});",
                ]
            if planted and i in (0, last_outside):
                body.insert(5, f"{v}.wait_send();  // planted bug: maybe local"
                            if flavor == "dma" else f"sink({v}.value());  // planted bug: maybe empty")
            if i % 2:
                out.append("  for (int j = 0; j < n; ++j) {")
                out += ["    " + line for line in body]
                out.append("  }")
            else:
                out += ["  " + line for line in body]
        out.append("}")
        out.append("")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------
# Scaling families. Each takes a size n; the sizes go up by 10x.

def straight(n):
    """One function with n descriptors and about 4n statements, no branch:
    even ones remote (started at priority 0, both sides waited), odd ones
    local (started at priority 1, receive side waited)."""
    out = ["#include <tpu/dma.h>", "using namespace tpu;", "",
           f"void straight({KERNEL_PARAMS}) {{"]
    for i in range(n):
        if i % 2 == 0:
            out += [f"  AsyncCopyDescriptor d{i} = make_async_remote_copy(a.at({i}), b.at({i}), s, r, DeviceId({i}));",
                    f"  d{i}.start();",
                    f"  d{i}.wait_send();",
                    f"  d{i}.wait_recv();"]
        else:
            out += [f"  AsyncCopyDescriptor d{i} = make_async_copy(a.at({i}), b.at({i}), s);",
                    f"  d{i}.start(1);",
                    f"  d{i}.wait_recv();"]
    out.append("}")
    return "\n".join(out) + "\n"


def branches(n):
    """The path-explosion case: one function with n sequential if/else blocks,
    each on its own condition (`k > i`, a distinct atom), reassigning one of
    four descriptors to a remote or a local copy, then waiting its send side
    under the same condition (correlated) and another descriptor's under
    is_remote(). 2^n paths; values carry assumptions on n atoms."""
    out = ["#include <tpu/dma.h>", "using namespace tpu;", "",
           f"void branches({KERNEL_PARAMS}) {{"]
    for v in range(4):
        out += [f"  AsyncCopyDescriptor d{v} = make_async_copy(a, b, s);",
                f"  d{v}.start();",
                f"  d{v}.wait_recv();"]
    for i in range(n):
        v, w = i % 4, (i + 1) % 4
        out += [f"  if (k > {i}) {{",
                f"    d{v} = make_async_remote_copy(a.at({i}), b.at({i}), s, r, DeviceId({i}));",
                f"    d{v}.start();",
                "  } else {",
                f"    d{v} = make_async_copy(a.at({i}), b.at({i}), s);",
                f"    d{v}.start(1);",
                "  }",
                f"  if (k > {i}) {{",
                f"    d{v}.wait_send();",
                "  }",
                f"  if (d{w}.is_remote()) {{",
                f"    d{w}.wait_send();",
                "  }",
                f"  d{w}.wait_recv();"]
    out.append("}")
    return "\n".join(out) + "\n"


def loops(n):
    """Nested loops over containers: one function with n loop nests, each
    filling a std::vector of descriptors in a double loop inside a step loop
    (remote or local by parity), then starting and draining it in range-for
    loops (send side under is_remote())."""
    out = ["#include <tpu/dma.h>", "#include <vector>", "using namespace tpu;", "",
           f"void loops({KERNEL_PARAMS}) {{"]
    for i in range(n):
        out += [f"  for (int step = 0; step < n; ++step) {{",
                f"    std::vector<AsyncCopyDescriptor> q{i};",
                "    for (int x = 0; x < k; ++x) {",
                "      for (int y = 0; y < k; ++y) {",
                "        if ((x + y) % 2) {",
                f"          q{i}.push_back(make_async_remote_copy(a.at(x), b.at(y), s, r, DeviceId({i})));",
                "        } else {",
                f"          q{i}.push_back(make_async_copy(a.at(x), b.at(y), s));",
                "        }",
                "      }",
                "    }",
                f"    for (AsyncCopyDescriptor& d : q{i}) {{",
                "      d.start();",
                "    }",
                f"    for (AsyncCopyDescriptor& d : q{i}) {{",
                "      if (d.is_remote()) {",
                "        d.wait_send();",
                "      }",
                "      d.wait_recv();",
                "    }",
                "  }"]
    out.append("}")
    return "\n".join(out) + "\n"


def kernels(n):
    """A translation unit with n small kernels in four corpus-like shapes."""
    out = ["#include <tpu/dma.h>", "#include <vector>", "using namespace tpu;", ""]
    for i in range(n):
        shape = i % 4
        out.append(f"void kernel_{i}({KERNEL_PARAMS}) {{")
        if shape == 0:
            out += [f"  auto d = k % 2 ? make_async_remote_copy(a, b, s, r, DeviceId({i})) : make_async_copy(a, b, s);",
                    "  d.start();",
                    "  if (d.is_remote()) {",
                    "    d.wait_send();",
                    "  }",
                    "  d.wait_recv();"]
        elif shape == 1:
            out += ["  std::vector<AsyncCopyDescriptor> issued;",
                    "  for (int j = 0; j < n; ++j) {",
                    "    issued.push_back(make_async_copy(a.at(j), b.at(j), s));",
                    f"    issued.push_back(make_async_remote_copy(a.at(j), b.at(j), s, r, DeviceId({i})));",
                    "  }",
                    "  for (auto& d : issued) {",
                    "    d.start();",
                    "  }",
                    "  for (auto& d : issued) {",
                    "    if (d.is_remote()) {",
                    "      d.wait_send();",
                    "    }",
                    "    d.wait_recv();",
                    "  }"]
        elif shape == 2:
            out += ["  const bool forward = k + 1 < n;",
                    f"  AsyncCopyDescriptor out = forward ? make_async_remote_copy(a, b, s, r, DeviceId({i}))",
                    "                                    : make_async_copy(a, b, s);",
                    "  out.start();",
                    "  if (forward) {",
                    "    out.wait_send();",
                    "  }",
                    "  out.wait_recv();"]
        else:
            out += ["  AsyncCopyDescriptor fetch = make_async_copy(a.at(k), b, s);",
                    "  fetch.start(1);",
                    "  fetch.wait();",
                    f"  async_remote_copy(b, a, s, r, DeviceId({i})).wait();"]
        out.append("}")
    return "\n".join(out) + "\n"


def reassign(n):
    """The first slow input of issue 14: one function of n steps, each
    reassigning one descriptor to a local copy under its own condition
    (`k == i`, a distinct atom), then starting it and waiting its send side
    under is_remote(). Values pile up one origin per step: before the
    bounds on a location's values, 231 s at n = 1,250."""
    out = ["#include <tpu/dma.h>", "using namespace tpu;", "",
           f"void reassign({KERNEL_PARAMS}) {{",
           "  AsyncCopyDescriptor d = make_async_remote_copy(a, b, s, r, DeviceId(1));"]
    for i in range(n):
        out += [f"  if (k == {i}) d = make_async_copy(a.at({i}), b, s);",
                "  d.start();",
                "  if (d.is_remote()) d.wait_send();",
                "  d.wait_recv();"]
    out.append("}")
    return "\n".join(out) + "\n"


def initlist(n):
    """The second slow input of issue 14: one std::vector initialiser list
    of n descriptors (remote and local in turn), drained with the send side
    under is_remote(). Before the bounds, 49 s at n = 4,000."""
    out = ["#include <tpu/dma.h>", "#include <vector>", "using namespace tpu;", "",
           f"void initlist({KERNEL_PARAMS}) {{",
           "  std::vector<AsyncCopyDescriptor> v{"]
    items = [f"      make_async_remote_copy(a.at({i}), b, s, r, DeviceId({i}))" if i % 2 == 0
             else f"      make_async_copy(a.at({i}), b, s)" for i in range(n)]
    out.append(",\n".join(items))
    out += ["  };",
            "  for (auto &d : v) d.start();",
            "  for (auto &d : v) {",
            "    if (d.is_remote()) d.wait_send();",
            "    d.wait_recv();",
            "  }",
            "}"]
    return "\n".join(out) + "\n"


SCALING = {
    # name: (generator, sizes, quick sizes, what)
    "straight": (straight, [10, 100, 1000, 10000], [10, 100, 1000],
                 "one function, n descriptors, ~4n statements"),
    "branches": (branches, [20, 200, 2000], [20, 200],
                 "one function, n sequential if/else blocks (path explosion)"),
    "loops": (loops, [10, 100, 1000, 10000], [10, 100],
              "one function, n loop nests over std::vector<AsyncCopyDescriptor>"),
    "kernels": (kernels, [5, 50, 500, 5000], [5, 50, 500],
                "n small kernels in one translation unit"),
    "reassign": (reassign, [12, 125, 1250], [12, 125],
                 "one function, n conditional reassignments of one descriptor"),
    "initlist": (initlist, [40, 400, 4000], [40, 400],
                 "one std::vector initialiser list of n descriptors"),
}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    outdir = sys.argv[1]
    quick = "--quick" in sys.argv
    os.makedirs(outdir, exist_ok=True)
    files = {"realistic.cc": realistic(2 if quick else 10), "no_api.cc": no_api(8 if quick else 50),
             "dense.cc": dense(2 if quick else dense_copies()),
             "dense_findings.cc": dense(2 if quick else dense_copies(), findings=True),
             "host_finding.cc": host_with_one_finding(8 if quick else 50)}
    for blocks in ([10, 100] if quick else [10, 100, 1000]):
        for flavor in ("dma", "optional"):
            files[f"skeleton_{flavor}_{blocks}.cc"] = skeleton(blocks, flavor)
    for name, (gen, sizes, quick_sizes, _) in SCALING.items():
        for n in (quick_sizes if quick else sizes):
            files[f"{name}_{n}.cc"] = gen(n)
    for name, text in files.items():
        with open(os.path.join(outdir, name), "w") as f:
            f.write(text)
        print(name, text.count("\n"), "lines")


if __name__ == "__main__":
    main()
