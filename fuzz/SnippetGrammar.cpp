//===- SnippetGrammar.cpp - Kernels decoded from fuzz input ---------------===//
#include "SnippetGrammar.h"
#include <algorithm>
#include <functional>

namespace dmalint::fuzz {

namespace {

/// The input as a stream of choices. Past its end every choice is 0.
class Choices {
public:
  Choices(const uint8_t *Data, size_t Size) : Data(Data), Size(Size) {}
  /// One of 0..N-1; a choice of one alternative reads nothing.
  unsigned pick(unsigned N) {
    if (N <= 1 || Pos >= Size)
      return 0;
    return Data[Pos++] % N;
  }
  std::string raw(size_t N) {
    N = std::min(N, Size - std::min(Pos, Size));
    std::string S(reinterpret_cast<const char *>(Data) + Pos, N);
    Pos += N;
    return S;
  }
  bool exhausted() const { return Pos >= Size; }

private:
  const uint8_t *Data;
  size_t Size;
  size_t Pos = 0;
};

enum class Kind {
  Desc,   // AsyncCopyDescriptor (object or reference)
  Ptr,    // AsyncCopyDescriptor *
  Opt,    // std::optional<AsyncCopyDescriptor>
  Vec,    // std::vector<AsyncCopyDescriptor>
  Arr,    // std::array<AsyncCopyDescriptor, 2>
  CArr,   // AsyncCopyDescriptor[2]
  Pair,   // struct Pair { AsyncCopyDescriptor x, y; }
  OptSem, // std::optional<DmaSemaphore>
  OptDev, // std::optional<DeviceId>
  Bool,
  Int,
  Lambda, // a void() lambda
  Ref,    // Ref<float>
  Sem,    // DmaSemaphore
  SemArr, // SemaphoreArray<DmaSemaphore>
};

struct Var {
  std::string Name;
  Kind K;
  bool Capturable = true; ///< Can be named in a capture list (not a member).
};

struct Scope {
  std::vector<Var> Vars;
  int Parent = -1;
  bool Barrier = false; ///< A captureless lambda: outer locals are not visible.
};

enum class Ret { Void, Desc, Vec };

struct Label {
  std::string Name;
  int ParentScope; ///< The scope holding the block the label starts.
};

/// One function or lambda body.
struct Context {
  Ret R = Ret::Void;
  bool Template = false;
  bool Member = false;
  std::vector<Label> Labels;
  std::string EndLabel;
  bool EndUsed = false;
  unsigned Loops = 0;      ///< Enclosing loops (continue).
  unsigned Breakables = 0; ///< Enclosing loops and switches (break).
};

struct Function {
  std::string Name;
  Ret R;
  bool Template;
  bool Member;
};

const char *Params = "Ref<float> a, Ref<float> b, DmaSemaphore s, DmaSemaphore r, "
                     "SemaphoreArray<DmaSemaphore> sems, AsyncCopyDescriptor &pd, "
                     "AsyncCopyDescriptor pv, std::vector<AsyncCopyDescriptor> &pvec, "
                     "AsyncCopyDescriptor *pp, bool p, bool q, int n, int dev";

const char *Includes = R"(#include <tpu/dma.h>

#include <array>
#include <cstddef>
#include <deque>
#include <optional>
#include <utility>
#include <vector>
)";

const char *Prelude = R"(
using namespace tpu;

struct Pair {
  AsyncCopyDescriptor x;
  AsyncCopyDescriptor y;
};
extern AsyncCopyDescriptor g_desc;
extern std::vector<AsyncCopyDescriptor> g_vec;
extern Ref<float> ga, gb;
extern DmaSemaphore gs, gr;
extern SemaphoreArray<DmaSemaphore> gsems;
AsyncCopyDescriptor unknown_copy();
void opaque(AsyncCopyDescriptor &d);
void opaque_ptr(AsyncCopyDescriptor *d);
void inspect(const AsyncCopyDescriptor &d);
void consume(AsyncCopyDescriptor d);
void opaque_vec(std::vector<AsyncCopyDescriptor> &v);
void run_later(void (*f)(AsyncCopyDescriptor &));
template <class F> void when(bool c, F f) {
  if (c)
    f();
}
inline void wait_send_all(std::vector<AsyncCopyDescriptor> &v) {
  for (auto &d : v)
    d.wait_send();
}
inline void start_or_wait(bool wait, AsyncCopyDescriptor &d) {
  if (wait)
    d.wait_send();
  else
    d.start();
}
template <class D> void forward_wait(D &&d) { std::forward<D>(d).wait_send(); }
#define WAIT_SEND(d) (d).wait_send()
#define START_AT(d, p) (d).start(p)
#define LOCAL_COPY(a, b, s) make_async_copy(a, b, s)
inline AsyncCopyDescriptor remote_to(Ref<float> a, Ref<float> b, DmaSemaphore s,
                                     DmaSemaphore r, int dev) {
  return make_async_remote_copy(a, b, s, r, DeviceId(dev));
}
)";

class Generator {
public:
  Generator(const uint8_t *Data, size_t Size) : In(Data, Size) {}

  Snippet run() {
    Snippet S;
    SnippetConfig &C = S.Config;
    unsigned Mode = In.pick(256);
    C.RunChecks = Mode % 4 == 3;
    unsigned Variant = In.pick(16);
    C.ModelVariant = Variant < 9 ? 0 : Variant - 8;
    if (C.ModelVariant >= modelVariants().size())
      C.ModelVariant = 0;
    unsigned Limits = In.pick(256);
    static const unsigned Visits[] = {1, 3, 10, 30, 100, 300, 1000, 100000};
    static const unsigned Values[] = {1, 2, 3, 32};
    static const unsigned Depths[] = {0, 1, 2, 4};
    C.SmallWorkLimit = Visits[Limits % 8];
    C.SmallMaxValues = Values[(Limits / 8) % 4];
    C.SmallLambdaDepth = Depths[(Limits / 32) % 4];
    // Pseudo-productions: seeds should cover the modes too.
    use(C.RunChecks ? "mode:checks" : "mode:analysis");
    use("model:" + std::to_string(C.ModelVariant));

    unsigned NumFunctions = 1 + In.pick(4);
    for (unsigned I = 0; I < NumFunctions; ++I) {
      unsigned Shape = In.pick(64);
      Functions.push_back({"f" + std::to_string(I), static_cast<Ret>(Shape % 3),
                           (Shape / 3) % 5 == 4, (Shape / 15) % 4 == 3});
    }
    Out += Includes;
    Out += Prelude;
    // Every function can call every other (and itself): declare them first.
    for (const Function &F : Functions)
      if (!F.Member)
        Out += templatePrefix(F) + retType(F.R) + " " + F.Name + "(" + Params + ");\n";
    Out += "struct Kernel {\n  AsyncCopyDescriptor m;\n  std::vector<AsyncCopyDescriptor> mv;\n";
    for (const Function &F : Functions)
      if (F.Member)
        Out += "  " + templatePrefix(F) + retType(F.R) + " " + F.Name + "(" + Params + ");\n";
    Out += "};\n";
    for (const Function &F : Functions)
      function(F);
    S.Code = std::move(Out);
    S.Productions = std::move(Used);
    return S;
  }

private:
  Choices In;
  std::string Out;
  std::set<std::string> Used;
  std::vector<Function> Functions;
  std::vector<Scope> Scopes;
  std::vector<int> Stack; ///< Open scopes, innermost last.
  std::vector<Context> Contexts;
  unsigned Indent = 0;
  unsigned Depth = 0;      ///< Statement nesting.
  unsigned Statements = 0; ///< In the whole translation unit.
  unsigned Counter = 0;    ///< For fresh names.

