// A small Clang tool, the way LLVM's own tools are written: command-line
// options with llvm::cl, AST matchers that count function definitions per
// file and find functions with many parameters, results in LLVM containers
// printed through raw_ostream. No kernel: dmalint must stay silent.
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Tooling/CommonOptionsParser.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <utility>

using namespace clang;
using namespace clang::ast_matchers;

static llvm::cl::OptionCategory Category("decl-counter options");
static llvm::cl::opt<unsigned> MaxParams("max-params", llvm::cl::init(6),
                                         llvm::cl::desc("Report functions with more parameters"),
                                         llvm::cl::cat(Category));

namespace {

class Counter : public MatchFinder::MatchCallback {
 public:
  void run(const MatchFinder::MatchResult& Result) override {
    const auto* FD = Result.Nodes.getNodeAs<FunctionDecl>("fn");
    if (!FD) return;
    const SourceManager& SM = *Result.SourceManager;
    ++PerFile[SM.getFilename(SM.getSpellingLoc(FD->getLocation()))];
    if (FD->getNumParams() > MaxParams)
      Wide.emplace_back(FD->getQualifiedNameAsString(), FD->getNumParams());
  }

  void print(llvm::raw_ostream& OS) const {
    llvm::SmallVector<std::pair<llvm::StringRef, unsigned>, 16> Rows;
    for (const auto& E : PerFile) Rows.emplace_back(E.getKey(), E.getValue());
    llvm::sort(Rows, [](const auto& A, const auto& B) { return A.second > B.second; });
    for (const auto& [File, N] : Rows) OS << llvm::format_decimal(N, 6) << "  " << File << "\n";
    for (const auto& [Name, N] : Wide) OS << "wide: " << Name << " (" << N << " params)\n";
  }

 private:
  llvm::StringMap<unsigned> PerFile;
  llvm::SmallVector<std::pair<std::string, unsigned>, 8> Wide;
};

}  // namespace

int main(int argc, const char** argv) {
  auto Parser = tooling::CommonOptionsParser::create(argc, argv, Category);
  if (!Parser) {
    llvm::errs() << llvm::toString(Parser.takeError()) << "\n";
    return 1;
  }
  tooling::ClangTool Tool(Parser->getCompilations(), Parser->getSourcePathList());
  Counter C;
  MatchFinder Finder;
  Finder.addMatcher(functionDecl(isDefinition(), unless(isExpansionInSystemHeader())).bind("fn"),
                    &C);
  int Status = Tool.run(tooling::newFrontendActionFactory(&Finder).get());
  C.print(llvm::outs());
  return Status;
}
