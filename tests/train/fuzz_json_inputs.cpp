// Fuzz target for the JSON that tinylm reads from outside: training configs, Hugging
// Face config.json, reference.json (verify) and tokenizer JSON (run folders, checkpoints,
// meta.json). Built with libFuzzer under clang, or with the deterministic mutation loop of
// tests/common/mutation_fuzzer_main.cpp (run by ctest).
//
// Property checked: for any bytes, each reader either returns or throws InputError;
// anything else (a crash, a sanitizer report, another exception such as nlohmann's
// type_error, a huge allocation) is a bug. The first byte picks the reader:
//   0: a training config (parse_json, TrainConfig::from_json, validate, the model's validate)
//   1: a Hugging Face config.json (config_from_hf)
//   2: reference.json (parse_reference_json, vocabulary of 512)
//   3: a tokenizer's JSON (tokenizer_from_json; then a round trip through it)
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string_view>

#include "model/hf_gpt2.h"
#include "run/train_config.h"
#include "tokenizer/load.h"
#include "util/error.h"
#include "util/json_read.h"
#include "verify/verify_lm.h"

namespace {

using namespace tinylm;

void read_train_config(const nlohmann::json& j) {
  const TrainConfig c = TrainConfig::from_json(j);
  c.validate();
  GPTConfig m = c.model;
  if (m.vocab_size == 0) m.vocab_size = 65;
  m.validate();
}

void read_tokenizer(const nlohmann::json& j) {
  const auto tok = tokenizer_from_json(j);
  if (tok->kind() == "gpt2" || tok->kind() == "bpe") return;  // fuzz_bpe covers those files
  std::vector<int32_t> ids;
  for (int32_t id = 0; id < std::min<int64_t>(tok->vocab_size(), 64); ++id) ids.push_back(id);
  const std::string text = tok->decode(ids);
  try {
    tok->encode(text);
  } catch (const InputError&) {  // e.g. a word tokenizer without <|unk|>
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    const nlohmann::json j = parse_json(text, "fuzz.json");
    switch (data[0] % 4) {
      case 0:
        read_train_config(j);
        break;
      case 1:
        config_from_hf(j).validate();
        break;
      case 2:
        parse_reference_json(j, "reference.json", 512);
        break;
      default:
        read_tokenizer(j);
        break;
    }
  } catch (const InputError&) {
    // rejected cleanly
  }
  return 0;
}