  static constexpr unsigned MaxDepth = 5;
  static constexpr unsigned MaxStatements = 240;
  static constexpr unsigned MaxExprDepth = 3;

  void use(const std::string &Production) { Used.insert(Production); }
  std::string fresh(const char *Prefix) { return Prefix + std::to_string(Counter++); }
  Context &ctx() { return Contexts.back(); }

  static std::string templatePrefix(const Function &F) {
    return F.Template ? "template <int N> " : "";
  }
  static std::string retType(Ret R) {
    switch (R) {
    case Ret::Void:
      return "void";
    case Ret::Desc:
      return "AsyncCopyDescriptor";
    case Ret::Vec:
      return "std::vector<AsyncCopyDescriptor>";
    }
    return "void";
  }

  // ---------------------------------------------------------------- scopes

  void pushScope(bool Barrier = false) {
    Scope S;
    S.Parent = Stack.empty() ? -1 : Stack.back();
    S.Barrier = Barrier;
    Scopes.push_back(S);
    Stack.push_back(static_cast<int>(Scopes.size()) - 1);
  }
  void popScope() { Stack.pop_back(); }
  void declare(const std::string &Name, Kind K, bool Capturable = true) {
    Scopes[Stack.back()].Vars.push_back({Name, K, Capturable});
  }
  /// Visible variables of kind \p K, innermost last; globals always.
  std::vector<Var> visible(Kind K) {
    std::vector<Var> Found;
    // Scope 0 holds the globals; it is visible through any barrier.
    for (size_t I = Stack.size(); I-- > 1;) {
      const Scope &S = Scopes[Stack[I]];
      for (const Var &V : S.Vars)
        if (V.K == K)
          Found.push_back(V);
      if (S.Barrier)
        break;
    }
    for (const Var &V : Scopes[Stack.front()].Vars)
      if (V.K == K)
        Found.push_back(V);
    return Found;
  }
  bool has(Kind K) { return !visible(K).empty(); }
  std::string pickVar(Kind K) {
    std::vector<Var> Vars = visible(K);
    if (Vars.empty())
      return "";
    return Vars[In.pick(Vars.size())].Name;
  }
  bool isAncestorOrSelf(int Scope) {
    return std::find(Stack.begin(), Stack.end(), Scope) != Stack.end();
  }
  bool inBarrier() {
    for (size_t I = Stack.size(); I-- > 1;)
      if (Scopes[Stack[I]].Barrier)
        return true;
    return false;
  }

  // ------------------------------------------------------------ printing

  void line(const std::string &Text) {
    Out.append(Indent * 2, ' ');
    Out += Text;
    Out += '\n';
  }

  // --------------------------------------------------------- expressions

  std::string ref() {
    std::string V = pickVar(Kind::Ref);
    switch (In.pick(6)) {
    case 4:
      use("ref:at");
      return V + ".at(" + intExpr() + ")";
    case 5:
      use("ref:slice");
      return V + ".slice(0, 8)";
    default:
      return V;
    }
  }

  std::string sem() {
    switch (In.pick(6)) {
    case 3:
      use("sem:index");
      return pickVar(Kind::SemArr) + "[" + intExpr() + "]";
    case 4:
      use("sem:at2");
      return pickVar(Kind::SemArr) + ".at(0, " + intExpr() + ")";
    default:
      return pickVar(Kind::Sem);
    }
  }

  std::string deviceId() {
    switch (In.pick(7)) {
    case 0:
      return "DeviceId(" + intExpr() + ")";
    case 1:
      use("devid:int");
      return intExpr();
    case 2:
      use("devid:mesh-braces");
      return "{" + intExpr() + ", 1}";
    case 3:
      use("devid:mesh-ctor");
      return "DeviceId({0, " + intExpr() + "})";
    case 4:
      use("devid:query");
      return "DeviceId(program_id(0) + 1)";
    case 5:
      use("devid:logical-braces");
      return "DeviceId{" + intExpr() + "}";
    default:
      use("devid:axis");
      return "DeviceId({axis_index(\"x\"), (axis_index(\"y\") + 1) % axis_size(\"y\")})";
    }
  }

  std::string idKind() {
    return In.pick(2) ? "DeviceIdType::kLogical" : "DeviceIdType::kMesh";
  }

  std::string optSemArg() {
    switch (In.pick(7)) {
    case 0:
      return sem();
    case 1:
      use("optsem:nullopt");
      return "std::nullopt";
    case 2:
      use("optsem:braces");
      return "{}";
    case 3:
      if (has(Kind::OptSem)) {
        use("optsem:var");
        return pickVar(Kind::OptSem);
      }
      return "std::nullopt";
    case 4:
      use("optsem:ctor");
      return "std::optional<DmaSemaphore>(" + sem() + ")";
    case 5:
      use("optsem:make");
      return "std::make_optional(" + sem() + ")";
    default:
      use("optsem:empty-ctor");
      return "std::optional<DmaSemaphore>()";
    }
  }

  std::string optDevArg() {
    switch (In.pick(6)) {
    case 0:
      return "DeviceId(" + intExpr() + ")";
    case 1:
      use("optdev:nullopt");
      return "std::nullopt";
    case 2:
      use("optdev:braces");
      return "{}";
    case 3:
      if (has(Kind::OptDev)) {
        use("optdev:var");
        return pickVar(Kind::OptDev);
      }
      return "std::nullopt";
    case 4:
      use("optdev:make");
      return "std::make_optional(DeviceId(" + intExpr() + "))";
    default:
      use("optdev:mesh");
      return "std::optional<DeviceId>(DeviceId({1, " + intExpr() + "}))";
    }
  }

