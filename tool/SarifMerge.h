//===- SarifMerge.h - One log from the logs of several shards ---*- C++ -*-===//
#ifndef DMALINT_TOOL_SARIFMERGE_H
#define DMALINT_TOOL_SARIFMERGE_H

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <string>
#include <vector>

namespace dmalint::tool {

struct MergedLog {
  llvm::json::Value Log = nullptr;
  bool Successful = true; ///< Every input run's executionSuccessful.
  size_t Results = 0;
};

/// Merges dmalint SARIF logs (one run each, of the same dmalint and source
/// root, e.g. the shards of one run) into one log with one run: the rules
/// of all, the results in input order, each once (a header's finding that
/// two shards report), the notifications of all, executionSuccessful if
/// every input's was, automationDetails.id "dmalint/". Fails, naming the
/// file, on a file that is not such a log or does not fit the others.
llvm::Expected<MergedLog> mergeSarifLogs(const std::vector<std::string> &Paths);

} // namespace dmalint::tool

#endif
