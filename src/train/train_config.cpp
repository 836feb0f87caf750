#include "train/train_config.h"

#include <cmath>
#include <limits>
#include <tuple>

#include "train/count_limits.h"
#include "train/section_reader.h"
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

}  // namespace

TrainConfig TrainConfig::from_json(const nlohmann::json& j) {
  require(j.is_object(), "config must be a JSON object");
  for (const auto& [key, value] : j.items())
    require(key == "model" || key == "data" || key == "train" || key == "sample" || key == "lora" ||
                key == "dist",
            "unknown section '" + key + "' (model, data, train, sample, lora, dist)");
  TrainConfig c;
  if (j.contains("model")) c.model = GPTConfig::from_json(j["model"], "model.");
  const nlohmann::json empty = nlohmann::json::object();
  SectionReader(j.value("data", empty), "data")
      .string("path", c.data.path)
      .string("tokenizer", c.data.tokenizer)
      .number("val_fraction", c.data.val_fraction)
      .string("task", c.data.task)
      .string("windows", c.data.windows)
      .integer("stride", c.data.stride)
      .boolean("shuffle", c.data.shuffle)
      .boolean("drop_last", c.data.drop_last)
      .integer("epochs", c.data.epochs)
      .string("loss_on", c.data.loss_on)
      .done();
  auto& t = c.train;
  SectionReader(j.value("train", empty), "train")
      .integer("batch_size", t.batch_size)
      .integer("max_steps", t.max_steps)
      .number("lr", t.lr)
      .number("min_lr", t.min_lr)
      .integer("warmup_steps", t.warmup_steps)
      .integer("lr_decay_steps", t.lr_decay_steps)
      .number("beta1", t.beta1)
      .number("beta2", t.beta2)
      .number("eps", t.eps)
      .number("weight_decay", t.weight_decay)
      .boolean("decay_embeddings", t.decay_embeddings)
      .number("grad_clip", t.grad_clip)
      .integer("grad_accum", t.grad_accum)
      .integer("global_batch", t.global_batch)
      .integer("eval_interval", t.eval_interval)
      .integer("eval_iters", t.eval_iters)
      .integer("log_interval", t.log_interval)
      .integer("checkpoint_interval", t.checkpoint_interval)
      .unsigned_integer("seed", t.seed)
      .integer("threads", t.threads)
      .string("init_from", t.init_from)
      .string("trainable", t.trainable)
      .done();
  auto& s = c.sample;
  SectionReader(j.value("sample", empty), "sample")
      .string("prompt", s.prompt)
      .integer("max_new_tokens", s.max_new_tokens)
      .number("temperature", s.temperature)
      .integer("top_k", s.top_k)
      .number("top_p", s.top_p)
      .done();
  double alpha = c.lora.alpha, lora_dropout = c.lora.dropout;
  SectionReader(j.value("lora", empty), "lora")
      .integer("r", c.lora.r)
      .number("alpha", alpha)
      .string_list("targets", c.lora.targets)
      .number("dropout", lora_dropout)
      .done();
  c.dist = DistSettings::from_json(j.value("dist", empty));
  c.lora.alpha = static_cast<float>(alpha);
  c.lora.dropout = static_cast<float>(lora_dropout);
  // A "lora" section without train.trainable asks for LoRA.
  if (j.contains("lora") && !j.value("train", empty).contains("trainable")) t.trainable = "lora";
  if (t.global_batch > 0) resolve_global_batch(t, j.value("train", empty).contains("grad_accum"));
  return c;
}

LoraConfig TrainConfig::default_lora() {
  LoraConfig lora;
  lora.r = 16;
  lora.alpha = 16.0f;
  lora.targets = {"c_attn", "c_proj", "c_fc"};
  return lora;
}

nlohmann::json TrainConfig::to_json() const {
  const auto& t = train;
  return {{"model", model.to_json()},
          {"data",
           {{"path", data.path},
            {"tokenizer", data.tokenizer},
            {"val_fraction", data.val_fraction},
            {"task", data.task},
            {"windows", data.windows},
            {"stride", data.stride},
            {"shuffle", data.shuffle},
            {"drop_last", data.drop_last},
            {"epochs", data.epochs},
            {"loss_on", data.loss_on}}},
          {"train",
           {{"batch_size", t.batch_size},
            {"max_steps", t.max_steps},
            {"lr", t.lr},
            {"min_lr", t.min_lr},
            {"warmup_steps", t.warmup_steps},
            {"lr_decay_steps", t.lr_decay_steps},
            {"beta1", t.beta1},
            {"beta2", t.beta2},
            {"eps", t.eps},
            {"weight_decay", t.weight_decay},
            {"decay_embeddings", t.decay_embeddings},
            {"grad_clip", t.grad_clip},
            {"grad_accum", t.grad_accum},
            {"global_batch", t.batch_size * t.grad_accum},
            {"eval_interval", t.eval_interval},
            {"eval_iters", t.eval_iters},
            {"log_interval", t.log_interval},
            {"checkpoint_interval", t.checkpoint_interval},
            {"seed", t.seed},
            {"threads", t.threads},
            {"init_from", t.init_from},
            {"trainable", t.trainable}}},
          {"sample",
           {{"prompt", sample.prompt},
            {"max_new_tokens", sample.max_new_tokens},
            {"temperature", sample.temperature},
            {"top_k", sample.top_k},
            {"top_p", sample.top_p}}},
          {"lora",
           {{"r", lora.r},
            {"alpha", shortest_decimal(lora.alpha)},
            {"targets", lora.targets},
            {"dropout", shortest_decimal(lora.dropout)}}},
          {"dist", dist.to_json()}};
}