  std::string intExpr() {
    switch (In.pick(7)) {
    case 0:
      return "0";
    case 1:
      return "1";
    case 2:
      return pickVar(Kind::Int).empty() ? "0" : pickVar(Kind::Int);
    case 3:
      use("int:program_id");
      return "program_id(0)";
    case 4:
      use("int:num_programs");
      return "num_programs(1) - 1";
    case 5:
      if (ctx().Template) {
        use("int:template-param");
        return "N";
      }
      return "2";
    default:
      if (has(Kind::Vec)) {
        use("int:size");
        return "static_cast<int>(" + pickVar(Kind::Vec) + ".size())";
      }
      return "3";
    }
  }

  std::string boolExpr(unsigned D = 0) {
    if (D > MaxExprDepth)
      return pickVar(Kind::Bool).empty() ? "true" : pickVar(Kind::Bool);
    switch (In.pick(14)) {
    case 0:
    case 1: {
      std::string V = pickVar(Kind::Bool);
      return V.empty() ? "false" : V;
    }
    case 2:
      use("bool:not");
      return "!" + boolExpr(D + 1);
    case 3:
      use("bool:is_remote");
      return lvalue() + ".is_remote()";
    case 4:
      if (has(Kind::Ptr)) {
        use("bool:ptr-is_remote");
        return pickVar(Kind::Ptr) + "->is_remote()";
      }
      return "true";
    case 5:
      use("bool:compare");
      return intExpr() + " > 0";
    case 6:
      use("bool:device-query");
      return "program_id(0) == 0";
    case 7:
      use("bool:axis");
      return "axis_index(\"x\") == axis_size(\"x\") - 1";
    case 8:
      return In.pick(2) ? "true" : "false";
    case 9:
      use("bool:and");
      return "(" + boolExpr(D + 1) + " && " + boolExpr(D + 1) + ")";
    case 10:
      use("bool:or");
      return "(" + boolExpr(D + 1) + " || " + boolExpr(D + 1) + ")";
    case 11:
      if (has(Kind::Opt)) {
        use("bool:has_value");
        return pickVar(Kind::Opt) + ".has_value()";
      }
      return "false";
    case 12:
      use("bool:empty");
      return "!" + pickVar(Kind::Vec) + ".empty()";
    default:
      if (ctx().Template) {
        use("bool:template-param");
        return "N > 0";
      }
      if (has(Kind::Int)) {
        use("bool:parity");
        return pickVar(Kind::Int) + " % 2 == 0";
      }
      return "true";
    }
  }

  std::string index() {
    switch (In.pick(4)) {
    case 0:
      return "0";
    case 1:
      return "1";
    case 2:
      return pickVar(Kind::Int).empty() ? "0" : pickVar(Kind::Int);
    default:
      return intExpr();
    }
  }

  /// A descriptor lvalue.
  std::string lvalue() {
    switch (In.pick(10)) {
    case 0:
    case 1:
    case 2:
      return pickVar(Kind::Desc);
    case 3:
      if (has(Kind::Ptr)) {
        use("lv:deref");
        return In.pick(2) ? "(*" + pickVar(Kind::Ptr) + ")" : pickVar(Kind::Ptr) + "[0]";
      }
      return pickVar(Kind::Desc);
    case 4: {
      std::string V = pickVar(Kind::Vec);
      switch (In.pick(5)) {
      case 4:
        use("lv:vec-begin");
        return "(*" + V + ".begin())";
      case 0:
        use("lv:vec-index");
        return V + "[" + index() + "]";
      case 1:
        use("lv:vec-back");
        return V + ".back()";
      case 2:
        use("lv:vec-front");
        return V + ".front()";
      default:
        use("lv:vec-at");
        return V + ".at(" + index() + ")";
      }
    }
    case 5:
      if (has(Kind::Opt)) {
        use("lv:opt");
        return In.pick(2) ? "(*" + pickVar(Kind::Opt) + ")" : pickVar(Kind::Opt) + ".value()";
      }
      return pickVar(Kind::Desc);
    case 6:
      if (has(Kind::Arr)) {
        use("lv:array");
        return pickVar(Kind::Arr) + "[" + index() + "]";
      }
      return pickVar(Kind::Desc);
    case 7:
      if (has(Kind::CArr)) {
        use("lv:c-array");
        return pickVar(Kind::CArr) + "[" + index() + "]";
      }
      return pickVar(Kind::Desc);
    case 8:
      if (has(Kind::Pair)) {
        use("lv:field");
        return pickVar(Kind::Pair) + (In.pick(2) ? ".x" : ".y");
      }
      return pickVar(Kind::Desc);
    default:
      if (ctx().Member && !inBarrier()) {
        use("lv:member");
        return In.pick(2) ? "m" : "this->m";
      }
      use("lv:global");
      return "g_desc";
    }
  }

  /// The object part of a method call: `x.`, `p->`, `o->`.
  std::string object() {
    switch (In.pick(6)) {
    case 4:
      if (has(Kind::Ptr)) {
        use("obj:arrow");
        return pickVar(Kind::Ptr) + "->";
      }
      break;
    case 5:
      if (has(Kind::Opt)) {
        use("obj:opt-arrow");
        return pickVar(Kind::Opt) + "->";
      }
      break;
    default:
      break;
    }
    return lvalue() + ".";
  }

  std::string factoryArgsRemote() {
    std::string Args = ref() + ", " + ref() + ", " + sem() + ", " + sem() + ", " + deviceId();
    if (In.pick(2))
      Args += ", " + idKind();
    return Args;
  }

