#include "train/run_report.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "lora/lora.h"
#include "report/attention_entropy.h"
#include "report/figures.h"
#include "report/html_report.h"
#include "report/model_info.h"
#include "report/text_table.h"
#include "train/lora_adapters.h"
#include "util/error.h"
#include "util/files.h"

namespace tinylm {

namespace {

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// The last value of a series as "0.1234 (step 500)", or "".
std::string last_point(const report::Points& points) {
  if (points.empty()) return "";
  return fixed(points.back().second, 4) + " (step " +
         report::with_commas(static_cast<int64_t>(points.back().first)) + ")";
}

std::string best_point(const report::Points& points) {
  if (points.empty()) return "";
  const auto best =
      std::min_element(points.begin(), points.end(),
                       [](const auto& a, const auto& b) { return a.second < b.second; });
  return fixed(best->second, 4) + " (step " +
         report::with_commas(static_cast<int64_t>(best->first)) + ")";
}

}  // namespace

RunReportSettings report_settings(const TrainConfig& c) {
  RunReportSettings s;
  s.max_steps = c.train.max_steps;
  s.batch_size = c.train.batch_size;
  s.data = c.data.task.empty() ? c.data.path : "task: " + c.data.task;
  if (c.train.trainable == "lora") s.lora = c.lora;
  s.config_json = c.to_json().dump(2);
  return s;
}

std::string run_report_page(GPT& model, const Tokenizer& tok, const RunReportSettings& c,
                            const RunReportInputs& in, const RunReportRows& rows) {
  report::RunReport r;
  r.title = std::filesystem::path(in.dir).filename().string();
  if (r.title.empty()) r.title = in.dir;
  r.subtitle = "step " + report::with_commas(in.step) + " of " + report::with_commas(c.max_steps) +
               " - " + in.dir;

  const std::string log_path = in.dir + "/log.jsonl";
  report::LossLog log;
  bool have_log = false;
  if (file_exists(log_path)) {
    try {
      log = report::read_log_jsonl(log_path);
      have_log = true;
    } catch (const InputError&) {
      // no loss logged yet: the page says so
    }
  }

  std::string parameters = report::with_commas(model.num_parameters());
  if (c.lora) {  // the frozen model and the adapters it trains
    const int64_t adapters = lora_parameter_count(model.config(), 0, *c.lora);
    std::string targets;
    for (const auto& t : c.lora->targets) targets += (targets.empty() ? "" : ", ") + t;
    parameters = report::with_commas(model.num_parameters() + adapters) + ": " +
                 report::with_commas(adapters) + " trainable (LoRA r " + std::to_string(c.lora->r) +
                 " on " + targets + "), " + parameters + " frozen";
  }
  r.summary = {{"parameters", parameters},
               {"tokenizer", tok.kind() + ", vocabulary " + report::with_commas(tok.vocab_size())},
               {"data", c.data}};
  if (have_log) {
    r.summary.emplace_back("last train loss (logged step)", last_point(log.train));
    if (!log.eval_val.empty()) {
      r.summary.emplace_back("last evaluation: train loss", last_point(log.eval_train));
      r.summary.emplace_back("last evaluation: val loss", last_point(log.eval_val));
      if (!log.metric.empty())
        r.summary.emplace_back("last evaluation: val " + log.metric, last_point(log.metric_val));
      r.summary.emplace_back("best val loss", best_point(log.eval_val));
    }
    r.loss_svg = report::loss_curve_svg(log);
  }
  for (const auto& row : rows) r.summary.push_back(row);
  r.samples = in.samples;

  if (!in.fixed_input.empty()) {
    std::vector<int32_t> ids = in.fixed_input;
    const auto block = static_cast<size_t>(model.config().block_size);
    if (ids.size() > block) ids.resize(block);
    const auto T = static_cast<int64_t>(ids.size());
    model.forward(ids.data(), 1, T);
    std::vector<Tensor> layers;
    for (auto& b : model.h) layers.push_back(b.attn.attention().to(Device::kCpu));
    std::vector<std::string> labels;
    std::string text;
    for (const int32_t id : ids) {
      const std::string piece = tok.decode({id});
      labels.push_back(report::visible_token(piece));
      text += piece;
    }
    r.attention_caption = "Every layer and head on a fixed input of " + std::to_string(T) +
                          " tokens: \"" + text + "\"";
    r.attention_svg = report::attention_grid_svg(
        layers, labels, "attention weights, step " + report::with_commas(in.step));
    r.attention_entropy = report::render_attention_entropy(report::attention_entropy(layers));
  } else {
    r.attention_caption = "No input to show.";
  }

  const report::LoraAdapters adapters =
      c.lora ? lora_adapters_of(model.config(), *c.lora) : report::LoraAdapters{};
  r.model_text = report::render_text(report::model_info(
      model.config(), c.batch_size, model.config().block_size, c.lora ? &adapters : nullptr));
  r.config_json = c.config_json;
  return report::run_report_html(r);
}

void write_run_report(GPT& model, const Tokenizer& tok, const RunReportSettings& settings,
                      const RunReportInputs& in, const RunReportRows& rows) {
  write_file_atomic(in.dir + "/report.html", run_report_page(model, tok, settings, in, rows));
}

}  // namespace tinylm
