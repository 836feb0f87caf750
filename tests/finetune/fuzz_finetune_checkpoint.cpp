// Fuzz target for what a fine-tuning run saves and reads back: its config.json (the
// FinetuneConfig plus "run": the model's shape, the labels, pad_id, max_length) and the
// metadata of its checkpoint (run/checkpoint.h: format, step, that config, the
// tokenizer, generator states, losses). CMake builds it with g++ as a deterministic
// mutation loop that ctest runs (tests/common/mutation_fuzzer_main.cpp, seeds in
// tests/fuzz_seeds/fuzz_finetune_checkpoint). By hand with libFuzzer, the readers
// instrumented (one line, folded; run it as the script says):
//
//   tests/common/build_libfuzzer.sh fuzz_finetune_checkpoint
//     src/run/finetune_config.cpp src/open/classify_run.cpp
//     src/run/checkpoint.cpp src/model/config.cpp src/util/json_read.cpp
//
// The first byte picks the input:
//   even: the rest is a run's config.json
//   odd:  the rest is the checkpoint's metadata values, separated by 0 bytes, in the
//         order of kMetadataKeys (fewer values: the keys after them are missing);
//         checkpoint_state reads them, then its config is read as config.json is
// The config is then read as the verbs read it: FinetuneConfig::from_saved (and again
// from its to_json: what is accepted is written back readable), build_classifier with
// run.labels and run.pad_id (`tinylm classify`, `tinylm eval`) and one forward pass,
// run.max_length, a GPT with the run's trainable set (`tinylm respond`), run.base_kind
// (--resume), and the tokenizer of a checkpoint (char, word and addition; fuzz_json_inputs
// and fuzz_bpe cover the others).
//
// Property checked: for any bytes, every read either returns or throws InputError;
// anything else (a crash, a sanitizer report, another exception, a huge allocation) is a
// bug. Sizes: a model whose weights cannot fit in memory must be refused before anything
// is allocated (GPTConfig::validate); one that fits but has more than kMaxBuiltParameters
// is not built here (it would be valid, only slow).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "io/safetensors.h"
#include "model/gpt.h"
#include "open/classify_run.h"
#include "run/checkpoint.h"
#include "run/finetune_config.h"
#include "run/lm_trainable.h"
#include "tensor/threads.h"
#include "tokenizer/load.h"
#include "util/error.h"
#include "util/json_read.h"

namespace {

using namespace tinylm;

constexpr double kMaxBuiltParameters = 1 << 20;

const char* const kMetadataKeys[] = {
    "tinylm.format",      "tinylm.step",        "tinylm.config",        "tinylm.tokenizer",
    "tinylm.rng.batches", "tinylm.rng.dropout", "tinylm.best_val_loss", "tinylm.val_loss"};

// False for a model shape that is valid and fits in memory but is too large to build on
// every input; true for a small one and for one that validate refuses (building it must
// then throw InputError before allocating).
bool may_build(const nlohmann::json& model) {
  GPTConfig c;
  try {
    c = GPTConfig::from_json(model, "run.model.");
    c.validate();
  } catch (const InputError&) {
    return true;
  }
  const double C = static_cast<double>(c.d_model), F = static_cast<double>(c.ffn_hidden());
  const double params = 2.0 * static_cast<double>(c.vocab_size) * C +
                        static_cast<double>(c.block_size) * C +
                        static_cast<double>(c.n_layer) * (4 * C * C + 2 * C * (F + 8) + 2 * C);
  return params <= kMaxBuiltParameters;
}

// `tinylm classify` / `tinylm eval`: the classifier of the run, its T and pad id.
void read_classifier(const FinetuneConfig& config, const nlohmann::json& run_info) {
  if (run_info.is_object() && run_info.contains("model") && !may_build(run_info["model"])) return;
  const auto model = build_classifier(config, run_info, config.finetune.seed);
  const JsonField info(run_info, "config.json", "run");
  if (model->config().num_labels != static_cast<int64_t>(info["labels"].size())) std::abort();
  const int64_t max_length = info.has("max_length") ? info["max_length"].integer(0, INT32_MAX) : 0;
  if (max_length < 0) std::abort();
  const std::vector<float> p = label_probabilities(*model, {0});
  if (static_cast<int64_t>(p.size()) != model->config().num_labels) std::abort();
}

// `tinylm respond`: the run's GPT with its trainable set (adapters under lora).
void read_language_model(const FinetuneConfig& config, const nlohmann::json& j) {
  require(j.contains("run") && j["run"].contains("model"), "no model config");
  if (!may_build(j["run"]["model"])) return;
  GPT model(GPTConfig::from_json(j["run"]["model"], "run.model."));
  Rng rng(config.finetune.seed + 3);
  Trainables trained = set_lm_trainable(model, config, rng);
  if (trained.params.empty()) std::abort();
}

void read_config(const nlohmann::json& j) {
  const FinetuneConfig config = FinetuneConfig::from_saved(j, "config.json");
  const nlohmann::json again = config.to_json();
  if (FinetuneConfig::from_saved(again, "again").to_json() != again) std::abort();
  const auto each = [](auto read) {
    try {
      read();
    } catch (const InputError&) {
    }
  };
  each([&] {
    require(j.contains("run"), "no run information");
    read_classifier(config, j["run"]);
  });
  each([&] { read_language_model(config, j); });
  each([&] {
    const JsonField run(j, "config.json", "tinylm.config");
    run["run"]["base_kind"].string();
  });
}

void read_tokenizer(const nlohmann::json& j) {
  const auto kind = j.is_object() ? j.find("kind") : j.end();
  if (kind != j.end() && kind->is_string() && (*kind == "gpt2" || *kind == "bpe")) return;
  tokenizer_from_json(j);
}

void read_checkpoint(std::string_view values) {
  SafeTensors file;
  for (const char* key : kMetadataKeys) {
    if (values.data() == nullptr) break;
    const size_t cut = values.find('\0');
    file.metadata[key] = std::string(values.substr(0, cut));
    values = cut == values.npos ? std::string_view() : values.substr(cut + 1);
  }
  const CheckpointState state = checkpoint_state(file, "last.safetensors");
  if (state.step < 0) std::abort();
  try {
    read_tokenizer(state.tokenizer);
  } catch (const InputError&) {
  }
  read_config(state.config);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // One input at a time: threads would only wait on each other over models this small.
  static const bool one_thread = (set_num_threads(1), true);
  (void)one_thread;
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    if (data[0] % 2 == 0) {
      read_config(parse_json(rest, "config.json"));
    } else {
      read_checkpoint(rest);
    }
  } catch (const InputError&) {
    // rejected cleanly
  }
  return 0;
}