  /// A descriptor rvalue.
  std::string descExpr(unsigned D = 0) {
    unsigned Choice = In.pick(16);
    // Deep enough: no more nesting (ternaries, lambdas, calls, temporaries).
    // Nested braced temporaries cost clang's AST matchers twice as much per
    // level (docs/fuzzing.md), so unbounded nesting would only find that.
    if (D >= MaxExprDepth && (Choice == 7 || Choice == 8 || Choice == 9 || Choice == 15))
      Choice = 0;
    switch (Choice) {
    case 0:
      use("desc:make_async_copy");
      return "make_async_copy(" + ref() + ", " + ref() + ", " + sem() + ")";
    case 1:
      use("desc:make_async_remote_copy");
      return "make_async_remote_copy(" + factoryArgsRemote() + ")";
    case 2:
      use("desc:async_copy");
      return "async_copy(" + ref() + ", " + ref() + ", " + sem() + ")";
    case 3:
      use("desc:async_remote_copy");
      return "async_remote_copy(" + factoryArgsRemote() + ")";
    case 4:
    case 11: {
      use("desc:constructor");
      std::string Args = ref() + ", " + ref() + ", " + sem();
      unsigned Extra = In.pick(4);
      if (Extra >= 1)
        Args += ", " + optSemArg();
      if (Extra >= 2)
        Args += ", " + optDevArg();
      if (Extra >= 3)
        Args += ", " + idKind();
      if (Choice == 11) {
        use("desc:constructor-braces");
        return "AsyncCopyDescriptor{" + Args + "}";
      }
      return "AsyncCopyDescriptor(" + Args + ")";
    }
    case 5:
    case 12:
      use("desc:copy");
      return lvalue();
    case 6:
      use("desc:move");
      return "std::move(" + lvalue() + ")";
    case 7:
      use("desc:ternary");
      return "(" + boolExpr() + " ? " + descExpr(D + 1) + " : " + descExpr(D + 1) + ")";
    case 8: {
      std::vector<const Function *> Returning;
      for (const Function &F : Functions)
        if (F.R == Ret::Desc)
          Returning.push_back(&F);
      if (!Returning.empty()) {
        use("desc:helper-call");
        return call(*Returning[In.pick(Returning.size())]);
      }
      use("desc:wrapper");
      return "remote_to(" + ref() + ", " + ref() + ", " + sem() + ", " + sem() + ", " +
             intExpr() + ")";
    }
    case 9:
      use("desc:lambda");
      return "[&] { return " + descExpr(D + 1) + "; }()";
    case 10:
      use("desc:unknown");
      return "unknown_copy()";
    case 13:
      use("desc:wrapper");
      return "remote_to(" + ref() + ", " + ref() + ", " + sem() + ", " + sem() + ", " +
             intExpr() + ")";
    case 14:
      if (has(Kind::Ptr)) {
        use("desc:ptr-copy");
        return "(*" + pickVar(Kind::Ptr) + ")";
      }
      return "make_async_copy(" + ref() + ", " + ref() + ", " + sem() + ")";
    default:
      use("desc:vec-temporary");
      return "std::vector<AsyncCopyDescriptor>{" + descExpr(D + 1) + "}.front()";
    }
  }

  std::string vecExpr() {
    switch (In.pick(6)) {
    case 0:
      return "{}";
    case 1:
      use("vec:list");
      return "{" + descExpr() + ", " + descExpr() + "}";
    case 2:
      use("vec:copy");
      return pickVar(Kind::Vec);
    case 3:
      use("vec:move");
      return "std::move(" + pickVar(Kind::Vec) + ")";
    case 4: {
      for (const Function &F : Functions)
        if (F.R == Ret::Vec) {
          use("vec:helper-call");
          return call(F);
        }
      return "{" + descExpr() + "}";
    }
    default:
      use("vec:one");
      return "{" + descExpr() + "}";
    }
  }

  std::string pointerExpr() {
    switch (In.pick(4)) {
    case 0:
      return "&" + lvalue();
    case 1:
      use("ptr:null");
      return "nullptr";
    case 2:
      if (has(Kind::Ptr))
        return pickVar(Kind::Ptr);
      return "&" + lvalue();
    default:
      if (has(Kind::CArr)) {
        use("ptr:array-decay");
        return pickVar(Kind::CArr) + (In.pick(2) ? " + 1" : "");
      }
      use("ptr:vec-data");
      return pickVar(Kind::Vec) + ".data()";
    }
  }

  /// A call of a generated function, with arguments from the current scope.
  std::string call(const Function &F) {
    std::string Args = ref() + ", " + ref() + ", " + sem() + ", " + sem() + ", " +
                       pickVar(Kind::SemArr) + ", " + lvalue() + ", " + descExpr(MaxExprDepth) +
                       ", " + pickVar(Kind::Vec) + ", " + pointerExpr() + ", " + boolExpr() +
                       ", " + boolExpr() + ", " + intExpr() + ", " + intExpr();
    std::string Name = F.Name;
    if (F.Template) {
      use("call:template");
      Name += "<" + std::string(ctx().Template && In.pick(2) ? "N" : std::to_string(In.pick(3))) +
              ">";
    }
    if (!F.Member)
      return Name + "(" + Args + ")";
    if (ctx().Member && !inBarrier()) {
      use("call:member");
      return (In.pick(2) ? "this->" : "") + Name + "(" + Args + ")";
    }
    use("call:member-temporary");
    return "Kernel{" + descExpr(MaxExprDepth) + ", {}}." + Name + "(" + Args + ")";
  }

  // ----------------------------------------------------------- statements

  void block(unsigned MaxLen) {
    ++Depth;
    // A label at the start of a block: a target for gotos from after it.
    // Not after a declaration of the same scope (a loop variable, a lambda
    // parameter): a jump to it would bypass that initialisation.
    if (Depth <= MaxDepth && Scopes[Stack.back()].Vars.empty() && In.pick(10) == 0) {
      use("stmt:label");
      std::string Name = fresh("L");
      line(Name + ":;");
      int Parent = Stack.size() >= 2 ? Stack[Stack.size() - 2] : -1;
      ctx().Labels.push_back({Name, Parent});
    }
    unsigned Len = Depth > MaxDepth ? 0 : In.pick(MaxLen + 1);
    for (unsigned I = 0; I < Len && Statements < MaxStatements; ++I)
      statement();
    --Depth;
  }

  /// `{ ... }` as a new scope.
  void bracedBlock(const std::string &Head, unsigned MaxLen,
                   const std::function<void()> &Declare = nullptr,
                   const std::string &Tail = "") {
    line(Head + " {");
    ++Indent;
    pushScope();
    if (Declare)
      Declare();
    block(MaxLen);
    popScope();
    --Indent;
    line("}" + Tail);
  }

  /// A statement that fits as an unbraced body (`if (c) d.wait_send();`).
  std::string simpleStatement() {
    switch (In.pick(4)) {
    case 0:
      return object() + "wait_send();";
    case 1:
      return object() + "start(" + priority() + ");";
    case 2:
      return object() + "wait_recv();";
    default:
      return object() + "wait();";
    }
  }

