// The folder of a trained vocabulary (see bpe_train_folder.h).
#include "tokenizer/bpe_train_folder.h"

#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/hf_tokenizer_files.h"

namespace tinylm {

void write_bpe_train_folder(const BpeTrainResult& result, Pretokenizer pretokenizer,
                            const std::string& dir) {
  write_bpe_vocab(result, dir);
  write_pretokenizer(dir, pretokenizer);
  const BpeTokenizer trained = BpeTokenizer::from_texts(
      bpe_encoder_json(result), bpe_merges_text(result), "bpe", dir, pretokenizer);
  write_hf_tokenizer_json(trained, dir);
}

}  // namespace tinylm
