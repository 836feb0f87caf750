// The "decoder" of a tokenizer.json file: token texts -> text. Steps, in a Sequence or
// alone, as transformers.js applies them:
//   ByteLevel     tokens spelled in GPT-2's byte alphabet -> their bytes (added tokens
//                 stay as they are)
//   Replace       every match of a String pattern -> content, in each token
//   ByteFallback  "<0xNN>" tokens -> byte NN
//   Fuse          the tokens joined into one text
//   Strip         up to "start" leading and "stop" trailing `content` characters cut
//                 (of each token; of the whole text after Fuse or ByteLevel)
// No decoder: the tokens joined with spaces. The bytes are made valid UTF-8 at the end,
// each invalid sequence one U+FFFD (as the WHATWG TextDecoder transformers.js uses).
// Each token's part is computed alone (piece), so that decoding is linear and streams;
// a Replace or ByteFallback after tokens are joined (which could see across them) is
// refused, as is any other type.
#pragma once
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace tinylm {

class HfDecoder {
 public:
  HfDecoder() = default;
  // j: the "decoder" value (null: none); where: "<file>: decoder".
  HfDecoder(const nlohmann::json& j, const std::string& where);

  // The bytes token adds (added: an added token; first: it starts the text).
  std::string piece(std::string_view token, bool added, bool first) const;
  // What the whole text loses at its end (Strip's "stop" after a join), applied to the
  // joined pieces before they are made valid UTF-8.
  void finish(std::string& bytes) const;

 private:
  struct Step {
    enum Kind { kByteLevel, kReplace, kByteFallback, kFuse, kStrip } kind;
    std::string pattern, content;  // Replace; Strip's content
    int start = 0, stop = 0;       // Strip
    bool after_join = false;       // Strip after Fuse or ByteLevel
  };
  void add(const nlohmann::json& j, const std::string& where);

  std::vector<Step> steps_;
  bool joined_ = false;  // a Fuse or ByteLevel step seen (while reading)
  bool none_ = true;     // no decoder: tokens joined with spaces
};

}  // namespace tinylm