  std::string priority() {
    switch (In.pick(7)) {
    case 0:
      return "";
    case 1:
      return "0";
    case 2:
      return "1";
    case 3:
      use("prio:two");
      return "2";
    case 4:
      use("prio:negative");
      return "-1";
    case 5:
      use("prio:variable");
      return intExpr();
    default:
      use("prio:conditional");
      return boolExpr() + " ? 1 : 0";
    }
  }

  /// The body of an if or a loop: a braced block, or one simple statement.
  void body(const std::string &Head, const std::function<void()> &Declare = nullptr,
            const std::string &Tail = "") {
    if (In.pick(4) == 0) {
      use("stmt:unbraced-body");
      line(Head);
      ++Indent;
      pushScope();
      if (Declare)
        Declare();
      line(simpleStatement());
      popScope();
      --Indent;
      if (!Tail.empty())
        line(Tail);
      return;
    }
    bracedBlock(Head, 4, Declare, Tail.empty() ? "" : " " + Tail);
  }

  void loop(const std::function<void()> &Emit) {
    ++ctx().Loops;
    ++ctx().Breakables;
    Emit();
    --ctx().Loops;
    --ctx().Breakables;
  }

  void lambdaBody(const std::string &Head, const std::string &Tail, bool Barrier,
                  const std::function<void()> &Declare = nullptr) {
    Context C;
    C.Template = ctx().Template;
    C.Member = ctx().Member && !Barrier;
    C.R = Ret::Void;
    Contexts.push_back(C);
    line(Head + " {");
    ++Indent;
    pushScope(Barrier);
    if (Declare)
      Declare();
    contextBody(3);
    popScope();
    --Indent;
    line("}" + Tail);
    Contexts.pop_back();
  }

  /// The body of a function or lambda: its statements in a block of their
  /// own, so that a goto to the end label bypasses no declaration.
  void contextBody(unsigned MaxLen) {
    ctx().EndLabel = fresh("end");
    line("{");
    ++Indent;
    pushScope();
    block(MaxLen);
    popScope();
    --Indent;
    line("}");
    if (ctx().EndUsed)
      line(ctx().EndLabel + ":;");
  }

  std::string returnValue() {
    switch (ctx().R) {
    case Ret::Void:
      return "return;";
    case Ret::Desc:
      return "return " + descExpr() + ";";
    case Ret::Vec:
      return "return " + vecExpr() + ";";
    }
    return "return;";
  }

