#include "finetune/classify_trainer.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "data/classification_dataset.h"
#include "finetune/epoch_task.h"
#include "finetune/finetune_plan.h"
#include "finetune/finetune_report.h"
#include "lora/classifier_lora.h"
#include "model/hf_classifier.h"
#include "model/pooling.h"
#include "open/base_model.h"
#include "open/classify_run.h"
#include "report/text_table.h"
#include "run/finetune_run_folder.h"
#include "run/trainable.h"
#include "train/loop.h"
#include "train/run_report.h"
#include "train/run_session.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json_read.h"

namespace tinylm::finetune {

namespace {

// An empty split (finetune.val_fraction 0, a tiny file) has no accuracy: it is said so,
// and no number is logged for it.
std::string percent_of(const Accuracy& a, const char* split) {
  return a.total ? percent_text(a.value()) : std::string("(no ") + split + " split)";
}

struct SplitAccuracies {
  Accuracy train, val, test;
  nlohmann::json to_json() const {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [name, a] :
         {std::pair<const char*, const Accuracy*>{"train", &train}, {"val", &val}, {"test", &test}})
      if (a->total) j[name] = a->value();
    return j;
  }
  std::string line() const {
    return "train " + percent_of(train, "train") + ", val " + percent_of(val, "validation") +
           ", test " + percent_of(test, "test");
  }
};

SplitAccuracies measure(SequenceClassifier& model, const ClassificationData& data, int64_t batch) {
  return {accuracy(model, data.train, batch, 0), accuracy(model, data.val, batch, 0),
          accuracy(model, data.test, batch, 0)};
}

// The confusion matrix as text: rows are the true labels, columns the predictions.
std::string confusion_text(const Accuracy& a, const std::vector<std::string>& labels) {
  std::vector<std::string> header = {"true \\ predicted"};
  for (const auto& l : labels) header.push_back(l);
  report::TextTable table(header, std::vector<bool>(header.size(), true));
  for (size_t i = 0; i < labels.size(); ++i) {
    std::vector<std::string> row = {labels[i]};
    for (size_t j = 0; j < labels.size(); ++j) row.push_back(std::to_string(a.confusion[i][j]));
    table.add_row(row);
  }
  return table.render();
}

ClassificationOptions data_options(const FinetuneSettings& f, int64_t context_length, bool quiet) {
  ClassificationOptions o = classify_data_options(f);
  o.context_length = context_length;
  o.quiet = quiet;
  return o;
}

void print_header(const FinetuneConfig& c, const ClassificationData& data,
                  const ParameterCounts& counts, const std::string& base_kind, int64_t total,
                  const RunSession& session) {
  const FinetuneSettings& f = c.finetune;
  std::printf(
      "tinylm finetune --task classify: %s parameters, %s trainable (%s), %s frozen; "
      "pooling %s; base: %s\n",
      report::with_commas(counts.trainable + counts.frozen).c_str(),
      report::with_commas(counts.trainable).c_str(),
      TrainableSet::parse(f.trainable).to_string().c_str(),
      report::with_commas(counts.frozen).c_str(), f.pooling.c_str(), base_kind.c_str());
  std::printf(
      "data: %s; labels %s; %lld / %lld / %lld train / val / test, %lld tokens each; "
      "%lld steps (%lld epochs of %lld)%s\n",
      c.data.c_str(), labels_summary(data).c_str(), static_cast<long long>(data.train.size()),
      static_cast<long long>(data.val.size()), static_cast<long long>(data.test.size()),
      static_cast<long long>(data.max_length), static_cast<long long>(total),
      static_cast<long long>(f.epochs),
      static_cast<long long>(steps_per_epoch(data.train.size(), f.batch_size)),
      session.resumed() ? (", resuming at step " + std::to_string(session.step)).c_str() : "");
  std::fflush(stdout);
}

// Classification on the one loop: cross-entropy of the pooled logits; after each epoch
// the train and val accuracy (log.jsonl "train_accuracy" / "val_accuracy") and
// report.html.
class ClassifyTask : public EpochTask {
 public:
  ClassifyTask(SequenceClassifier& model, const ClassificationData& data, const FinetuneConfig& c,
               RunSession& session, const Tokenizer& tok, std::string config_text, bool quiet)
      : EpochTask(data.train.size(), c.finetune),
        model_(model),
        data_(data),
        session_(session),
        tok_(tok),
        quiet_(quiet) {
    report_settings_ =
        report_settings(c, total_steps(c.finetune, data.train.size()), std::move(config_text));
    report_input_ =
        report_input(data.train.ids.data(), data.max_length, model.body().config().block_size);
  }

