//===- FuzzModelVariantsTest.cpp - The fuzz grammar's API models apply -----===//
//
// fuzz-snippet judges every input under each of the grammar's API model
// variants and aborts at start if one of them is not a valid configuration,
// so a stricter option reader would stop the fuzz run in CI before it tried
// a single input. This is the same check in the plain suite.
#include "../../fuzz/SnippetGrammar.h"
#include "dmalint/ApiModel.h"
#include "gtest/gtest.h"

namespace {

TEST(FuzzModelVariants, EveryVariantIsAValidConfiguration) {
  const auto &Variants = dmalint::fuzz::modelVariants();
  ASSERT_GT(Variants.size(), 1u);
  for (size_t I = 0; I < Variants.size(); ++I) {
    dmalint::ApiModel Model = dmalint::ApiModel::builtin();
    std::vector<dmalint::ApiOptionError> Errors = dmalint::applyApiOptions(Model, Variants[I]);
    for (const dmalint::ApiOptionError &E : Errors)
      ADD_FAILURE() << "model variant " << I << ": " << E.Key << ": " << E.Message;
  }
}

} // namespace
