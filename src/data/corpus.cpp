#include "data/corpus.h"

#include <filesystem>

#include "util/error.h"
#include "util/files.h"
#include "util/utf8.h"

namespace tinylm {

std::string load_corpus(const std::string& path) {
  std::error_code ec;
  require(std::filesystem::exists(path, ec), "corpus not found: " + path);
  require(!std::filesystem::is_directory(path, ec),
          "corpus not found: " + path + " is a folder, not a text file");
  std::string text = read_file(path);
  require(!text.empty(), "corpus is empty: " + path);
  const size_t bad = utf8_first_invalid(text);
  require(bad == std::string::npos,
          "corpus " + path + ": invalid UTF-8 at byte " + std::to_string(bad));
  return text;
}

}  // namespace tinylm
