// The folder `tinylm bpe-train` writes for a trained vocabulary:
//   encoder.json, vocab.bpe   OpenAI's format (bpe_train.h), read by BpeTokenizer(dir)
//   pretokenizer.txt          "letters-marks" when trained with it (bpe_pretokenizer_choice.h)
//   tokenizer.json            the same vocabulary in Hugging Face's format, read with the
//   tokenizer_config.json     same ids by transformers, transformers.js and tinylm's own
//                             tokenizer.json reader (hf_tokenizer_files.h)
// Each file is written atomically (util/files.h).
#pragma once
#include <string>

#include "tokenizer/bpe_pretokenizer_choice.h"
#include "tokenizer/bpe_train.h"

namespace tinylm {

// Creates dir if needed and writes the files above into it.
void write_bpe_train_folder(const BpeTrainResult& result, Pretokenizer pretokenizer,
                            const std::string& dir);

}  // namespace tinylm