  std::vector<std::pair<std::string, std::string>> summary;  // report.html's table

  void write_report(int64_t step) {
    write_run_report(model_.body(), tok_, report_settings_,
                     {session_.dir(), step, report_input_, {}}, summary);
  }
  void after_eval(int64_t step) override { write_report(step); }

 protected:
  MicroStep train_batch(const std::vector<int64_t>& idx, float scale,
                        const nn::Context& ctx) override {
    const std::vector<int64_t> part(idx.begin() + ctx.first_row,
                                    idx.begin() + ctx.first_row + ctx.rows);
    const ClassificationBatch b = make_classification_batch(data_.train, part);
    const double loss = model_.forward_loss(b.ids.data(), b.labels.data(), b.B, b.T, ctx);
    model_.backward(scale);
    return {loss, b.B * b.T};
  }
  std::pair<nlohmann::json, std::string> losses() override {
    const double train = classification_loss(model_, data_.train, f_.batch_size, f_.eval_batches);
    if (data_.val.size() == 0)
      return {{{"train_loss", train}},
              "train loss " + report::fixed(train, 4) + " (no validation split)"};
    const double val = classification_loss(model_, data_.val, f_.batch_size, f_.eval_batches);
    return {{{"train_loss", train}, {"val_loss", val}},
            "train loss " + report::fixed(train, 4) + ", val loss " + report::fixed(val, 4)};
  }
  void epoch_done(int64_t step, int64_t epoch) override {
    const Accuracy tr = accuracy(model_, data_.train, f_.batch_size, 0);
    const Accuracy va = accuracy(model_, data_.val, f_.batch_size, 0);
    nlohmann::json entry = {{"step", step}, {"epoch", epoch}, {"train_accuracy", tr.value()}};
    if (va.total) entry["val_accuracy"] = va.value();
    session_.log().write(entry);
    if (!quiet_)
      std::printf("epoch %lld: train accuracy %s, val accuracy %s\n", static_cast<long long>(epoch),
                  percent_text(tr.value()).c_str(), percent_of(va, "validation").c_str());
    write_report(step);
  }

 private:
  SequenceClassifier& model_;
  const ClassificationData& data_;
  RunSession& session_;
  const Tokenizer& tok_;
  bool quiet_;
  RunReportSettings report_settings_;
  std::vector<int32_t> report_input_;
};

// The finished run: accuracies and the confusion matrix (results.json), report.html, and
// the model for other tools: a PEFT adapter (under lora), then the merged model as a
// transformers folder.
void finish(SequenceClassifier& model, const ClassificationData& data, const Tokenizer& tok,
            const FinetuneConfig& c, const RunSession& session, ClassifyTask& task,
            const nlohmann::json& before, bool quiet) {
  const FinetuneSettings& f = c.finetune;
  const std::string& dir = session.dir();
  const ParameterCounts counts = count_parameters(session.params());
  const SplitAccuracies after = measure(model, data, f.batch_size);
  const nlohmann::json confusion = {{"labels", data.labels}, {"test", after.test.confusion}};
  const nlohmann::json results = {{"task", "classify"},
                                  {"step", session.step},
                                  {"trainable", TrainableSet::parse(f.trainable).to_string()},
                                  {"trainable_parameters", counts.trainable},
                                  {"frozen_parameters", counts.frozen},
                                  {"accuracy_before", before},
                                  {"accuracy_after", after.to_json()},
                                  {"confusion", confusion}};
  write_file_atomic(dir + "/results.json", results.dump(2) + "\n");
  task.summary.emplace_back("accuracy after (train / val / test)",
                            percent_of(after.train, "train") + " / " +
                                percent_of(after.val, "validation") + " / " +
                                percent_of(after.test, "test"));
  task.write_report(session.step);
  if (!quiet)
    std::printf("accuracy after training: %s\ntest confusion matrix (rows: true label):\n%s",
                after.line().c_str(), confusion_text(after.test, data.labels).c_str());
  if (lora_of(model)) {
    save_peft_classifier_adapter(model, dir + "/adapter", c.base);
    merge_lora(model);
  }
  if (f.head_bias) {
    if (!quiet)
      std::printf(
          "no Hugging Face export: the head has a bias (finetune.head_bias), which "
          "GPT2ForSequenceClassification's score does not\n");
  } else if (model.body().config().position == PositionEncoding::Learned &&
             model.body().config().pre_ln) {
    save_hf_classifier(model, dir + "/hf", data.max_length, tok.eot_id());
    if (!quiet)
      std::printf("wrote %s/hf (GPT2ForSequenceClassification)%s\n", dir.c_str(),
                  file_exists(dir + "/adapter/adapter_config.json")
                      ? " and the PEFT adapter in adapter/"
                      : "");
  }
}

// Mean pooling averages the tokens that are not padding: a text that is only padding
// (only <|endoftext|>, the pad id) has none. Refused before anything is written, naming
// the file and line.
void require_poolable(const ClassificationData& data, Pooling pooling, const std::string& path) {
  if (pooling != Pooling::Mean) return;
  for (const ClassificationSet* set : {&data.train, &data.val, &data.test})
    for (int64_t i = 0; i < set->size(); ++i) {
      const int32_t* row = set->ids.data() + i * set->T;
      require(std::any_of(row, row + set->T, [&](int32_t id) { return id != data.pad_id; }),
              path + ":" + std::to_string(set->lines[i]) + ": the text is only padding (pad id " +
                  std::to_string(data.pad_id) +
                  ", <|endoftext|>): mean pooling (finetune.pooling) has no token to average");
    }
}

// Accuracy before training, at the start of a run (a resumed run keeps its own).
nlohmann::json accuracy_before(SequenceClassifier& model, const ClassificationData& data,
                               const RunSession& session, int64_t batch_size, bool quiet) {
  const std::string path = session.dir() + "/accuracy-before.json";
  if (!session.writes()) return nlohmann::json();  // rank 0's to measure and write
  if (session.resumed()) return file_exists(path) ? read_json_file(path) : nlohmann::json();
  const SplitAccuracies a = measure(model, data, batch_size);
  if (!quiet) std::printf("accuracy before training: %s\n", a.line().c_str());
  write_file_atomic(path, a.to_json().dump(2) + "\n");
  return a.to_json();
}

}  // namespace

