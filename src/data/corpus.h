// Loading a text corpus: the whole file as UTF-8 text, checked.
// Errors are InputError with one clear message: a missing file or a folder ("corpus not
// found: PATH"), an empty file ("corpus is empty: PATH"), or text that is not UTF-8
// ("corpus PATH: invalid UTF-8 at byte N").
#pragma once
#include <string>

namespace tinylm {

std::string load_corpus(const std::string& path);

}  // namespace tinylm