  void statement() {
    ++Statements;
    unsigned Choice = In.pick(41);
    switch (Choice) {
    case 0: { // a new descriptor
      std::string Name = fresh("d");
      switch (In.pick(4)) {
      case 0:
        use("stmt:decl-auto");
        line("auto " + Name + " = " + descExpr() + ";");
        break;
      case 1:
        use("stmt:decl-direct");
        line("AsyncCopyDescriptor " + Name + "(" + ref() + ", " + ref() + ", " + sem() + ", " +
             optSemArg() + ", " + optDevArg() + ");");
        break;
      default:
        use("stmt:decl-desc");
        line("AsyncCopyDescriptor " + Name + " = " + descExpr() + ";");
        break;
      }
      declare(Name, Kind::Desc);
      return;
    }
    case 1: { // a reference
      std::string Name = fresh("rf");
      if (In.pick(3) == 0) {
        use("stmt:decl-ref-ternary");
        line("auto &" + Name + " = " + boolExpr() + " ? " + lvalue() + " : " + lvalue() + ";");
      } else {
        use("stmt:decl-ref");
        line("AsyncCopyDescriptor &" + Name + " = " + lvalue() + ";");
      }
      declare(Name, Kind::Desc);
      return;
    }
    case 2: { // a pointer
      use("stmt:decl-ptr");
      std::string Name = fresh("ptr");
      line("AsyncCopyDescriptor *" + Name + " = " + pointerExpr() + ";");
      declare(Name, Kind::Ptr);
      return;
    }
    case 3:
    case 4:
      use("stmt:assign");
      line(lvalue() + " = " + descExpr() + ";");
      return;
    case 5:
      if (has(Kind::Ptr)) {
        use("stmt:assign-ptr");
        std::string P = pickVar(Kind::Ptr);
        if (In.pick(3) == 0 && has(Kind::CArr)) {
          use("stmt:ptr-arith");
          line(P + " = " + pickVar(Kind::CArr) + " + " + index() + ";");
        } else {
          line(P + " = " + pointerExpr() + ";");
        }
        return;
      }
      [[fallthrough]];
    case 6:
    case 7:
    case 8:
    case 9: { // a method call
      switch (In.pick(6)) {
      case 0:
        use("stmt:wait_send");
        line(object() + "wait_send();");
        break;
      case 1:
        use("stmt:start");
        line(object() + "start(" + priority() + ");");
        break;
      case 2:
        use("stmt:wait");
        line(object() + "wait();");
        break;
      case 3:
        use("stmt:wait_recv");
        line(object() + "wait_recv();");
        break;
      case 4:
        use("stmt:is_remote");
        line("(void)" + object() + "is_remote();");
        break;
      default:
        use("stmt:chained");
        line(descExpr() + ".wait_send();");
        break;
      }
      return;
    }
    case 10:
    case 11: { // if on a bool
      use("stmt:if");
      bool Else = In.pick(2);
      body("if (" + boolExpr() + ")");
      if (Else) {
        use("stmt:else");
        body("else");
      }
      return;
    }
    case 12: { // if on is_remote
      use("stmt:if-is_remote");
      std::string Obj = object();
      std::string Cond = (In.pick(3) == 0 ? "!" : "") + Obj + "is_remote()";
      body("if (" + Cond + ")");
      if (In.pick(2))
        body("else");
      return;
    }
    case 13: { // a bool
      std::string Name = fresh("flag");
      if (In.pick(2)) {
        use("stmt:bool-is_remote");
        line("bool " + Name + " = " + object() + "is_remote();");
      } else {
        use("stmt:bool");
        line("bool " + Name + " = " + boolExpr() + ";");
      }
      declare(Name, Kind::Bool);
      return;
    }
    case 14: { // loops
      switch (In.pick(4)) {
      case 0: {
        use("stmt:for");
        std::string I = fresh("i");
        loop([&] {
          body("for (int " + I + " = 0; " + I + " < " + intExpr() + "; ++" + I + ")",
               [&] { declare(I, Kind::Int); });
        });
        break;
      }
      case 1:
        use("stmt:while");
        loop([&] { body("while (" + boolExpr() + ")"); });
        break;
      case 2: {
        use("stmt:do-while");
        std::string Cond = boolExpr();
        loop([&] { bracedBlock("do", 4, nullptr, " while (" + Cond + ");"); });
        break;
      }
      default:
        use("stmt:for-ever");
        loop([&] { bracedBlock("for (;;)", 4); });
        break;
      }
      return;
    }
    case 15: { // range-for
      std::string Name = fresh("e");
      std::string Range;
      std::string Decl = In.pick(3) == 0 ? "AsyncCopyDescriptor " : "auto &";
      switch (In.pick(4)) {
      case 0:
        if (has(Kind::Arr)) {
          use("stmt:range-for-array");
          Range = pickVar(Kind::Arr);
          break;
        }
        [[fallthrough]];
      case 1:
        if (has(Kind::CArr)) {
          use("stmt:range-for-c-array");
          Range = pickVar(Kind::CArr);
          break;
        }
        [[fallthrough]];
      case 2:
        use("stmt:range-for-vec");
        Range = pickVar(Kind::Vec);
        break;
      default:
        use("stmt:range-for-list");
        Decl = "auto ";
        Range = "{" + descExpr() + ", " + descExpr() + "}";
        break;
      }
      if (Decl == "AsyncCopyDescriptor ")
        use("stmt:range-for-by-value");
      loop([&] {
        body("for (" + Decl + Name + " : " + Range + ")", [&] { declare(Name, Kind::Desc); });
      });
      return;
    }
    case 16: { // index loop over a vector
      use("stmt:index-for");
      std::string I = fresh("i");
      std::string V = pickVar(Kind::Vec);
      loop([&] {
        body("for (std::size_t " + I + " = 0; " + I + " < " + V + ".size(); ++" + I + ")",
             [&] { declare(I, Kind::Int); });
      });
      return;
    }
    case 17:
      if (ctx().Breakables) {
        use("stmt:break");
        line(In.pick(2) ? "break;" : "if (" + boolExpr() + ") break;");
        return;
      }
      line(simpleStatement());
      return;
    case 18:
      if (ctx().Loops) {
        use("stmt:continue");
        line(In.pick(2) ? "continue;" : "if (" + boolExpr() + ") continue;");
        return;
      }
      line(simpleStatement());
      return;
    case 19:
      use("stmt:return");
      if (In.pick(2)) {
        use("stmt:early-return");
        line("if (" + boolExpr() + ") " + returnValue());
      } else {
        line(returnValue());
      }
      return;
    case 20: { // vector operations
      std::string V = pickVar(Kind::Vec);
      switch (In.pick(9)) {
      case 8:
        use("stmt:reserve");
        line(V + ".reserve(" + intExpr() + ");");
        break;
      case 0:
        use("stmt:push_back");
        line(V + ".push_back(" + descExpr() + ");");
        break;
      case 1:
        use("stmt:emplace_back-args");
        line(V + ".emplace_back(" + ref() + ", " + ref() + ", " + sem() +
             (In.pick(2) ? ", " + sem() + ", DeviceId(" + intExpr() + ")" : "") + ");");
        break;
      case 2:
        use("stmt:emplace_back");
        line(V + ".emplace_back(" + descExpr() + ");");
        break;
      case 3:
        use("stmt:clear");
        line(V + ".clear();");
        break;
      case 4:
        use("stmt:insert");
        line(V + ".insert(" + V + ".begin(), " + descExpr() + ");");
        break;
      case 5:
        use("stmt:pop_back");
        line(V + ".pop_back();");
        break;
      case 6:
        use("stmt:vec-assign");
        line(V + " = " + vecExpr() + ";");
        break;
      default:
        use("stmt:vec-element-assign");
        line(V + "[" + index() + "] = " + descExpr() + ";");
        break;
      }
      return;
    }
    case 21: { // a new vector
      use("stmt:decl-vec");
      std::string Name = fresh("v");
      switch (In.pick(3)) {
      case 0:
        line("std::vector<AsyncCopyDescriptor> " + Name + ";");
        break;
      case 1:
        line("std::vector<AsyncCopyDescriptor> " + Name + " = " + vecExpr() + ";");
        break;
      default:
        use("stmt:decl-vec-braces");
        line("std::vector<AsyncCopyDescriptor> " + Name + "{" + descExpr() + ", " +
             descExpr() + "};");
        break;
      }
      declare(Name, Kind::Vec);
      return;
    }
    case 22: { // std::optional of a descriptor
      if (!has(Kind::Opt) || In.pick(3) == 0) {
        use("stmt:decl-opt");
        std::string Name = fresh("o");
        line("std::optional<AsyncCopyDescriptor> " + Name +
             (In.pick(2) ? " = " + descExpr() : std::string()) + ";");
        declare(Name, Kind::Opt);
        return;
      }
      std::string O = pickVar(Kind::Opt);
      switch (In.pick(5)) {
      case 0:
        use("stmt:opt-assign");
        line(O + " = " + descExpr() + ";");
        break;
      case 1:
        use("stmt:opt-reset");
        line(In.pick(2) ? O + ".reset();" : O + " = std::nullopt;");
        break;
      case 2:
        use("stmt:opt-emplace");
        line(O + ".emplace(" + ref() + ", " + ref() + ", " + sem() + ");");
        break;
      case 3:
        use("stmt:opt-if");
        body("if (" + O + ")");
        break;
      default:
        use("stmt:opt-guarded-wait");
        line("if (" + O + ") " + O + "->wait_send();");
        break;
      }
      return;
    }
    case 23: { // arrays
      std::string Name = fresh("arr");
      if (In.pick(2)) {
        use("stmt:decl-array");
        line("std::array<AsyncCopyDescriptor, 2> " + Name + " = {" + descExpr() + ", " +
             descExpr() + "};");
        declare(Name, Kind::Arr);
      } else {
        use("stmt:decl-c-array");
        line("AsyncCopyDescriptor " + Name + "[2] = {" + descExpr() + ", " + descExpr() + "};");
        declare(Name, Kind::CArr);
      }
      return;
    }
    case 24: { // a struct of descriptors
      if (!has(Kind::Pair) || In.pick(2)) {
        use("stmt:decl-pair");
        std::string Name = fresh("pr");
        line("Pair " + Name + (In.pick(2) ? "{" : " = {") + descExpr() + ", " + descExpr() +
             "};");
        declare(Name, Kind::Pair);
      } else {
        use("stmt:pair-assign");
        line(pickVar(Kind::Pair) + (In.pick(2) ? ".x" : ".y") + " = " + descExpr() + ";");
      }
      return;
    }
    case 25: { // the general constructor's optionals
      switch (In.pick(5)) {
      case 0: {
        use("stmt:decl-optsem");
        std::string Name = fresh("osem");
        line("std::optional<DmaSemaphore> " + Name +
             (In.pick(2) ? " = " + sem() : std::string()) + ";");
        declare(Name, Kind::OptSem);
        break;
      }
      case 1: {
        use("stmt:decl-optdev");
        std::string Name = fresh("odev");
        line("std::optional<DeviceId> " + Name +
             (In.pick(2) ? " = DeviceId(" + intExpr() + ")" : std::string()) + ";");
        declare(Name, Kind::OptDev);
        break;
      }
      case 2:
        if (has(Kind::OptSem)) {
          use("stmt:optsem-assign");
          std::string O = pickVar(Kind::OptSem);
          line(In.pick(2) ? O + " = " + sem() + ";" : O + ".reset();");
          break;
        }
        [[fallthrough]];
      case 3:
        if (has(Kind::OptDev)) {
          use("stmt:optdev-assign");
          std::string O = pickVar(Kind::OptDev);
          line(In.pick(2) ? O + " = " + deviceId() + ";" : O + " = std::nullopt;");
          break;
        }
        [[fallthrough]];
      default:
        use("stmt:semaphore_signal");
        line("semaphore_signal(Semaphore(), 1, " + optDevArg() + ", " + idKind() + ");");
        break;
      }
      return;
    }
    case 26:
    case 27: { // lambdas
      switch (In.pick(8)) {
      case 0:
        use("stmt:lambda-immediate");
        lambdaBody("[&]", "();", false);
        break;
      case 1: {
        use("stmt:lambda-var");
        std::string Name = fresh("fn");
        lambdaBody("auto " + Name + " = [&]", ";", false);
        declare(Name, Kind::Lambda);
        break;
      }
      case 2:
        use("stmt:lambda-when");
        lambdaBody("when(" + boolExpr() + ", [&]", ");", false);
        break;
      case 3: {
        use("stmt:lambda-param");
        std::string Name = fresh("x");
        std::string Arg = lvalue();
        lambdaBody("[&](AsyncCopyDescriptor &" + Name + ")", "(" + Arg + ");", false,
                   [&] { declare(Name, Kind::Desc); });
        break;
      }
      case 4: {
        use("stmt:lambda-generic");
        std::string Name = fresh("x");
        std::string Arg = lvalue();
        lambdaBody("[&](auto &" + Name + ")", "(" + Arg + ");", false,
                   [&] { declare(Name, Kind::Desc); });
        break;
      }
      case 5:
        use("stmt:lambda-copy-capture");
        lambdaBody("[=]() mutable", "();", false);
        break;
      case 6: {
        std::vector<Var> Named;
        for (const Var &V : visible(Kind::Desc))
          if (V.Capturable && V.Name != "g_desc")
            Named.push_back(V);
        if (!Named.empty()) {
          use("stmt:lambda-named-capture");
          lambdaBody("[&, " + Named[In.pick(Named.size())].Name + "]() mutable", "();", false);
          break;
        }
        [[fallthrough]];
      }
      default: {
        use("stmt:lambda-captureless");
        std::string Name = fresh("x");
        lambdaBody("run_later([](AsyncCopyDescriptor &" + Name + ")", ");", true,
                   [&] { declare(Name, Kind::Desc); });
        break;
      }
      }
      return;
    }
    case 28:
      if (has(Kind::Lambda)) {
        use("stmt:lambda-call");
        line(pickVar(Kind::Lambda) + "();");
        return;
      }
      [[fallthrough]];
    case 29:
    case 30: { // a call of a generated function or a prelude helper
      switch (In.pick(4)) {
      case 0:
        use("stmt:helper-wait_send_all");
        line("wait_send_all(" + pickVar(Kind::Vec) + ");");
        break;
      case 1:
        use("stmt:helper-start_or_wait");
        line("start_or_wait(" + boolExpr() + ", " + lvalue() + ");");
        break;
      default: {
        use("stmt:call");
        const Function &F = Functions[In.pick(Functions.size())];
        line(call(F) + ";");
        break;
      }
      }
      return;
    }
    case 31: { // where the analysis cannot see
      switch (In.pick(11)) {
      case 8:
        use("stmt:forward");
        line("forward_wait(" + (In.pick(2) ? lvalue() : descExpr()) + ");");
        break;
      case 9:
        use("stmt:swap");
        line("std::swap(" + lvalue() + ", " + lvalue() + ");");
        break;
      case 10: {
        use("stmt:deque");
        std::string Q = fresh("dq");
        line("std::deque<AsyncCopyDescriptor> " + Q + ";");
        line(Q + ".push_front(" + descExpr() + ");");
        line(Q + ".emplace_front(" + ref() + ", " + ref() + ", " + sem() + ");");
        line("for (auto &" + fresh("x") + " : " + Q + ") " + Q + ".front().wait_send();");
        break;
      }
      case 0:
        use("stmt:opaque");
        line("opaque(" + lvalue() + ");");
        break;
      case 1:
        use("stmt:opaque-ptr");
        line("opaque_ptr(" + pointerExpr() + ");");
        break;
      case 2:
        use("stmt:consume");
        line("consume(" + descExpr() + ");");
        break;
      case 3:
        use("stmt:inspect");
        line("inspect(" + lvalue() + ");");
        break;
      case 4:
        use("stmt:opaque-vec");
        line("opaque_vec(" + pickVar(Kind::Vec) + ");");
        break;
      case 5:
        use("stmt:store-global");
        line("g_desc = " + descExpr() + ";");
        break;
      case 6:
        use("stmt:store-global-vec");
        line("g_vec.push_back(" + descExpr() + ");");
        break;
      default:
        use("stmt:sync_copy");
        line("sync_copy(" + ref() + ", " + ref() + ");");
        break;
      }
      return;
    }
    case 32: { // switch
      use("stmt:switch");
      line("switch (" + intExpr() + ") {");
      ++ctx().Breakables;
      unsigned Cases = 1 + In.pick(3);
      for (unsigned I = 0; I < Cases; ++I) {
        bool Last = I + 1 == Cases;
        std::string Tail;
        switch (In.pick(3)) {
        case 0:
          Tail = " break;";
          break;
        case 1:
          use("stmt:fallthrough");
          Tail = Last ? "" : " [[fallthrough]];";
          break;
        default:
          break;
        }
        bracedBlock(Last && In.pick(2) ? "default:" : "case " + std::to_string(I) + ":", 3,
                    nullptr, Tail);
      }
      --ctx().Breakables;
      line("}");
      return;
    }
    case 33:
      use("stmt:block");
      bracedBlock("", 4);
      return;
    case 34: { // goto: forward to the end, or back to a label whose block is around us
      std::vector<std::string> Targets;
      for (const Label &L : ctx().Labels)
        if (L.ParentScope >= 0 && isAncestorOrSelf(L.ParentScope))
          Targets.push_back(L.Name);
      std::string Target;
      unsigned Pick = In.pick(Targets.size() + 1);
      if (Pick < Targets.size()) {
        use("stmt:goto-back");
        Target = Targets[Pick];
      } else {
        use("stmt:goto-end");
        Target = ctx().EndLabel;
        ctx().EndUsed = true;
      }
      line("if (" + boolExpr() + ") goto " + Target + ";");
      return;
    }
    case 35:
      if (ctx().Template) {
        use("stmt:if-constexpr");
        body("if constexpr (N " + std::string(In.pick(2) ? ">" : "==") + " 0)");
        if (In.pick(2))
          body("else");
        return;
      }
      [[fallthrough]];
    case 36:
      if (ctx().Member && !inBarrier()) {
        use("stmt:member");
        switch (In.pick(3)) {
        case 0:
          line("mv.push_back(" + descExpr() + ");");
          break;
        case 1:
          line("this->m = " + descExpr() + ";");
          break;
        default:
          line("for (auto &mm : mv) mm.wait_send();");
          break;
        }
        return;
      }
      [[fallthrough]];
    case 37: { // a structured binding of a Pair
      if (has(Kind::Pair)) {
        use("stmt:structured-binding");
        std::string X = fresh("sx"), Y = fresh("sy");
        line("auto &[" + X + ", " + Y + "] = " + pickVar(Kind::Pair) + ";");
        declare(X, Kind::Desc, false);
        declare(Y, Kind::Desc, false);
        return;
      }
      line(simpleStatement());
      return;
    }
    case 38: // raw input spliced in: usually broken code
      if (In.pick(4) == 0) {
        use("stmt:raw");
        unsigned Len = In.pick(24);
        line(In.raw(Len));
        return;
      }
      line(simpleStatement());
      return;
    case 39: // macros: findings inside them get no fix-it
      switch (In.pick(3)) {
      case 0:
        use("stmt:macro-wait_send");
        line("WAIT_SEND(" + lvalue() + ");");
        return;
      case 1:
        use("stmt:macro-start");
        line("START_AT(" + lvalue() + ", " + priority() + ");");
        return;
      default: {
        use("stmt:macro-factory");
        std::string Name = fresh("d");
        line("auto " + Name + " = LOCAL_COPY(" + ref() + ", " + ref() + ", " + sem() + ");");
        declare(Name, Kind::Desc);
        return;
      }
      }
    default:
      line(simpleStatement());
      return;
    }
  }

