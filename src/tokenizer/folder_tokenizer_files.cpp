// A model folder's tokenizer files (see folder_tokenizer_files.h).
#include "tokenizer/folder_tokenizer_files.h"

#include <nlohmann/json.hpp>

#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/hf_json_tokenizer.h"
#include "tokenizer/hf_tokenizer_files.h"
#include "tokenizer/load.h"
#include "util/files.h"

namespace tinylm {

bool write_folder_tokenizer_files(const Tokenizer& tokenizer, int64_t model_max_length,
                                  const std::string& dir) {
  const auto* bpe = dynamic_cast<const BpeTokenizer*>(&tokenizer);
  if (bpe) write_hf_tokenizer_files(*bpe, model_max_length, dir);
  if (const auto* hf = dynamic_cast<const HfJsonTokenizer*>(&tokenizer)) {
    write_file_atomic(dir + "/tokenizer.json", hf->json_text());
    if (hf->config().is_object())  // the settings read from it (with the chat template)
      write_file_atomic(dir + "/tokenizer_config.json", hf->config().dump(2) + "\n");
  }
  if (tokenizer.kind() != "gpt2")  // GPT-2's is what tinylm reads a folder with anyway
    write_file_atomic(dir + "/" + kTinylmTokenizerFile, tokenizer.to_json().dump() + "\n");
  return bpe != nullptr || dynamic_cast<const HfJsonTokenizer*>(&tokenizer) != nullptr;
}

}  // namespace tinylm