void TrainConfig::validate() const {
  const auto& t = train;
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
  require(t.batch_size > 0, "train.batch_size must be positive");
  require(t.max_steps > 0, "train.max_steps must be positive");
  require(t.lr > 0, "train.lr must be positive");
  require(t.min_lr >= 0 && t.min_lr <= t.lr, "train.min_lr must be in [0, train.lr]");
  require(t.warmup_steps >= 0, "train.warmup_steps must be >= 0");
  require(t.beta1 >= 0 && t.beta1 < 1, "train.beta1 must be in [0, 1)");
  require(t.beta2 >= 0 && t.beta2 < 1, "train.beta2 must be in [0, 1)");
  require(t.eps > 0, "train.eps must be positive");
  require(t.weight_decay >= 0, "train.weight_decay must be >= 0");
  require(t.grad_clip >= 0, "train.grad_clip must be >= 0 (0: no clipping)");
  require(t.grad_accum > 0, "train.grad_accum must be positive");
  require(t.global_batch >= 0, "train.global_batch must be >= 0 (0: batch_size x grad_accum)");
  require(t.eval_interval > 0, "train.eval_interval must be positive");
  require(t.eval_iters > 0, "train.eval_iters must be positive");
  require(t.log_interval > 0, "train.log_interval must be positive");
  require(t.checkpoint_interval > 0, "train.checkpoint_interval must be positive");
  require(t.threads >= 0, "train.threads must be >= 0 (0: all cores)");
  for (const auto& [name, v, limit] :
       {std::tuple<const char*, int64_t, int64_t>{"train.max_steps", t.max_steps, kMaxStepCount},
        {"train.warmup_steps", t.warmup_steps, kMaxStepCount},
        {"train.lr_decay_steps", t.lr_decay_steps, kMaxStepCount},
        {"train.eval_interval", t.eval_interval, kMaxStepCount},
        {"train.log_interval", t.log_interval, kMaxStepCount},
        {"train.checkpoint_interval", t.checkpoint_interval, kMaxStepCount},
        {"train.batch_size", t.batch_size, kMaxBatchSize},
        {"train.grad_accum", t.grad_accum, kMaxGradAccum},
        {"train.eval_iters", t.eval_iters, kMaxEvalBatches},
        {"train.threads", t.threads, kMaxThreads},
        {"data.epochs", data.epochs, kMaxEpochs}})
    require_at_most(name, v, limit);
  require(t.trainable == "all" || t.trainable == "lora",
          "train.trainable: unknown '" + t.trainable + "' (all, lora)");
  if (t.trainable == "lora")  // the targets are checked against the model when it is built
    tinylm::validate(lora);
  for (const auto& [name, v] : {std::pair<const char*, double>{"train.lr", t.lr},
                                {"train.min_lr", t.min_lr},
                                {"train.eps", t.eps},
                                {"train.weight_decay", t.weight_decay},
                                {"train.grad_clip", t.grad_clip},
                                {"sample.temperature", sample.temperature},
                                {"sample.top_p", sample.top_p}})
    require_float_range(name, v);
  require(t.eps >= 1e-30, "train.eps must be at least 1e-30");
  // Sampling happens at every evaluation: check it now, not after the first steps.
  require(sample.max_new_tokens >= 0 && sample.max_new_tokens <= kMaxNewTokens,
          "sample.max_new_tokens must be in [0, " + std::to_string(kMaxNewTokens) + "]");
  require(sample.temperature > 0 && sample.temperature <= std::numeric_limits<float>::max(),
          "sample.temperature must be positive");
  require(sample.top_k >= 0, "sample.top_k must be >= 0 (0: all tokens)");
  require(sample.top_p > 0 && sample.top_p <= 1, "sample.top_p must be in (0, 1]");
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
