#include "finetune/classify_trainer.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "data/classification_dataset.h"
#include "train/base_model.h"
#include "finetune/classify_run.h"
#include "finetune/hf_classifier.h"
#include "finetune/loop.h"
#include "lora/peft.h"
#include "finetune/run_folder.h"
#include "report/text_table.h"
#include "tensor/threads.h"
#include "train/checkpoint.h"
#include "train/run_folder.h"
#include "train/run_log.h"
#include "train/run_report.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json_read.h"

namespace tinylm::finetune {

namespace {

std::string percent(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f%%", 100.0 * v);
  return buf;
}

std::string fixed4(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}

struct SplitAccuracies {
  Accuracy train, val, test;
  nlohmann::json to_json() const {
    return {{"train", train.value()}, {"val", val.value()}, {"test", test.value()}};
  }
  std::string line() const {
    return "train " + percent(train.value()) + ", val " + percent(val.value()) + ", test " +
           percent(test.value());
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

}  // namespace

int finetune_classify(const FinetuneConfig& config_in, const FinetuneOptions& options) {
  FinetuneConfig c = config_in;
  c.validate();
  const FinetuneSettings& f = c.finetune;
  const TrainableSet trainable = TrainableSet::parse(f.trainable);  // InputError if malformed
  parse_pooling(f.pooling);
  const std::string dir = options.out_dir;
  check_out_dir(dir, "classify", options.resume);
  const std::string last = checkpoint_path(dir);
  if (options.resume)
    require_same_settings(FinetuneConfig::from_saved(read_checkpoint_state(last).config, last), c,
                          last);

  set_num_threads(static_cast<int>(f.threads));
  BaseModel base = load_base_model(c.base, c.model, f.dropout, f.seed);
  const Tokenizer& tok = *base.tokenizer;
  ClassificationOptions data_options;
  data_options.format = {f.format, f.label_column, f.text_column, f.header};
  data_options.labels = f.labels;
  data_options.balance = f.balance;
  data_options.train_fraction = f.train_fraction;
  data_options.val_fraction = f.val_fraction;
  data_options.seed = f.seed;
  data_options.max_length = f.max_length;
  data_options.context_length = base.model->config().block_size;
  data_options.quiet = options.quiet;
  const ClassificationData data = load_classification_data(c.data, tok, data_options);
  const int64_t total = total_steps(f, data.train.size());

  const nlohmann::json run_info = {{"model", base.model->config().to_json()},
                                   {"base_kind", base.kind},
                                   {"labels", data.labels},
                                   {"pad_id", data.pad_id},
                                   {"max_length", data.max_length}};
  // The classifier as build_classifier makes it (so a saved run loads the same way), with
  // the base's weights in its body.
  std::unique_ptr<SequenceClassifier> model_ptr = build_classifier(c, run_info, f.seed + 3);
  SequenceClassifier& model = *model_ptr;
  copy_base_weights(*base.model, model.body());
  base.model.reset();
  const ParameterList params = model.parameters();
  AdamW opt = make_optimizer(params, f);
  const ParameterCounts counts = count_parameters(params);
  const nlohmann::json saved = saved_config(c, run_info);
  LoopState state = start_state(f, params, opt, options.resume ? last : "");

  // From here on, files are written, by this run only.
  const auto lock = open_run_folder(dir, saved, tok);
  RunLog log(dir + "/log.jsonl", options.resume ? state.step : -1);
  std::string labels_text;
  for (size_t i = 0; i < data.labels.size(); ++i)
    labels_text +=
        (i ? ", " : "") + data.labels[i] + " (" + std::to_string(data.class_counts[i]) + ")";
  if (!options.quiet) {
    std::printf(
        "tinylm finetune --task classify: %s parameters, %s trainable (%s), %s frozen; "
        "pooling %s; base: %s\n",
        report::with_commas(counts.trainable + counts.frozen).c_str(),
        report::with_commas(counts.trainable).c_str(), trainable.to_string().c_str(),
        report::with_commas(counts.frozen).c_str(), f.pooling.c_str(), base.kind.c_str());
    std::printf(
        "data: %s; labels %s; %lld / %lld / %lld train / val / test, %lld tokens each; "
        "%lld steps (%lld epochs of %lld)%s\n",
        c.data.c_str(), labels_text.c_str(), static_cast<long long>(data.train.size()),
        static_cast<long long>(data.val.size()), static_cast<long long>(data.test.size()),
        static_cast<long long>(data.max_length), static_cast<long long>(total),
        static_cast<long long>(f.epochs),
        static_cast<long long>(steps_per_epoch(data.train.size(), f.batch_size)),
        options.resume ? (", resuming at step " + std::to_string(state.step)).c_str() : "");
    std::fflush(stdout);
  }

  // Accuracy before training (at the start of a run; a resumed run keeps its own).
  nlohmann::json before;
  if (!options.resume) {
    const SplitAccuracies a = measure(model, data, f.batch_size);
    before = a.to_json();
    if (!options.quiet) std::printf("accuracy before training: %s\n", a.line().c_str());
    write_file_atomic(dir + "/accuracy-before.json", before.dump(2) + "\n");
  } else if (file_exists(dir + "/accuracy-before.json")) {
    before = read_json_file(dir + "/accuracy-before.json");
  }

  TrainConfig report_c;
  report_c.model = model.body().config();
  report_c.data.path = c.data;
  report_c.train.max_steps = total;
  report_c.train.batch_size = f.batch_size;
  const std::vector<int32_t> report_input(
      data.train.ids.begin(),
      data.train.ids.begin() + std::min<int64_t>({32, data.max_length, report_c.model.block_size}));
  std::vector<std::pair<std::string, std::string>> summary = {
      {"task", "classify: " + labels_text},
      {"trainable", trainable.to_string() + ": " + report::with_commas(counts.trainable) +
                        " trainable, " + report::with_commas(counts.frozen) + " frozen"},
      {"pooling", f.pooling}};
  if (!before.is_null())
    summary.emplace_back("accuracy before (train / val / test)",
                         percent(before["train"]) + " / " + percent(before["val"]) + " / " +
                             percent(before["test"]));
  const auto write_report = [&](int64_t step) {
    write_run_report(model.body(), tok, report_c, {dir, step, report_input, {}},
                     {saved.dump(2), summary});
  };

  LoopTask task;
  task.train_size = data.train.size();
  task.params = params;
  task.zero_grad = [&] { model.zero_grad(); };
  task.train_batch = [&](const std::vector<int64_t>& idx, const nn::Context& ctx, int64_t* tokens) {
    const ClassificationBatch b = make_classification_batch(data.train, idx);
    const double loss = model.forward_loss(b.ids.data(), b.labels.data(), b.B, b.T, ctx);
    model.backward();
    *tokens = b.B * b.T;
    return loss;
  };
  task.evaluate = [&](int64_t) {
    const double train_loss = classification_loss(model, data.train, f.batch_size, f.eval_batches);
    const double val_loss = classification_loss(model, data.val, f.batch_size, f.eval_batches);
    return std::pair<nlohmann::json, std::string>{
        {{"train_loss", train_loss}, {"val_loss", val_loss}},
        "train loss " + fixed4(train_loss) + ", val loss " + fixed4(val_loss)};
  };
  task.epoch_done = [&](int64_t step, int64_t epoch) {
    const Accuracy tr = accuracy(model, data.train, f.batch_size, 0);
    const Accuracy va = accuracy(model, data.val, f.batch_size, 0);
    log.write({{"step", step},
               {"epoch", epoch},
               {"train_accuracy", tr.value()},
               {"val_accuracy", va.value()}});
    if (!options.quiet)
      std::printf("epoch %lld: train accuracy %s, val accuracy %s\n", static_cast<long long>(epoch),
                  percent(tr.value()).c_str(), percent(va.value()).c_str());
    write_report(step);
  };
  task.after_eval = [&](int64_t step) { write_report(step); };
  task.save = [&](int64_t step) {
    CheckpointState s;
    s.step = step;
    s.config = saved;
    s.tokenizer = tok.to_json();
    s.dropout_rng = state.dropout_rng.state();
    save_checkpoint(last, params, &opt, s);
  };

  const int code = run_loop(f, task, opt, state, log, {options.quiet, options.stop_after});
  if (code != 0 || state.step < total) return code;

  const SplitAccuracies after = measure(model, data, f.batch_size);
  nlohmann::json confusion = {{"labels", data.labels}, {"test", after.test.confusion}};
  const nlohmann::json results = {{"task", "classify"},
                                  {"step", state.step},
                                  {"trainable", trainable.to_string()},
                                  {"trainable_parameters", counts.trainable},
                                  {"frozen_parameters", counts.frozen},
                                  {"accuracy_before", before},
                                  {"accuracy_after", after.to_json()},
                                  {"confusion", confusion}};
  write_file_atomic(dir + "/results.json", results.dump(2) + "\n");
  summary.emplace_back("accuracy after (train / val / test)",
                       percent(after.train.value()) + " / " + percent(after.val.value()) + " / " +
                           percent(after.test.value()));
  write_report(state.step);
  if (!options.quiet) {
    std::printf("accuracy after training: %s\ntest confusion matrix (rows: true label):\n%s",
                after.line().c_str(), confusion_text(after.test, data.labels).c_str());
  }

  // Export: a PEFT adapter (under lora), then the merged model as a transformers folder.
  if (model.lora()) {
    save_peft_adapter(*model.lora(), dir + "/adapter",
                      {"SEQ_CLS", c.base, model.score.adapter ? nullptr : &model.score.weight});
    model.merge_lora();
  }
  if (f.head_bias) {
    if (!options.quiet)
      std::printf(
          "no Hugging Face export: the head has a bias (finetune.head_bias), which "
          "GPT2ForSequenceClassification's score does not\n");
  } else if (model.body().config().position == PositionEncoding::Learned &&
             model.body().config().pre_ln) {
    save_hf_classifier(model, dir + "/hf");
    if (!options.quiet)
      std::printf("wrote %s/hf (GPT2ForSequenceClassification)%s\n", dir.c_str(),
                  file_exists(dir + "/adapter/adapter_config.json")
                      ? " and the PEFT adapter in adapter/"
                      : "");
  }
  return 0;
}

}  // namespace tinylm::finetune
