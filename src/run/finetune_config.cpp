#include "run/finetune_config.h"

#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "generate/generate.h"
#include "model/pooling.h"
#include "run/count_limits.h"
#include "run/section_reader.h"
#include "util/error.h"
#include "util/json_read.h"

namespace tinylm::finetune {

namespace {

// A known task, and a config object whose keys are known sections.
void require_known_task_and_sections(const nlohmann::json& j, const std::string& task) {
  require(task == "classify" || task == "instruct",
          "--task: unknown task '" + task + "' (classify, instruct)");
  require(j.is_object(), "config must be a JSON object");
  for (const auto& [key, value] : j.items())
    require(key == "finetune" || key == "lora" || key == "model" || key == "dist",
            "unknown section '" + key + "' (finetune, lora, model, dist)");
}

// The defaults, with those that depend on the task (the course's ch. 6 and ch. 7).
FinetuneSettings task_defaults(const std::string& task) {
  FinetuneSettings f;
  const bool classify = task == "classify";
  f.epochs = classify ? 5 : 2;
  f.trainable = classify ? "last:1" : "all";
  f.train_fraction = classify ? 0.7 : 0.85;
  f.eval_interval = classify ? 50 : 5;  // the course's eval_freq (ch. 6: 50, ch. 7: 5)
  return f;
}

void read_optimizer_fields(SectionReader& reader, FinetuneSettings& f) {
  reader.number("lr", f.lr)
      .number("min_lr", f.min_lr)
      .integer("warmup_steps", f.warmup_steps)
      .number("weight_decay", f.weight_decay)
      .boolean("decay_all", f.decay_all)
      .number("beta1", f.beta1)
      .number("beta2", f.beta2)
      .number("eps", f.eps)
      .number("grad_clip", f.grad_clip);
}

void read_loop_fields(SectionReader& reader, FinetuneSettings& f) {
  reader.integer("batch_size", f.batch_size)
      .integer("epochs", f.epochs)
      .integer("max_steps", f.max_steps)
      .integer("eval_interval", f.eval_interval)
      .integer("eval_batches", f.eval_batches)
      .integer("log_interval", f.log_interval)
      .integer("checkpoint_interval", f.checkpoint_interval)
      .number("dropout", f.dropout)
      .unsigned_integer("seed", f.seed)
      .integer("threads", f.threads);
}

// What is trained, the classification head, the data file's columns and labels, the splits.
void read_classify_fields(SectionReader& reader, FinetuneSettings& f) {
  reader.string("trainable", f.trainable)
      .string("pooling", f.pooling)
      .integer("max_length", f.max_length)
      .boolean("balance", f.balance)
      .boolean("head_bias", f.head_bias)
      .string("label_column", f.label_column)
      .string("text_column", f.text_column)
      .string("format", f.format)
      .string("header", f.header)
      .string_list("labels", f.labels)
      .number("train_fraction", f.train_fraction)
      .number("val_fraction", f.val_fraction)
      .number("test_fraction", f.test_fraction);
}

void read_instruct_fields(SectionReader& reader, FinetuneSettings& f) {
  reader.boolean("mask_prompt", f.mask_prompt)
      .integer("allowed_max_length", f.allowed_max_length)
      .integer("max_new_tokens", f.max_new_tokens)
      .boolean("write_responses", f.write_responses);
}

// The docs promise label_column / text_column as a name or a 0-based index, and the data
// reader takes an index as its digits: a JSON integer there becomes that string (its
// range is checked where the file is read, as the string's is).
nlohmann::json with_column_indices_as_text(const nlohmann::json& section) {
  nlohmann::json s = section;
  if (!s.is_object()) return s;  // SectionReader names the problem
  for (const std::string key : {"label_column", "text_column"}) {
    if (!s.contains(key) || !s[key].is_number_integer()) continue;
    require(s[key].is_number_unsigned() || s[key].get<int64_t>() >= 0,
            "finetune." + key + " must be a column name or a 0-based index (not negative)");
    s[key] = std::to_string(s[key].get<uint64_t>());
  }
  return s;
}

// The "finetune" section over the task's defaults in f.
void read_finetune_section(const nlohmann::json& raw, FinetuneSettings& f) {
  const nlohmann::json section = with_column_indices_as_text(raw);
  SectionReader reader(section, "finetune");
  read_optimizer_fields(reader, f);
  read_loop_fields(reader, f);
  read_classify_fields(reader, f);
  read_instruct_fields(reader, f);
  reader.done();
}

LoraSettings read_lora_section(const nlohmann::json& section) {
  LoraSettings lora;
  SectionReader(section, "lora")
      .integer("r", lora.r)
      .number("alpha", lora.alpha)
      .string_list("targets", lora.targets)
      .number("dropout", lora.dropout)
      .done();
  return lora;
}

// The optimizer's settings, and the float range of those used as floats (lora.alpha too).
void check_optimizer(const FinetuneSettings& f, const LoraSettings& lora) {
  require(f.lr > 0, "finetune.lr must be positive");
  for (const auto& [name, v] : {std::pair<const char*, double>{"finetune.lr", f.lr},
                                {"finetune.min_lr", f.min_lr},
                                {"finetune.eps", f.eps},
                                {"finetune.weight_decay", f.weight_decay},
                                {"finetune.grad_clip", f.grad_clip},
                                {"lora.alpha", lora.alpha}})
    require_float_range(name, v);
  // As train.min_lr: a floor above lr would make the cosine "decay" climb. Negative
  // keeps its meaning (a constant lr).
  require(f.min_lr < 0 || f.min_lr <= f.lr,
          "finetune.min_lr must be in [0, finetune.lr] (or negative: a constant lr)");
  require(f.eps >= 1e-30, "finetune.eps must be at least 1e-30");
  require(f.weight_decay >= 0, "finetune.weight_decay must be >= 0");
  require(f.beta1 >= 0 && f.beta1 < 1 && f.beta2 >= 0 && f.beta2 < 1,
          "finetune.beta1 and finetune.beta2 must be in [0, 1)");
  require(f.eps > 0, "finetune.eps must be positive");
  require(f.grad_clip >= 0, "finetune.grad_clip must be >= 0 (0: no clipping)");
}

// The loop's sizes and intervals, dropout, threads, lengths and the train fraction.
void check_loop_settings(const FinetuneSettings& f) {
  require(f.batch_size >= 1, "finetune.batch_size must be at least 1");
  require(f.epochs >= 1, "finetune.epochs must be at least 1");
  require(f.max_steps == -1 || f.max_steps >= 1, "finetune.max_steps must be at least 1 (or -1)");
  require(f.warmup_steps >= 0, "finetune.warmup_steps must be >= 0");
  require(f.eval_interval >= 1, "finetune.eval_interval must be at least 1");
  require(f.eval_batches >= 1, "finetune.eval_batches must be at least 1");
  require(f.log_interval >= 1, "finetune.log_interval must be at least 1");
  require(f.checkpoint_interval >= 1, "finetune.checkpoint_interval must be at least 1");
  require(f.dropout >= 0 && f.dropout < 1, "finetune.dropout must be in [0, 1)");
  require(f.threads >= 0, "finetune.threads must be >= 0");
  require(f.max_length >= 0, "finetune.max_length must be >= 0 (0: the longest training text)");
  require(f.allowed_max_length >= 0, "finetune.allowed_max_length must be >= 0 (0: no cut)");
  require(f.max_new_tokens >= 0, "finetune.max_new_tokens must be >= 0");
  require(f.train_fraction > 0 && f.train_fraction <= 1,
          "finetune.train_fraction must be in (0, 1]");
}

// The counts a run multiplies or allocates by, each under its limit (run/count_limits.h).
void check_count_limits(const FinetuneSettings& f) {
  for (const auto& [name, v, limit] :
       {std::tuple<const char*, int64_t, int64_t>{"finetune.max_steps", f.max_steps, kMaxStepCount},
        {"finetune.warmup_steps", f.warmup_steps, kMaxStepCount},
        {"finetune.eval_interval", f.eval_interval, kMaxStepCount},
        {"finetune.log_interval", f.log_interval, kMaxStepCount},
        {"finetune.checkpoint_interval", f.checkpoint_interval, kMaxStepCount},
        {"finetune.batch_size", f.batch_size, kMaxBatchSize},
        {"finetune.epochs", f.epochs, kMaxEpochs},
        {"finetune.eval_batches", f.eval_batches, kMaxEvalBatches},
        {"finetune.threads", f.threads, kMaxThreads},
        {"finetune.max_new_tokens", f.max_new_tokens, kMaxNewTokens}})
    require_at_most(name, v, limit);
}

void check_lora(const LoraSettings& lora) {
  require(lora.r >= 1, "lora.r must be at least 1");
  require(lora.alpha > 0, "lora.alpha must be positive");
  require(lora.dropout >= 0 && lora.dropout < 1, "lora.dropout must be in [0, 1)");
  require(!lora.targets.empty(), "lora.targets must name at least one module");
}

}  // namespace

FinetuneConfig FinetuneConfig::from_json(const nlohmann::json& j, const std::string& task) {
  require_known_task_and_sections(j, task);
  FinetuneConfig c;
  c.task = task;
  c.finetune = task_defaults(task);
  const nlohmann::json empty = nlohmann::json::object();
  const nlohmann::json finetune_section = j.value("finetune", empty);
  read_finetune_section(finetune_section, c.finetune);
  c.dist = DistSettings::from_json(j.value("dist", empty));
  // A "lora" section without a trainable set asks for LoRA.
  if (j.contains("lora") && !finetune_section.contains("trainable")) c.finetune.trainable = "lora";
  c.lora = read_lora_section(j.value("lora", empty));
  if (j.contains("model")) {
    require(j["model"].is_object(), "model must be a JSON object");
    c.model = j["model"];
  }
  c.validate();
  return c;
}

void FinetuneConfig::validate() const {
  check_optimizer(finetune, lora);
  check_loop_settings(finetune);
  validate_task_fields();
  check_count_limits(finetune);
  check_lora(lora);
  require(model.empty() || model.is_object(), "model must be a JSON object");
}

// Every field is checked, whichever task uses it: a setting of the other task is
// never accepted with a value that task would refuse.
void FinetuneConfig::validate_task_fields() const {
  const FinetuneSettings& f = finetune;
  require(f.val_fraction >= 0 && f.val_fraction < 1, "finetune.val_fraction must be in [0, 1)");
  require(f.test_fraction >= 0 && f.test_fraction < 1, "finetune.test_fraction must be in [0, 1)");
  const double held_out = task == "classify" ? f.val_fraction : f.test_fraction;
  require(f.train_fraction + held_out <= 1,
          std::string("finetune.train_fraction + finetune.") +
              (task == "classify" ? "val_fraction" : "test_fraction") + " must be at most 1");
  require(f.format.empty() || f.format == "tsv" || f.format == "csv" || f.format == "jsonl",
          "finetune.format: unknown '" + f.format +
              "' (tsv, csv, jsonl, or empty: from the extension)");
  require(f.header == "auto" || f.header == "yes" || f.header == "no",
          "finetune.header must be auto, yes or no (got '" + f.header + "')");
  parse_pooling(f.pooling);
  std::set<std::string> seen;
  for (const auto& label : f.labels) {
    require(!label.empty(), "finetune.labels: an empty label name");
    require(seen.insert(label).second, "finetune.labels: '" + label + "' is given twice");
  }
}

nlohmann::json FinetuneConfig::to_json() const {
  const FinetuneSettings& f = finetune;
  return {{"task", task},
          {"base", base},
          {"data", data},
          {"finetune",
           {{"lr", f.lr},
            {"min_lr", f.min_lr},
            {"warmup_steps", f.warmup_steps},
            {"weight_decay", f.weight_decay},
            {"decay_all", f.decay_all},
            {"beta1", f.beta1},
            {"beta2", f.beta2},
            {"eps", f.eps},
            {"grad_clip", f.grad_clip},
            {"batch_size", f.batch_size},
            {"epochs", f.epochs},
            {"max_steps", f.max_steps},
            {"eval_interval", f.eval_interval},
            {"eval_batches", f.eval_batches},
            {"log_interval", f.log_interval},
            {"checkpoint_interval", f.checkpoint_interval},
            {"dropout", f.dropout},
            {"seed", f.seed},
            {"threads", f.threads},
            {"trainable", f.trainable},
            {"pooling", f.pooling},
            {"max_length", f.max_length},
            {"balance", f.balance},
            {"head_bias", f.head_bias},
            {"label_column", f.label_column},
            {"text_column", f.text_column},
            {"format", f.format},
            {"header", f.header},
            {"labels", f.labels},
            {"train_fraction", f.train_fraction},
            {"val_fraction", f.val_fraction},
            {"test_fraction", f.test_fraction},
            {"mask_prompt", f.mask_prompt},
            {"allowed_max_length", f.allowed_max_length},
            {"max_new_tokens", f.max_new_tokens},
            {"write_responses", f.write_responses}}},
          {"lora",
           {{"r", lora.r},
            {"alpha", lora.alpha},
            {"targets", lora.targets},
            {"dropout", lora.dropout}}},
          {"model", model},
          {"dist", dist.to_json()}};
}

FinetuneConfig FinetuneConfig::from_saved(const nlohmann::json& j, const std::string& what) {
  require(j.is_object() && j.contains("task") && j["task"].is_string() && j.contains("finetune"),
          what + ": not the config of a tinylm finetune run (no task / finetune section)");
  nlohmann::json sections = j;
  const std::string task = j["task"].get<std::string>();
  const JsonField saved(j, what);  // "base": 5 is bad input, not nlohmann's type_error
  const std::string base = saved.has("base") ? saved["base"].string() : "";
  const std::string data = saved.has("data") ? saved["data"].string() : "";
  sections.erase("task");
  sections.erase("base");
  sections.erase("data");
  sections.erase("run");  // what the run learnt (run_folder.h), not a setting
  FinetuneConfig c = from_json(sections, task);
  c.base = base;
  c.data = data;
  return c;
}

}  // namespace tinylm::finetune
