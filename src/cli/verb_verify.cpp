// tinylm verify DIR: run every check a reference folder supports (see verify/verify_lm.h).
// reference.json's "task" picks the checks: none (language model, verify/verify_lm.h),
// "classify" (verify/verify_classify.h), "lora" (verify/verify_lora.h), "instruct"
// (verify/verify_instruct.h).
#include <cstdio>
#include <nlohmann/json.hpp>

#include "backend/registry.h"
#include "cli/cli_util.h"
#include "util/error.h"
#include "verify/verify_classify.h"
#include "verify/verify_instruct.h"
#include "verify/verify_lm.h"
#include "verify/verify_lora.h"
#include "verify/verify_util.h"

namespace tinylm::cli {

namespace {

std::vector<CheckResult> verify_task(const std::string& dir, Device device) {
  const nlohmann::json info = finetune::read_reference_json(dir);
  if (!info.contains("task")) return verify_reference(dir, device);
  require(device == Device::kCpu,
          dir + ": --device " + device_name(device) +
              " checks language-model references only (fine-tuning references run on the CPU)");
  require(info["task"].is_string(), dir + "/reference.json: field task must be a string");
  const std::string task = info["task"].get<std::string>();
  if (task == "classify") return finetune::verify_classify(dir);
  if (task == "lora") return finetune::verify_lora(dir);
  if (task == "instruct") return verify_instruct(dir);
  throw InputError(dir + "/reference.json: unknown task '" + task + "'");
}

}  // namespace

int run_verify(int argc, char** argv) {
  CLI::App app{
      "Compare a model folder (config.json + model.safetensors) with the reference "
      "outputs stored beside it (reference.json + reference.safetensors): logits, "
      "loss, gradients, AdamW steps, greedy continuation; for fine-tuning references "
      "(reference.json \"task\": classify, lora, instruct) the task's checks. Exit 0 only if "
      "all pass.",
      "tinylm verify"};
  std::string dir;
  app.add_option("dir", dir, "folder holding the model and the reference")->required();
  std::string device = "cpu";
  add_device_option(app, device);
  if (int code = parse_or_exit(app, argc, argv); code >= 0) return code;
  const Device on_device = parse_device(device);
  if (on_device != Device::kCpu) require_device(on_device);

  int failed = 0;
  for (const auto& r : verify_task(dir, on_device)) {
    std::printf("%-14s max error %-10.3g tolerance %-8.0e %s%s%s\n", r.name.c_str(), r.error,
                r.tolerance, r.pass ? "PASS" : "FAIL", r.detail.empty() ? "" : "  ",
                r.detail.c_str());
    failed += !r.pass;
  }
  std::printf("%s\n", failed ? "verify: FAILED" : "verify: all checks passed");
  return failed ? 1 : 0;
}

}  // namespace tinylm::cli
