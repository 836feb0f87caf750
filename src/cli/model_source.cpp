#include "cli/model_source.h"

#include "model/hf_gpt2.h"
#include "tokenizer/bpe_tokenizer.h"
#include "train/run_model.h"
#include "util/error.h"

namespace tinylm::cli {

ModelSource load_model_source(const std::string& run, const std::string& hf_dir) {
  require(run.empty() != hf_dir.empty(), "pass one of --run RUN_DIR or --model HF_DIR");
  ModelSource source;
  if (!run.empty()) {
    LoadedRun loaded = load_run(run);
    source.model = std::move(loaded.model);
    source.tokenizer = std::move(loaded.tokenizer);
    source.name = run;
    source.addition = loaded.config.data.task == "addition";
  } else {
    source.model = load_hf_gpt2(hf_dir);
    source.tokenizer = std::make_unique<BpeTokenizer>();
    source.name = hf_dir;
  }
  return source;
}

}  // namespace tinylm::cli
