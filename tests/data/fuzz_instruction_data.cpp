// Fuzz target for instruction data files (a JSON array of {"instruction", "input",
// "output"}: instruction_data.h), read, split and encoded with the GPT-2 tokenizer by
// load_instruction_data. CMake builds it with g++ as a deterministic mutation loop that
// ctest runs (tests/common/mutation_fuzzer_main.cpp, seeds in
// tests/fuzz_seeds/fuzz_instruction_data). By hand with libFuzzer, the readers
// instrumented (one line, folded; run it as the script says):
//
//   tests/common/build_libfuzzer.sh fuzz_instruction_data src/data/instruction_data.cpp
//     src/util/json_read.cpp
//
// Property checked: for any bytes, loading either returns or throws InputError; anything
// else (a crash, a sanitizer report, another exception such as nlohmann's type_error, a
// huge allocation) is a bug. A file that loads gives non-empty entries, split into train,
// test and val in file order with a non-empty training split, each encoded.
//
// The first byte picks the split fractions (train, test): byte % 4 -> (0.85, 0.10) (the
// course's), (1, 0), (0.5, 0.5), (0.01, 0); the rest is the file.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "common/fuzz_files.h"
#include "data/instruction_data.h"
#include "tokenizer/bpe_tokenizer.h"
#include "util/error.h"

namespace {

using namespace tinylm;

const BpeTokenizer& gpt2() {
  static const BpeTokenizer tokenizer;
  return tokenizer;
}

const testing::FuzzFolder& folder() {
  static const testing::FuzzFolder dir("fuzz_instruction_data");
  return dir;
}

void check_set(const InstructionSet& set, int64_t& longest) {
  if (set.encoded.size() != set.entries.size()) std::abort();
  for (size_t i = 0; i < set.entries.size(); ++i) {
    const InstructionEntry& e = set.entries[i];
    if (e.instruction.empty() || e.output.empty() || !e.source.is_object()) std::abort();
    const EncodedInstruction& enc = set.encoded[i];
    if (enc.ids.empty() || enc.prompt_length < 1) std::abort();
    longest = std::max<int64_t>(longest, enc.ids.size());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const InstructionSplitOptions kSplits[] = {{0.85, 0.10}, {1, 0}, {0.5, 0.5}, {0.01, 0}};
  const InstructionSplitOptions& split = kSplits[data[0] % 4];
  const std::string path = folder().write(
      "data.json", std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  try {
    const InstructionData d = load_instruction_data(path, gpt2(), split);
    if (d.train.size() < 1) std::abort();
    int64_t longest = 0;
    for (const InstructionSet* set : {&d.train, &d.test, &d.val}) check_set(*set, longest);
    if (longest != d.longest) std::abort();
  } catch (const InputError&) {
    // rejected cleanly
  }
  return 0;
}
