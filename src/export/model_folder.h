// The one way tinylm writes a model folder (`export --format hf`, `lora merge`), as
// save_pretrained makes one, with one rule for --out:
//   - a trailing '/' names the folder itself ("hf/" is the folder hf); '.', '..' and an
//     empty name are no new folder;
//   - --out may not exist yet, or be an empty folder; a file, a folder with anything in
//     it, or a symbolic link is refused (tinylm does not overwrite);
//   - its nearest existing parent must be a writable folder (missing parents are made).
// The folder is filled under a new name beside --out (made with mkdir, so never one that
// exists) and renamed into place: a failing write leaves nothing, not even the parents it
// made, and never touches what was there.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "tokenizer/tokenizer.h"

namespace tinylm {

// --out as the folder to write (less the '/' that end it), or InputError (exit 2, naming
// it) when it cannot be one by the rule above. Touches nothing: lets a verb refuse before
// it opens a model.
std::string checked_model_folder(const std::string& out);

// Makes the folder `out` (checked first, as checked_model_folder does): write(dir) fills a new
// folder beside it, the tokenizer's files are added (tokenizer/folder_tokenizer_files.h; null:
// none, model_max_length goes into tokenizer_config.json), then it is renamed to out. Returns
// whether Hugging Face's tokenizer files were written.
bool write_model_folder(const std::string& out, const Tokenizer* tokenizer,
                        int64_t model_max_length,
                        const std::function<void(const std::string& dir)>& write);

}  // namespace tinylm