  void function(const Function &F) {
    Context C;
    C.R = F.R;
    C.Template = F.Template;
    C.Member = F.Member;
    Contexts.push_back(C);
    Stack.clear();
    Scopes.clear();
    pushScope(); // globals
    declare("g_desc", Kind::Desc, false);
    declare("g_vec", Kind::Vec, false);
    declare("ga", Kind::Ref, false);
    declare("gb", Kind::Ref, false);
    declare("gs", Kind::Sem, false);
    declare("gr", Kind::Sem, false);
    declare("gsems", Kind::SemArr, false);
    pushScope(); // parameters (and members)
    for (const char *Name : {"a", "b"})
      declare(Name, Kind::Ref);
    for (const char *Name : {"s", "r"})
      declare(Name, Kind::Sem);
    declare("sems", Kind::SemArr);
    declare("pd", Kind::Desc);
    declare("pv", Kind::Desc);
    declare("pvec", Kind::Vec);
    declare("pp", Kind::Ptr);
    declare("p", Kind::Bool);
    declare("q", Kind::Bool);
    declare("n", Kind::Int);
    declare("dev", Kind::Int);
    if (F.Member) {
      declare("m", Kind::Desc, false);
      declare("mv", Kind::Vec, false);
    }
    line(templatePrefix(F) + retType(F.R) + " " + (F.Member ? "Kernel::" : "") + F.Name +
         "(" + Params + ") {");
    ++Indent;
    contextBody(12);
    switch (F.R) {
    case Ret::Void:
      break;
    case Ret::Desc:
      line(In.pick(2) ? "return pd;" : "return make_async_remote_copy(a, b, s, r, dev);");
      break;
    case Ret::Vec:
      line(In.pick(2) ? "return pvec;" : "return {pd, pv};");
      break;
    }
    --Indent;
    line("}");
    Contexts.pop_back();
  }
};

} // namespace

