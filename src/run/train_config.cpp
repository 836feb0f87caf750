#include "run/train_config.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <tuple>

#include "run/count_limits.h"
#include "run/section_reader.h"
#include "util/error.h"
#include "util/files.h"
#include "util/float_text.h"
#include "util/json_read.h"
#include "util/utf8.h"

namespace tinylm {

namespace {

// train.global_batch decides train.grad_accum (given too, it must agree).
void resolve_global_batch(TrainSettings& t, bool grad_accum_given) {
  require(t.batch_size > 0, "train.batch_size must be positive");
  require(t.global_batch % t.batch_size == 0,
          "train.global_batch (" + std::to_string(t.global_batch) +
              ") must be a multiple of train.batch_size (" + std::to_string(t.batch_size) + ")");
  const int64_t micros = t.global_batch / t.batch_size;
  require(!grad_accum_given || t.grad_accum == micros,
          "train.grad_accum (" + std::to_string(t.grad_accum) + ") x train.batch_size (" +
              std::to_string(t.batch_size) + ") is not train.global_batch (" +
              std::to_string(t.global_batch) + "); set one of grad_accum and global_batch");
  t.grad_accum = micros;
}

// The top level: an object whose keys are known sections, and "kind" (what a run folder's
// config.json says it is: "train").
void require_known_sections(const nlohmann::json& j) {
  require(j.is_object(), "config must be a JSON object");
  if (j.contains("kind"))
    require(j["kind"] == "train",
            "kind: " + j["kind"].dump() +
                " is not the config of a `tinylm train` run (kind \"train\")");
  for (const auto& [key, value] : j.items())
    require(key == "kind" || key == "model" || key == "data" || key == "train" || key == "sample" ||
                key == "lora" || key == "dist",
            "unknown section '" + key + "' (model, data, train, sample, lora, dist)");
}

// The "data" section: the corpus or task, and how batches are cut from it.
const SettingField<DataConfig> kDataFields[] = {
    {"path", &DataConfig::path},
    {"tokenizer", &DataConfig::tokenizer},
    {"val_fraction", &DataConfig::val_fraction},
    {"task", &DataConfig::task},
    {"windows", &DataConfig::windows},
    {"stride", &DataConfig::stride},
    {"shuffle", &DataConfig::shuffle},
    {"drop_last", &DataConfig::drop_last},
    {"epochs", &DataConfig::epochs},
    {"loss_on", &DataConfig::loss_on},
};

// The "sample" section: what is sampled at each evaluation.
const SettingField<SampleSettings> kSampleFields[] = {
    {"prompt", &SampleSettings::prompt},
    {"max_new_tokens", &SampleSettings::max_new_tokens},
    {"temperature", &SampleSettings::temperature},
    {"top_k", &SampleSettings::top_k},
    {"top_p", &SampleSettings::top_p},
};

// The fields of the "train" section that are `tinylm train`'s alone.
const SettingField<TrainSettings> kTrainFields[] = {
    {"lr_decay_steps", &TrainSettings::lr_decay_steps},
    {"decay_embeddings", &TrainSettings::decay_embeddings},
    {"grad_accum", &TrainSettings::grad_accum},
    {"global_batch", &TrainSettings::global_batch},
    {"eval_iters", &TrainSettings::eval_iters},
    {"init_from", &TrainSettings::init_from},
    {"trainable", &TrainSettings::trainable},
};

// The "train" section: the shared optimizer and loop fields, then train's own.
TrainSettings read_train_settings(const nlohmann::json& section) {
  TrainSettings t;
  SectionReader reader(section, "train");
  read_fields(reader, static_cast<OptimizerSettings&>(t), kOptimizerFields);
  read_fields(reader, static_cast<LoopCounts&>(t), kLoopFields);
  read_fields(reader, t, kTrainFields);
  reader.done();
  return t;
}

nlohmann::json train_section_json(const TrainSettings& t) {
  nlohmann::json j = nlohmann::json::object();
  write_fields(static_cast<const OptimizerSettings&>(t), kOptimizerFields, j);
  write_fields(static_cast<const LoopCounts&>(t), kLoopFields, j);
  write_fields(t, kTrainFields, j);
  j["global_batch"] = t.batch_size * t.grad_accum;  // what the run used
  return j;
}

}  // namespace

TrainConfig TrainConfig::from_json(const nlohmann::json& j) {
  require_known_sections(j);
  TrainConfig c;
  if (j.contains("model")) c.model = GPTConfig::from_json(j["model"], "model.");
  const nlohmann::json empty = nlohmann::json::object();
  c.data = read_section(j.value("data", empty), "data", DataConfig{}, kDataFields);
  const nlohmann::json train_section = j.value("train", empty);
  c.train = read_train_settings(train_section);
  c.sample = read_section(j.value("sample", empty), "sample", SampleSettings{}, kSampleFields);
  c.lora = read_lora(j.value("lora", empty));
  c.dist = DistSettings::from_json(j.value("dist", empty));
  // A "lora" section without train.trainable asks for LoRA.
  if (j.contains("lora") && !train_section.contains("trainable")) c.train.trainable = "lora";
  if (c.train.global_batch > 0) resolve_global_batch(c.train, train_section.contains("grad_accum"));
  return c;
}

nlohmann::json TrainConfig::to_json() const {
  return {{"kind", "train"},
          {"model", model.to_json()},
          {"data", section_json(data, kDataFields)},
          {"train", train_section_json(train)},
          {"sample", section_json(sample, kSampleFields)},
          {"lora", lora_json(lora)},
          {"dist", dist.to_json()}};
}

namespace {

// The corpus or task, and the windows cut from it.
void check_data(const DataConfig& data) {
  require(data.task.empty() || data.task == "addition",
          "data.task: unknown task '" + data.task + "' (addition)");
  require(!data.task.empty() || !data.path.empty(), "data.path: no corpus given");
  require(data.val_fraction > 0 && data.val_fraction < 1, "data.val_fraction must be in (0, 1)");
  require(data.windows == "random" || data.windows == "sliding",
          "data.windows: unknown '" + data.windows + "' (random, sliding)");
  require(data.loss_on == "answer" || data.loss_on == "all",
          "data.loss_on: unknown '" + data.loss_on + "' (answer, all)");
  require(data.stride >= 0, "data.stride must be >= 0 (0: model.block_size)");
  require(data.epochs >= 0, "data.epochs must be >= 0 (0: train.max_steps decides)");
  require(data.windows == "sliding" || data.epochs == 0,
          "data.epochs needs data.windows = sliding");
}

// The train settings beyond the shared ones (check_optimizer, check_loop).
void check_train_values(const TrainSettings& t, const DataConfig& data) {
  require(t.grad_accum > 0, "train.grad_accum must be positive");
  require(t.global_batch >= 0, "train.global_batch must be >= 0 (0: batch_size x grad_accum)");
  require(t.eval_iters > 0, "train.eval_iters must be positive");
  for (const auto& [name, v, limit] : {std::tuple<const char*, int64_t, int64_t>{
                                           "train.lr_decay_steps", t.lr_decay_steps, kMaxStepCount},
                                       {"train.grad_accum", t.grad_accum, kMaxGradAccum},
                                       {"train.eval_iters", t.eval_iters, kMaxEvalBatches},
                                       {"data.epochs", data.epochs, kMaxEpochs}})
    require_at_most(name, v, limit);
}

// The sampler's settings used as 32-bit floats.
void check_sample_floats(const SampleSettings& sample) {
  for (const auto& [name, v] :
       {std::pair<const char*, double>{"sample.temperature", sample.temperature},
        {"sample.top_p", sample.top_p}})
    require_float_range(name, v);
}

// What is sampled at every evaluation.
void check_sampling(const SampleSettings& sample) {
  require(sample.max_new_tokens >= 0 && sample.max_new_tokens <= kMaxNewTokens,
          "sample.max_new_tokens must be in [0, " + std::to_string(kMaxNewTokens) + "]");
  require(sample.temperature > 0 && sample.temperature <= std::numeric_limits<float>::max(),
          "sample.temperature must be positive");
  require(sample.top_k >= 0, "sample.top_k must be >= 0 (0: all tokens)");
  require(sample.top_p >= 0 && sample.top_p <= 1, "sample.top_p must be in [0, 1]");
}

}  // namespace

void TrainConfig::validate() const {
  check_data(data);
  check_optimizer(train, {"train"});
  check_loop(train, {"train"});
  check_train_values(train, data);
  require(train.trainable == "all" || train.trainable == "lora",
          "train.trainable: unknown '" + train.trainable + "' (all, lora)");
  if (train.trainable == "lora")  // the targets are checked against the model when it is built
    tinylm::validate(lora);
  check_sample_floats(sample);
  // Sampling happens at every evaluation: check it now, not after the first steps.
  check_sampling(sample);
}

void apply_override(nlohmann::json& j, const std::string& assignment) {
  const size_t eq = assignment.find('=');
  require(eq != std::string::npos && eq > 0,
          "--set expects key=value (e.g. train.lr=3e-4), got '" + assignment + "'");
  const size_t bad = utf8_first_invalid(assignment);
  require(bad == std::string::npos,
          "--set: invalid UTF-8 at byte " + std::to_string(bad) + " of the assignment");
  const std::string path = assignment.substr(0, eq), text = assignment.substr(eq + 1);
  nlohmann::json value;
  try {
    value = parse_json(text, "--set " + path);
  } catch (const InputError&) {
    value = text;  // a bare word: a string
  } catch (const nlohmann::json::exception&) {
    value = text;  // a bare word: a string
  }
  nlohmann::json* node = &j;
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    const std::string key = path.substr(start, dot - start);
    require(!key.empty(), "--set: empty name in '" + path + "'");
    if (dot == std::string::npos) {
      (*node)[key] = value;
      return;
    }
    if (!node->contains(key)) (*node)[key] = nlohmann::json::object();
    node = &(*node)[key];
    require(node->is_object(), "--set: " + path.substr(0, dot) + " is not a section");
    start = dot + 1;
  }
}

nlohmann::json load_config_json(const std::string& path, const std::vector<std::string>& sets) {
  nlohmann::json j = read_json_file(path);
  require(j.is_object(), path + ": the config must be a JSON object");
  for (const auto& s : sets) apply_override(j, s);
  return j;
}

}  // namespace tinylm