int finetune_classify(const FinetuneConfig& config, const FinetuneOptions& options) {
  require(options.device == Device::kCpu,
          "--device " + std::string(device_name(options.device)) +
              ": classification fine-tuning runs on the CPU for now");
  FinetunePlan plan = plan_finetune_run(config, options);
  const FinetuneConfig& c = plan.config;
  const FinetuneSettings& f = c.finetune;
  const Tokenizer& tok = *plan.tokenizer;
  const ClassificationData data = load_classification_data(
      c.data, tok, data_options(f, plan.model_config.block_size, options.quiet));
  require_poolable(data, parse_pooling(f.pooling), c.data);
  const int64_t total = total_steps(f, data.train.size());
  require_step_fits(plan.model_config, f.batch_size, data.max_length);
  const nlohmann::json run_info = {{"model", plan.model_config.to_json()},
                                   {"base_kind", plan.base_kind},
                                   {"labels", data.labels},
                                   {"pad_id", data.pad_id},
                                   {"max_length", data.max_length}};
  // The classifier as build_classifier makes it (so a saved run loads the same way), with
  // the base's weights in its body (a resumed run's come from its checkpoint).
  const std::unique_ptr<SequenceClassifier> model = build_classifier(c, run_info, f.seed + 3);
  if (plan.base) copy_base_weights(*plan.base, model->body());
  plan.base.reset();
  set_decay(model->parameters(), {f.decay_all, true});
  RunSession session(std::move(plan.folder), model->parameters(), adamw_config(f), f.seed);
  const nlohmann::json saved = saved_config(c, run_info);
  session.begin(saved, tok);
  const ParameterCounts counts = count_parameters(session.params());
  if (!options.quiet) print_header(c, data, counts, plan.base_kind, total, session);
  use_precision(options);

  const nlohmann::json before = accuracy_before(*model, data, session, f.batch_size, options.quiet);
  ClassifyTask task(*model, data, c, session, tok, saved.dump(2), options.quiet);
  task.summary = {{"task", "classify: " + labels_summary(data)},
                  {"trainable", TrainableSet::parse(f.trainable).to_string() + ": " +
                                    report::with_commas(counts.trainable) + " trainable, " +
                                    report::with_commas(counts.frozen) + " frozen"},
                  {"pooling", f.pooling}};
  if (!before.is_null())
    task.summary.emplace_back("accuracy before (train / val / test)", accuracies_text(before));
  const int code = run_training_loop(
      task, session, finetune_loop_settings(c, total, options.quiet, options.stop_after));
  if (code == 0 && session.step >= total && session.writes())
    finish(*model, data, tok, c, session, task, before, options.quiet);
  return code;
}

}  // namespace tinylm::finetune