const char *snippetIncludes() { return Includes; }

Snippet decodeSnippet(const uint8_t *Data, size_t Size) {
  return Generator(Data, Size).run();
}

const std::vector<std::map<std::string, std::string>> &modelVariants() {
  static const std::vector<std::map<std::string, std::string>> Variants = {
      {},
      {{"dma.IsRemoteMethod", "-"}},
      {{"dma.WaitRecvMethod", "-"}, {"dma.WaitMethod", "-"}},
      {{"dma.LocalFactories", "tpu::make_async_remote_copy"},
       {"dma.RemoteFactories", "tpu::make_async_copy"},
       {"dma.StartedLocalFactories", "::tpu::async_remote_copy"},
       {"dma.StartedRemoteFactories", "::tpu::async_copy"}},
      {{"dma.ConstructorSrcSemParam", "4"},
       {"dma.ConstructorDeviceIdParam", "3"},
       {"dma.ConstructorDeviceIdKindParam", "0"},
       {"dma.StartPriorityParam", "7"}},
      {{"dma.DeviceIdFunctions",
        "tpu::make_async_remote_copy:9:12;tpu::semaphore_signal:0:64;tpu::program_id:0:0"},
       {"dma.DeviceIdType", "tpu::DmaSemaphore"},
       {"dma.LogicalEnumerator", "kMesh"},
       {"dma.MeshEnumerator", "kLogical"}},
      {{"dma.StartMethod", "wait_recv"},
       {"dma.WaitRecvMethod", "start"},
       {"dma.DeviceQueries", "tpu::program_id;tpu::semaphore_read;f0;Kernel::f1"}},
      {{"dma.DeviceQueries", ""},
       {"dma.StartedLocalFactories", ""},
       {"dma.StartedRemoteFactories", ""},
       {"dma.LocalFactories", "tpu::make_async_copy;unknown_copy;f0"}},
  };
  return Variants;
}

} // namespace dmalint::fuzz
