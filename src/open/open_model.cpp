// Opening a model from any source (see open_model.h).
#include "open/open_model.h"

#include "backend/registry.h"
#include "finetune/classify_run.h"
#include "finetune/hf_classifier.h"
#include "finetune/instruct_run.h"
#include "model/hf_gpt2.h"
#include "model/openai_gpt2.h"
#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/load.h"
#include "train/gguf_model.h"
#include "train/run_model.h"
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

// A Hugging Face folder's tokenizer: the one tinylm stored there when it exported the
// folder (tokenizer/load.h), else GPT-2's.
std::unique_ptr<Tokenizer> hf_folder_tokenizer(const std::string& dir, const OpenOptions& o) {
  std::unique_ptr<Tokenizer> stored = stored_folder_tokenizer(dir);
  return stored ? std::move(stored) : gpt2_tokenizer(o);
}

// The folder of OpenAI's encoder.json + vocab.bpe beside its checkpoint, else the one
// the options name (GPT-2's).
std::string openai_vocab_dir(const std::string& dir, const OpenOptions& o) {
  if (file_exists(dir + "/encoder.json") && file_exists(dir + "/vocab.bpe")) return dir;
  return o.gpt2_vocab_dir.empty() ? default_gpt2_dir() : o.gpt2_vocab_dir;
}

void open_train_run(OpenedModel& m) {
  LoadedRun run = load_run(m.source.path);
  m.lm = std::move(run.model);
  m.tokenizer = std::move(run.tokenizer);
  m.train_config = std::move(run.config);
  m.step = run.step;
  m.checkpoint = run.checkpoint;
}

void open_finetune_run(OpenedModel& m, const std::string& verb) {
  const std::string& dir = m.source.path;
  if (m.source.task == "classify") {
    finetune::ClassifyRun run = finetune::load_classify_run(dir, verb);
    m.classifier = std::move(run.model);
    m.tokenizer = std::move(run.tokenizer);
    m.finetune_config = std::move(run.config);
    m.step = run.step;
    m.max_length = run.max_length;
    m.pad_id = run.pad_id;
  } else {
    finetune::InstructRun run = finetune::load_instruct_run(dir, verb);
    m.lm = std::move(run.model);
    m.lora = std::move(run.lora);
    m.tokenizer = std::move(run.tokenizer);
    m.finetune_config = std::move(run.config);
    m.step = run.step;
  }
  m.checkpoint = dir + "/last.safetensors";
}

void open_preset(OpenedModel& m, const OpenOptions& o) {
  GPTConfig c = preset_config(m.source.path, o.option);
  c.validate();
  m.lm = std::make_unique<GPT>(c);
  Rng rng(o.preset_seed);
  m.lm->init(rng);
  m.tokenizer = gpt2_tokenizer(o);
}

}  // namespace

OpenedModel open_model(const std::string& src, const OpenOptions& options) {
  OpenedModel m;
  m.source = identify_model_source(src, options.option);
  switch (m.source.kind) {
    case ModelSourceKind::HfLanguageModel:
      m.lm = load_hf_gpt2(m.source.path);
      m.tokenizer = hf_folder_tokenizer(m.source.path, options);
      m.checkpoint = m.source.path + "/model.safetensors";
      break;
    case ModelSourceKind::OpenAiCheckpoint:
      m.lm = load_openai_gpt2(m.source.path);
      m.tokenizer = std::make_unique<BpeTokenizer>(openai_vocab_dir(m.source.path, options));
      m.checkpoint = openai_checkpoint_prefix(m.source.path);
      break;
    case ModelSourceKind::HfClassifier:
      m.classifier = finetune::load_hf_classifier(m.source.path);
      m.tokenizer = hf_folder_tokenizer(m.source.path, options);
      m.pad_id = m.classifier->config().pad_token_id;
      m.max_length = finetune::hf_classifier_max_length(m.source.path);
      m.checkpoint = m.source.path + "/model.safetensors";
      break;
    case ModelSourceKind::TrainRun:
    case ModelSourceKind::Checkpoint:
      open_train_run(m);
      break;
    case ModelSourceKind::FinetuneRun:
      open_finetune_run(m, "tinylm");
      break;
    case ModelSourceKind::Preset:
      open_preset(m, options);
      break;
    case ModelSourceKind::GgufFile: {
      GgufModel gguf = load_gguf_model(m.source.path);
      m.lm = std::move(gguf.model);
      m.tokenizer = std::move(gguf.tokenizer);
      m.checkpoint = m.source.path;
      if (gguf.matrix_type == GgmlType::kQ8_0) m.stored_decode_weights = nn::DecodeWeights::kQ8_0;
      if (gguf.matrix_type == GgmlType::kBF16) m.stored_decode_weights = nn::DecodeWeights::kBf16;
      if (gguf.matrix_type == GgmlType::kF16) m.stored_decode_weights = nn::DecodeWeights::kF16;
      break;
    }
  }
  return m;
}

GPT& OpenedModel::language_model(const std::string& verb) {
  if (lm) return *lm;
  throw InputError(source.option + " " + source.path + " is " + describe(source) + "; " + verb +
                   " needs a language model (use tinylm classify for a classifier)");
}

finetune::SequenceClassifier& OpenedModel::classifier_model(const std::string& verb) {
  if (classifier) return *classifier;
  throw InputError(source.option + " " + source.path + " is " + describe(source) + "; " + verb +
                   " needs a classifier: a classify fine-tuning run or a Hugging Face "
                   "GPT2ForSequenceClassification folder" +
                   (source.task == "instruct" ? " (use tinylm respond for an instruct run)" : ""));
}

void OpenedModel::merge_adapters() {
  if (!lora) return;
  lora->merge();
  lora.reset();
}

void OpenedModel::to(Device device) {
  if (device == Device::kCpu) return;
  require_device(device);
  require(lm != nullptr, [&] {
    return title() + ": a classifier runs on the CPU only (--device " + device_name(device) +
           " takes language models)";
  });
  merge_adapters();
  lm->to(device);
}

std::string OpenedModel::title() const {
  return source.path + " (" + describe(source) + ")";
}

}  // namespace tinylm
