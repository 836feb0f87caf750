// tinylm verify DIR: run every check a reference folder supports (see train/verify.h).
#include <cstdio>

#include "cli/cli_util.h"
#include "finetune/reference_json.h"
#include "finetune/verify_instruct.h"
#include "train/verify.h"
#include "util/error.h"

namespace tinylm::cli {

int run_verify(int argc, char** argv) {
  CLI::App app{"Compare a model folder (config.json + model.safetensors) with the reference "
               "outputs stored beside it (reference.json + reference.safetensors): logits, "
               "loss, gradients, AdamW steps, greedy continuation. Exit 0 only if all pass.",
               "tinylm verify"};
  std::string dir;
  app.add_option("dir", dir, "folder holding the model and the reference")->required();
  if (int code = parse_or_exit(app, argc, argv); code >= 0) return code;

  int failed = 0;
  const std::string task = read_reference_json(dir).task();
  require(task.empty() || task == "instruct",
          dir + "/reference.json: task: '" + task + "' is not supported");
  const auto results = task == "instruct" ? verify_instruct(dir) : verify_reference(dir);
  for (const auto& r : results) {
    std::printf("%-14s max error %-10.3g tolerance %-8.0e %s%s%s\n", r.name.c_str(), r.error,
                r.tolerance, r.pass ? "PASS" : "FAIL", r.detail.empty() ? "" : "  ",
                r.detail.c_str());
    failed += !r.pass;
  }
  std::printf("%s\n", failed ? "verify: FAILED" : "verify: all checks passed");
  return failed ? 1 : 0;
}

}  // namespace tinylm::cli
