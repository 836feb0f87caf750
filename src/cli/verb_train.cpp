// tinylm train --config FILE [--out RUN_DIR] [--resume] [--preset NAME] [--set key=value ...]
#include <nlohmann/json.hpp>

#include "cli/cli_util.h"
#include "model/config.h"
#include "train/trainer.h"
#include "util/error.h"

namespace tinylm::cli {

int run_train(int argc, char** argv) {
  CLI::App app{
      "Train a GPT on a corpus (or the addition task) from a JSON config. Writes a "
      "run folder: config.json, tokenizer.json, log.jsonl, last.safetensors, "
      "best.safetensors. Ctrl-C saves a checkpoint; --resume continues exactly.\n"
      "Data parallel on N processes (docs/distributed.md): mpirun -np N tinylm train "
      "... (as root: OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; more "
      "ranks than cores: --oversubscribe and --set train.threads=1; in containers: "
      "OMPI_MCA_btl_vader_single_copy_mechanism=none; several machines: --hostfile H); "
      "train.batch_size is each rank's micro-batch, train.global_batch the sequences "
      "per step.",
      "tinylm train"};
  std::string config_path, out, preset;
  std::vector<std::string> sets;
  TrainOptions opts;
  app.add_option("--config", config_path, "training config (JSON; see configs/)")
      ->required()
      ->check(kNonEmptyPath);
  app.add_option("--out", out, "run folder (default: runs/<config name>)")->check(kNonEmptyPath);
  app.add_flag("--resume", opts.resume, "continue the run in --out from its last checkpoint");
  app.add_option("--preset", preset,
                 "use a released model's shape (" + preset_names() +
                     "), "
                     "randomly initialised, in place of the config's model section (keeping its "
                     "dropout); --set model.x=... still applies");
  app.add_option("--set", sets, "override a config field, e.g. --set train.lr=3e-4 (repeatable)");
  app.add_option("--stop-after", opts.stop_after,
                 "stop with a checkpoint once the run has done N steps, counted from its start "
                 "(also after --resume); continue later with --resume")
      ->check(at_least(1));
  app.add_flag("--quiet", opts.quiet, "no progress output");
  std::string device = "cpu", precision = "fp32";
  add_device_option(app, device);
  app.add_option("--precision", precision,
                 "matrix products: fp32 (default, exact), bf16 (operands rounded to bf16, float32 "
                 "weights and sums; the CPU: linear layers through oneDNN) or tf32 (--device "
                 "cuda only)")
      ->check(CLI::IsMember({"fp32", "tf32", "bf16"}));
  if (int code = parse_or_exit(app, argc, argv); code >= 0) return code;

  if (out.empty()) {
    std::string name = config_path.substr(config_path.find_last_of('/') + 1);
    if (name.size() > 5 && name.substr(name.size() - 5) == ".json") name.resize(name.size() - 5);
    out = "runs/" + name;
  }
  opts.out_dir = out;
  opts.device = parse_device(device);
  opts.precision = ops::parse_precision(precision);
  nlohmann::json j = load_config_json(config_path, {});
  if (!preset.empty()) {
    nlohmann::json model = {{"preset", preset}};
    if (j.contains("model") && j["model"].is_object() && j["model"].contains("dropout"))
      model["dropout"] = j["model"]["dropout"];
    j["model"] = model;
  }
  for (const std::string& assignment : sets) apply_override(j, assignment);
  const TrainConfig config = TrainConfig::from_json(j);
  return train(config, opts);
}

}  // namespace tinylm::cli
