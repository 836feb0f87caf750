// Base + PEFT adapter -> merged Hugging Face folder (see merge.h).
#include "finetune/merge.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>

#include "lora/peft.h"
#include "model/hf_classifier.h"
#include "model/hf_gpt2.h"
#include "tokenizer/folder_tokenizer_files.h"
#include "util/error.h"
#include "util/files.h"

namespace tinylm::finetune {

namespace fs = std::filesystem;

namespace {

const std::string kRefuse = " already exists and is not an empty folder (refusing to overwrite it)";

// The folder holding out ("." for a bare name).
std::string parent_of(const std::string& out) {
  const size_t slash = out.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : out.substr(0, slash);
}

// InputError naming the first weight that is NaN or infinite.
void require_finite(const ParameterList& params) {
  for (const auto& p : params) {
    const float* v = p.param->value.data();
    const int64_t n = p.param->value.numel();
    if (std::all_of(v, v + n, [](float x) { return std::isfinite(x); })) continue;
    throw InputError("the merged weight " + p.name +
                     " is NaN or infinite (nothing was written): check the adapter's values "
                     "and lora_alpha");
  }
}

// Renames the filled folder tmp to out (an empty folder there is replaced).
void move_into_place(const std::string& tmp, const std::string& out) {
  if (std::rename(tmp.c_str(), out.c_str()) == 0) return;
  const int err = errno;
  if (err == ENOTEMPTY || err == EEXIST || err == ENOTDIR || err == EISDIR)
    throw InputError("--out " + out + kRefuse);
  throw InputError("--out " + out + ": cannot rename " + tmp + " to it: " + std::strerror(err));
}

// Lets `write` fill a new folder beside `out` (given the end-of-text id its config names:
// the tokenizer's, GPT-2's for a base read with GPT-2's), adds the tokenizer's files, then
// renames that folder to `out`. On failure the new folder (made here, exclusively) is
// removed, nothing else.
void write_merged_folder(const std::string& out, const Tokenizer* tokenizer,
                         int64_t model_max_length,
                         const std::function<void(const std::string&, int32_t)>& write) {
  check_merge_out(out);
  if (!file_exists(parent_of(out))) create_folder(parent_of(out), "--out " + out);
  const std::string tmp = make_temp_folder(out, "--out");
  try {
    write(tmp, tokenizer ? tokenizer->eot_id() : kGpt2EndOfText);
    if (tokenizer) write_folder_tokenizer_files(*tokenizer, model_max_length, tmp);
    move_into_place(tmp, out);
  } catch (...) {
    std::error_code ec;
    fs::remove_all(tmp, ec);
    throw;
  }
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

void check_merge_out(const std::string& out) {
  require(!out.empty(), "--out: empty path");
  const std::string name = out.substr(out.find_last_of('/') + 1);
  require(!name.empty() && name != "." && name != "..",
          "--out " + out + ": name the new folder itself (no trailing '/', '.' or '..')");
  struct stat st {};
  if (::lstat(out.c_str(), &st) == 0) {
    require(!S_ISLNK(st.st_mode),
            "--out " + out + " is a symbolic link (refusing to write through or replace it)");
    require(S_ISDIR(st.st_mode), "--out " + out + kRefuse);
    std::error_code ec;
    require(fs::is_empty(out, ec) && !ec, "--out " + out + kRefuse);
  }
  require_writable_folder(parent_of(out), "--out " + out);
}

MergeSummary merge_adapter(GPT& base, const std::string& adapter, const std::string& out,
                           const Tokenizer* tokenizer) {
  check_merge_out(out);
  const MergeSummary summary = fold_adapter(base, nullptr, adapter);
  require_finite(base.parameters());
  write_merged_folder(out, tokenizer, base.config().block_size,
                      [&](const std::string& dir, int32_t eot) {
                        save_hf_gpt2(base, dir, eot);
                        write_hf_generation_config(eot, dir);
                      });
  return summary;
}

MergeSummary merge_adapter(SequenceClassifier& base, const std::string& adapter,
                           const std::string& out, const Tokenizer* tokenizer) {
  check_merge_out(out);
  MergeSummary summary = fold_adapter(base.body(), &base.score, adapter);
  summary.classifier = true;
  require_finite(base.parameters());
  // The base's max_length travels (pooling does with the config): without it the merged
  // folder would read texts unpadded and pool another position than the run did.
  write_merged_folder(out, tokenizer, base.body().config().block_size,
                      [&](const std::string& dir, int32_t eot) {
                        save_hf_classifier(base, dir, base.config().max_length, eot);
                      });
  return summary;
}

}  // namespace tinylm::finetune
