// The tokenizer files of a model folder that tinylm writes for other programs and for
// itself (`tinylm export --format hf`, `tinylm lora merge`): a folder without them is
// read with GPT-2's tokenizer, so a model trained on another vocabulary would decode
// wrong text.
//   a BPE vocabulary     Hugging Face's files (hf_tokenizer_files.h; the letters-marks
//                        pre-tokeniser as a Split before ByteLevel)
//   a tokenizer.json     the file as read, and tokenizer_config.json with the settings
//                        tinylm kept of it (tokens, BOS/EOS rules, chat template)
//   any vocabulary but   its to_json() as kTinylmTokenizerFile (load.h), which tinylm
//   GPT-2's own          reads back before anything else (char and word vocabularies
//                        have no Hugging Face files at all)
#pragma once
#include <cstdint>
#include <string>

#include "tokenizer/tokenizer.h"

namespace tinylm {

// Writes tokenizer's files into dir (which exists); model_max_length goes into
// tokenizer_config.json. Returns whether Hugging Face's tokenizer files were written.
bool write_folder_tokenizer_files(const Tokenizer& tokenizer, int64_t model_max_length,
                                  const std::string& dir);

}  // namespace tinylm
