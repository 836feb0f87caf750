// Base + PEFT adapter -> merged Hugging Face folder (see merge.h).
#include "finetune/merge.h"

#include <filesystem>
#include <functional>

#include "finetune/hf_classifier.h"
#include "lora/peft.h"
#include "model/hf_gpt2.h"
#include "util/error.h"

namespace tinylm::finetune {

namespace fs = std::filesystem;

namespace {

// InputError unless `out` is missing or an empty folder.
void check_out(const std::string& out) {
  require(!out.empty(), "--out: empty path");
  if (fs::exists(out))
    require(fs::is_directory(out) && fs::is_empty(out),
            out + ": already exists and is not an empty folder (refusing to overwrite it)");
}

// Lets `write` fill a folder beside `out`, then renames that folder to `out`.
void write_merged_folder(const std::string& out,
                         const std::function<void(const std::string&)>& write) {
  const fs::path target(out);
  const fs::path tmp = target.parent_path() / (target.filename().string() + ".tmp-merge");
  fs::remove_all(tmp);
  write(tmp.string());
  if (fs::exists(target)) fs::remove(target);  // an empty folder (checked above)
  fs::rename(tmp, target);
}

// Reads the adapter onto `body` (and `head`), folds it in and removes it.
MergeSummary fold_adapter(GPT& body, nn::Linear* head, const std::string& adapter) {
  auto lora = load_peft_adapter(body, head, adapter);
  MergeSummary summary;
  summary.modules = static_cast<int64_t>(lora->attached().size());
  summary.lora_parameters = lora->num_parameters();
  lora->merge();
  return summary;
}

}  // namespace

MergeSummary merge_adapter(GPT& base, const std::string& adapter, const std::string& out) {
  check_out(out);
  const MergeSummary summary = fold_adapter(base, nullptr, adapter);
  write_merged_folder(out, [&](const std::string& dir) { save_hf_gpt2(base, dir); });
  return summary;
}

MergeSummary merge_adapter(SequenceClassifier& base, const std::string& adapter,
                           const std::string& out) {
  check_out(out);
  MergeSummary summary = fold_adapter(base.body(), &base.score, adapter);
  summary.classifier = true;
  write_merged_folder(out, [&](const std::string& dir) { save_hf_classifier(base, dir); });
  return summary;
}

}  // namespace tinylm::finetune
