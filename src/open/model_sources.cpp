// The table of model sources (model_source.h): per kind, how it is recognised from its
// files, described, shaped from its config alone and opened. Folders are asked in the
// order of the table (OpenAI's before Hugging Face's, a classifier before a language model).
#include <filesystem>
#include <nlohmann/json.hpp>

#include "model/gguf_lm.h"
#include "model/hf_classifier.h"
#include "model/hf_gpt2.h"
#include "model/hf_llama.h"
#include "model/hf_lm.h"
#include "model/openai_gpt2.h"
#include "open/classify_run.h"
#include "open/gguf_model.h"
#include "open/instruct_run.h"
#include "open/loaded_run.h"
#include "open/model_source.h"
#include "open/open_model.h"
#include "report/model_info.h"
#include "run/checkpoint.h"
#include "run/run_folder.h"
#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/gpt2_cut.h"
#include "tokenizer/hf_json_tokenizer.h"
#include "tokenizer/load.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json_read.h"
#include "util/rng.h"

namespace tinylm {

namespace {

std::unique_ptr<Tokenizer> gpt2_tokenizer(const OpenOptions& o) {
  if (o.gpt2_vocab_dir.empty()) return std::make_unique<BpeTokenizer>();
  return std::make_unique<BpeTokenizer>(o.gpt2_vocab_dir);
}

// ---- Hugging Face GPT-2 folders: GPT2LMHeadModel and GPT2ForSequenceClassification ----

bool is_hf_classifier_config(const std::string& dir) {
  const nlohmann::json config = read_json_file(dir + "/config.json");
  if (!config.is_object() || !config.contains("architectures")) return false;
  const nlohmann::json& a = config["architectures"];
  return a.is_array() && !a.empty() && a[0] == "GPT2ForSequenceClassification";
}

GPTConfig hf_shape(const ModelSourceInfo& s) {
  try {
    const nlohmann::json config = read_json_file(s.path + "/config.json");
    if (is_llama_family_config(config)) return llama_config_from_hf(config);
    return config_from_hf(config);
  } catch (const InputError& e) {
    const std::string what = e.what();
    throw InputError(what.rfind("config.json", 0) == 0 ? s.path + "/" + what : what);
  }
}

// The tokenizer tinylm stored in the folder when it exported it (tokenizer/load.h), else
// GPT-2's.
std::unique_ptr<Tokenizer> hf_folder_tokenizer(const std::string& dir, const OpenOptions& o) {
  std::unique_ptr<Tokenizer> stored = stored_folder_tokenizer(dir);
  return stored ? std::move(stored) : gpt2_tokenizer(o);
}

// A llama-family folder's tokenizer: tinylm's own, else its tokenizer.json (SmolLM2's,
// Qwen's, Llama 3's: tokenizer/hf_json_tokenizer.h, with tokenizer_config.json), else
// GPT-2's byte-level BPE where tokenizer_config.json names GPT2Tokenizer and the folder
// has no tokenizer.json (vocab.json and merges.txt as GPT-2's).
std::unique_ptr<Tokenizer> llama_folder_tokenizer(const std::string& dir, const OpenOptions& o) {
  if (std::unique_ptr<Tokenizer> stored = stored_folder_tokenizer(dir)) return stored;
  if (file_exists(dir + "/tokenizer.json")) return open_hf_json_tokenizer(dir);
  const std::string config = dir + "/tokenizer_config.json";
  const nlohmann::json t = file_exists(config) ? read_json_file(config) : nlohmann::json();
  require(t.is_object() && t.value("tokenizer_class", "") == "GPT2Tokenizer",
          dir +
              ": no tokenizer tinylm reads (tokenizer.json, GPT2Tokenizer in "
              "tokenizer_config.json, or a tokenizer tinylm saved)");
  return gpt2_tokenizer(o);
}

void open_hf_lm(OpenedModel& m, const OpenOptions& o) {
  const bool llama = is_hf_llama_dir(m.source.path);
  m.lm = load_hf_lm(m.source.path);
  m.tokenizer =
      llama ? llama_folder_tokenizer(m.source.path, o) : hf_folder_tokenizer(m.source.path, o);
  m.checkpoint = m.source.path + "/model.safetensors";
}

void open_hf_classifier(OpenedModel& m, const OpenOptions& o) {
  m.classifier = load_hf_classifier(m.source.path);
  m.tokenizer = hf_folder_tokenizer(m.source.path, o);
  m.pad_id = m.classifier->config().pad_token_id;
  m.max_length = hf_classifier_max_length(m.source.path);
  m.checkpoint = m.source.path + "/model.safetensors";
}

// ---- OpenAI's original GPT-2 folder (hparams.json + TensorFlow checkpoint) ----

GPTConfig openai_shape(const ModelSourceInfo& s) {
  try {
    return config_from_openai_hparams(read_json_file(s.path + "/hparams.json"));
  } catch (const InputError& e) {
    throw InputError(s.path + "/" + e.what());
  }
}

// The folder of OpenAI's encoder.json + vocab.bpe beside its checkpoint, else the one
// the options name (GPT-2's).
std::string openai_vocab_dir(const std::string& dir, const OpenOptions& o) {
  if (file_exists(dir + "/encoder.json") && file_exists(dir + "/vocab.bpe")) return dir;
  return o.gpt2_vocab_dir.empty() ? default_gpt2_dir() : o.gpt2_vocab_dir;
}

void open_openai(OpenedModel& m, const OpenOptions& o) {
  m.lm = load_openai_gpt2(m.source.path);
  m.tokenizer = std::make_unique<BpeTokenizer>(openai_vocab_dir(m.source.path, o));
  m.checkpoint = openai_checkpoint_prefix(m.source.path);
}

// ---- tinylm runs: `tinylm finetune` folders, `tinylm train` folders and checkpoints ----

bool is_finetune_run(ModelSourceInfo& s) {
  s.task = finetune_task_of(s.path);
  if (s.task.empty()) return false;
  require(file_exists(s.path + "/last.safetensors"),
          s.option + " " + s.path + ": a " + s.task +
              " fine-tuning run with no checkpoint yet (no last.safetensors)");
  return true;
}

// config.json: the FinetuneConfig, and under "run" what the run learnt of its model.
GPTConfig finetune_run_shape(const ModelSourceInfo& s) {
  const std::string file = s.path + "/config.json";
  const nlohmann::json j = read_json_file(file);
  require(j.contains("run") && j["run"].is_object() && j["run"].contains("model"),
          file + ": no run.model (the shape of the fine-tuned model)");
  try {
    GPTConfig c = GPTConfig::from_json(j["run"]["model"], "run.model.");
    c.validate();
    return c;
  } catch (const InputError& e) {
    throw InputError(file + ": " + e.what());
  }
}

void open_finetune_run(OpenedModel& m, const OpenOptions&) {
  const std::string& dir = m.source.path;
  if (m.source.task == "classify") {
    ClassifyRun run = load_classify_run(dir, "tinylm");
    m.classifier = std::move(run.model);
    m.tokenizer = std::move(run.tokenizer);
    m.finetune_config = std::move(run.config);
    m.step = run.step;
    m.max_length = run.max_length;
    m.pad_id = run.pad_id;
  } else {
    InstructRun run = load_instruct_run(dir, "tinylm");
    m.lm = std::move(run.model);
    m.lora = std::move(run.lora);
    m.tokenizer = std::move(run.tokenizer);
    m.finetune_config = std::move(run.config);
    m.step = run.step;
  }
  m.checkpoint = dir + "/last.safetensors";
}

bool is_train_run(ModelSourceInfo& s) {
  return file_exists(s.path + "/last.safetensors") || file_exists(s.path + "/best.safetensors");
}

// A checkpoint of a `tinylm train` run; a fine-tuning run's is refused (its folder is the
// source).
bool is_train_checkpoint(ModelSourceInfo& s) {
  if (!s.path.ends_with(".safetensors")) return false;
  const nlohmann::json config = read_checkpoint_state(s.path).config;
  if (config.is_object() && config.contains("task") && config.contains("finetune")) {
    const std::string dir = std::filesystem::path(s.path).parent_path().string();
    throw InputError(s.option + " " + s.path + ": a fine-tuning checkpoint; give its run folder (" +
                     (dir.empty() ? "." : dir) + ")");
  }
  return true;
}

void open_train_run(OpenedModel& m, const OpenOptions&) {
  LoadedRun run = load_run(m.source.path);
  m.lm = std::move(run.model);
  m.tokenizer = std::move(run.tokenizer);
  m.train_config = std::move(run.config);
  m.step = run.step;
  m.checkpoint = run.checkpoint;
}

// ---- GGUF files (llama.cpp's gpt2) ----

void open_gguf(OpenedModel& m, const OpenOptions&) {
  GgufModel gguf = load_gguf_model(m.source.path);
  m.lm = std::move(gguf.model);
  m.tokenizer = std::move(gguf.tokenizer);
  m.checkpoint = m.source.path;
  if (gguf.matrix_type == GgmlType::kQ8_0) m.stored_decode_weights = decode::DecodeWeights::kQ8_0;
  if (gguf.matrix_type == GgmlType::kBF16) m.stored_decode_weights = decode::DecodeWeights::kBf16;
  if (gguf.matrix_type == GgmlType::kF16) m.stored_decode_weights = decode::DecodeWeights::kF16;
}

// ---- presets: a shape by name, randomly initialised ----

// The preset's shape; with options.preset_fields (a run's "model" section), those fields
// over it.
GPTConfig preset_shape(const ModelSourceInfo& s, const OpenOptions& o) {
  if (o.preset_fields.empty()) return preset_config(s.path, s.option);
  nlohmann::json shape = o.preset_fields;
  shape["preset"] = s.path;  // InputError for an unknown name lists the presets
  try {
    return GPTConfig::from_json(shape, "model.");
  } catch (const InputError& e) {
    throw InputError(s.option + " " + s.path + ": not a folder, and " + e.what());
  }
}

// A preset has no tokenizer of its own: GPT-2's, cut to the preset's vocabulary where
// that is smaller (SmolLM2-135M's 49152 rows; tokenizer/gpt2_cut.h).
std::unique_ptr<Tokenizer> preset_tokenizer(int64_t vocab, const OpenOptions& o) {
  std::unique_ptr<Tokenizer> gpt2 = gpt2_tokenizer(o);
  if (gpt2->vocab_size() <= vocab) return gpt2;
  const std::string dir = o.gpt2_vocab_dir.empty() ? default_gpt2_dir() : o.gpt2_vocab_dir;
  return std::make_unique<BpeTokenizer>(gpt2_tokenizer_cut_to(vocab, dir));
}

void open_preset(OpenedModel& m, const OpenOptions& o) {
  GPTConfig c = preset_shape(m.source, o);
  c.validate();
  m.lm = std::make_unique<GPT>(c);
  Rng rng(o.preset_seed);
  m.lm->init(rng);
  m.tokenizer = preset_tokenizer(c.vocab_size, o);
}

bool always(ModelSourceInfo&) {
  return true;
}

}  // namespace

const std::vector<ModelSourceRow>& model_source_table() {
  using K = ModelSourceKind;
  using F = SourceForm;
  static const std::vector<ModelSourceRow> table = {
      {K::OpenAiCheckpoint, F::kFolder,
       [](ModelSourceInfo& s) { return is_openai_gpt2_dir(s.path); },
       [](const ModelSourceInfo&) -> std::string { return "OpenAI's GPT-2 checkpoint"; },
       openai_shape, open_openai, BaseUse::kModel, "openai"},
      {K::HfClassifier, F::kFolder,
       [](ModelSourceInfo& s) {
         return is_hf_model_dir(s.path) && is_hf_classifier_config(s.path);
       },
       [](const ModelSourceInfo&) -> std::string {
         return "a Hugging Face GPT-2 classifier folder";
       },
       hf_shape, open_hf_classifier, BaseUse::kBody, "hf"},
      {K::HfLanguageModel, F::kFolder,
       [](ModelSourceInfo& s) { return is_hf_model_dir(s.path) || is_hf_llama_dir(s.path); },
       [](const ModelSourceInfo& s) -> std::string {
         return is_hf_llama_dir(s.path) ? "a Hugging Face Llama-family folder"
                                        : "a Hugging Face GPT-2 folder";
       },
       hf_shape, open_hf_lm, BaseUse::kModel, "hf"},
      {K::FinetuneRun, F::kFolder, is_finetune_run,
       [](const ModelSourceInfo& s) { return "a " + s.task + " fine-tuning run"; },
       finetune_run_shape, open_finetune_run, BaseUse::kRefused, "finetune"},
      {K::TrainRun, F::kFolder, is_train_run,
       [](const ModelSourceInfo&) -> std::string { return "a tinylm train run"; },
       [](const ModelSourceInfo& s) { return report::load_model_config(s.path + "/config.json"); },
       open_train_run, BaseUse::kModel, "run"},
      {K::GgufFile, F::kFile, [](ModelSourceInfo& s) { return s.path.ends_with(".gguf"); },
       [](const ModelSourceInfo&) -> std::string { return "a GGUF file"; },
       [](const ModelSourceInfo& s) { return gguf_model_config(load_gguf(s.path)); }, open_gguf,
       BaseUse::kModel, "gguf"},
      {K::Checkpoint, F::kFile, is_train_checkpoint,
       [](const ModelSourceInfo&) -> std::string { return "a tinylm train checkpoint"; },
       [](const ModelSourceInfo& s) {
         return report::model_config_from_json(read_checkpoint_state(s.path).config, s.path);
       },
       open_train_run, BaseUse::kModel, "run"},
      {K::Preset, F::kName, always, [](const ModelSourceInfo& s) { return "the preset " + s.path; },
       [](const ModelSourceInfo& s) { return preset_config(s.path, s.option); }, open_preset,
       BaseUse::kModel, "preset"},
  };
  return table;
}

}  // namespace tinylm
