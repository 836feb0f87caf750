// tinylm finetune --task classify|instruct --base SRC --data FILE --out RUN
//                 [--config FILE] [--set key=value ...] [--resume] [--stop-after N] [--quiet]
#include <nlohmann/json.hpp>

#include "cli/cli_util.h"
#include "dist/communicator.h"
#include "finetune/classify_trainer.h"
#include "finetune/instruct_trainer.h"
#include "run/finetune_config.h"
#include "run/train_config.h"
#include "util/error.h"

namespace tinylm::cli {

int run_finetune(int argc, char** argv) {
  CLI::App app{
      "Fine-tune a GPT: --task instruct (instruction following, the Alpaca prompt) or "
      "--task classify (a classification head). Writes a run folder: config.json, "
      "log.jsonl, last.safetensors, report.html, and test-responses.json (instruct). "
      "Settings: the course's defaults, a config's \"finetune\" / \"lora\" / \"model\" "
      "sections, --set (see docs/finetune-training.md). Ctrl-C saves a checkpoint; --resume "
      "continues exactly.",
      "tinylm finetune"};
  std::string task, config_path;
  std::vector<std::string> sets;
  FinetuneConfig base_names;
  finetune::FinetuneOptions opts;
  app.add_option("--task", task, "instruct or classify")->required();
  app.add_option("--base", base_names.base,
                 "the model to start from: a Hugging Face folder (config.json + "
                 "model.safetensors: GPT-2, Llama, Qwen2, Qwen3), a tinylm run folder, or a preset "
                 "(gpt2-124m, ...: random "
                 "init; the config's \"model\" section changes its shape); with --resume "
                 "the checkpoint holds the model, and --base may be left out");
  app.add_option("--data", base_names.data,
                 "instruct: a JSON list of {instruction, input, output}; classify: TSV, CSV or "
                 "JSONL with a label and a text column")
      ->required();
  app.add_option("--out", opts.out_dir, "run folder (must be empty or new, unless --resume)")
      ->required();
  app.add_option("--config", config_path, "settings (JSON with finetune / lora / model sections)");
  app.add_option("--set", sets, "override a setting, e.g. --set finetune.epochs=1 (repeatable)");
  app.add_flag("--resume", opts.resume, "continue the run in --out from its checkpoint");
  app.add_option("--stop-after", opts.stop_after,
                 "stop with a checkpoint once the run has done N steps, counted from its start "
                 "(also after --resume); continue later with --resume")
      ->check(at_least(1));
  app.add_flag("--quiet", opts.quiet, "no progress output");
  std::string device = "cpu";
  add_device_option(app, device)
      ->description(
          "where the model trains: cpu (default) or cuda (an NVIDIA GPU; instruct fine-tuning "
          "without LoRA for now; the same checkpoint files on both)");
  std::string precision = "fp32";
  app.add_option("--precision", precision,
                 "matrix products: fp32 (default, exact), bf16 (operands rounded to bf16, float32 "
                 "weights and sums; the CPU: linear layers through oneDNN) or tf32 (--device "
                 "cuda only)")
      ->check(CLI::IsMember({"fp32", "tf32", "bf16"}));
  if (int code = parse_or_exit(app, argc, argv); code >= 0) return code;

  nlohmann::json j =
      config_path.empty() ? nlohmann::json::object() : load_config_json(config_path, {});
  for (const std::string& assignment : sets) apply_override(j, assignment);
  FinetuneConfig config = FinetuneConfig::from_json(j, task);
  config.base = base_names.base;
  config.data = base_names.data;
  opts.device = parse_device(device);
  opts.precision = ops::parse_precision(precision);
  if (dist::world().rank() != 0) opts.quiet = true;  // rank 0 speaks for a data-parallel run
  if (task == "instruct") return finetune::finetune_instruct(config, opts);
  return finetune::finetune_classify(config, opts);
}

}  // namespace tinylm::cli
