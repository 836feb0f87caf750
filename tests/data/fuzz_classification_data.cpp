// Fuzz target for classification data files: TSV, CSV and JSONL (delimited_file.h), the
// (label, text) pairs read from them (labeled_texts.h) and the whole data set encoded
// with the GPT-2 tokenizer (load_classification_data). CMake builds it with g++ as a
// deterministic mutation loop that ctest runs (tests/common/mutation_fuzzer_main.cpp,
// seeds in tests/fuzz_seeds/fuzz_classification_data). By hand with libFuzzer, the
// readers instrumented (one line, folded; run it as the script says):
//
//   tests/common/build_libfuzzer.sh fuzz_classification_data src/data/delimited_file.cpp
//     src/data/labeled_texts.cpp src/data/classification_dataset.cpp src/util/json_read.cpp
//
// Property checked: for any bytes, reading either returns or throws InputError; anything
// else (a crash, a sanitizer report, another exception, a huge allocation) is a bug. A
// data set that loads is consistent: every split is [N, T] with labels in range and
// lengths at most T, and the splits hold every kept example.
//
// The first byte picks how the rest is read (it is written to a file first):
//   byte % 3        the format: tsv, csv, jsonl
//   byte / 3 % 3    header: auto, yes, no
//   byte / 9 % 4    columns: the defaults, by name (label, text), by index (0, 1), or
//                   other names (category, message)
//   byte / 36 % 4   read_labeled_texts without labels, with labels, load_classification_data,
//                   load_classification_data with balancing, max_length 8 and context 6
//   byte / 144      0: the format named, 1: told by the file's extension
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "common/fuzz_files.h"
#include "data/classification_dataset.h"
#include "data/labeled_texts.h"
#include "tokenizer/bpe_tokenizer.h"
#include "util/error.h"

namespace {

using namespace tinylm;

const BpeTokenizer& gpt2() {
  static const BpeTokenizer tokenizer;
  return tokenizer;
}

const testing::FuzzFolder& folder() {
  static const testing::FuzzFolder dir("fuzz_classification_data");
  return dir;
}

void check_set(const ClassificationSet& set, int64_t T, int64_t num_labels) {
  if (set.T != T || static_cast<int64_t>(set.ids.size()) != set.size() * T) std::abort();
  if (set.lengths.size() != set.labels.size() || set.lines.size() != set.labels.size())
    std::abort();
  for (int64_t i = 0; i < set.size(); ++i)
    if (set.labels[i] < 0 || set.labels[i] >= num_labels || set.lengths[i] < 0 ||
        set.lengths[i] > T)
      std::abort();
}

void load(const std::string& path, const LabeledTextFormat& format, bool small) {
  ClassificationOptions o;
  o.format = format;
  o.quiet = true;
  if (small) {
    o.balance = true;
    o.max_length = 8;
    o.context_length = 6;
  }
  const ClassificationData data = load_classification_data(path, gpt2(), o);
  const auto L = static_cast<int64_t>(data.labels.size());
  if (L < 2 || data.class_counts.size() != data.labels.size()) std::abort();
  if (small && data.max_length > 6) std::abort();
  int64_t kept = 0;
  for (int64_t n : data.class_counts) kept += n;
  if (data.train.size() < 1 || data.train.size() + data.val.size() + data.test.size() != kept)
    std::abort();
  for (const ClassificationSet* set : {&data.train, &data.val, &data.test})
    check_set(*set, data.max_length, L);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const unsigned byte = data[0];
  static const char* const kFormats[] = {"tsv", "csv", "jsonl"};
  static const char* const kHeaders[] = {"auto", "yes", "no"};
  static const char* const kColumns[][2] = {
      {"", ""}, {"label", "text"}, {"0", "1"}, {"category", "message"}};
  const std::string format = kFormats[byte % 3];
  LabeledTextFormat f;
  f.format = byte / 144 == 0 ? format : "";
  f.header = kHeaders[byte / 3 % 3];
  f.label_column = kColumns[byte / 9 % 4][0];
  f.text_column = kColumns[byte / 9 % 4][1];
  const std::string path = folder().write(
      "data." + format, std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  try {
    switch (byte / 36 % 4) {
      case 0:
        read_labeled_texts(path, f, false);
        break;
      case 1:
        for (const LabeledText& t : read_labeled_texts(path, f, true))
          if (t.label.empty() || t.line < 1) std::abort();
        break;
      default:
        load(path, f, byte / 36 % 4 == 3);
        break;
    }
  } catch (const InputError&) {
    // rejected cleanly
  }
  return 0;
}
