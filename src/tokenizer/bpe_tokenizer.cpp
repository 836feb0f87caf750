#include "tokenizer/bpe_tokenizer.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "tokenizer/bpe_merge.h"
#include "tokenizer/bpe_pretokenize.h"
#include "tokenizer/bpe_utf8_lossy.h"
#include "tokenizer/piece_cache.h"
#include "util/error.h"
#include "util/files.h"
#include "util/source_dir.h"

namespace tinylm {

std::string default_gpt2_dir() {
  return std::string(source_dir()) + "/data/gpt2";
}

BpeTokenizer::BpeTokenizer(const std::string& dir, const std::string& kind)
    : BpeTokenizer(from_texts(read_file(dir + "/encoder.json"), read_file(dir + "/vocab.bpe"), kind,
                              dir, read_pretokenizer(dir))) {}

BpeTokenizer BpeTokenizer::from_texts(std::string encoder_json, std::string merges_text,
                                      const std::string& kind, const std::string& dir,
                                      Pretokenizer pretokenizer) {
  const std::string where = dir.empty() ? "tokenizer " : dir + "/";
  BpeTokenizer tok(
      parse_bpe_vocab(encoder_json, merges_text, where + "encoder.json", where + "vocab.bpe"), kind,
      "");
  tok.dir_ = dir;
  tok.pretokenizer_ = pretokenizer;
  tok.encoder_json_ = std::move(encoder_json);
  tok.merges_text_ = std::move(merges_text);
  return tok;
}

BpeTokenizer::BpeTokenizer(BpeVocab vocab, std::string kind, std::string dir)
    : vocab_(std::move(vocab)),
      kind_(std::move(kind)),
      dir_(std::move(dir)),
      cache_owner_(next_piece_cache_owner()) {
  require(kind_ == "gpt2" || kind_ == "bpe", "BPE tokenizer kind must be gpt2 or bpe");
  if (!dir_.empty()) pretokenizer_ = read_pretokenizer(dir_);
  for (const auto& [text, id] : vocab_.specials)
    if (text == "<|endoftext|>") eot_id_ = id;
}

void BpeTokenizer::encode_ordinary_into(std::string_view text, size_t base,
                                        std::vector<int32_t>& out) const {
  PieceCache& cache = thread_piece_cache(cache_owner_);
  try {
    split_pieces(pretokenizer_, text, [&](std::string_view piece) {
      const uint32_t whole = vocab_.mergeable.find(piece);  // a single token: as is
      if (whole != kAbsent) {
        out.push_back(static_cast<int32_t>(whole));
        return;
      }
      const uint32_t at = cache.index.find(piece);
      if (at != kAbsent) {
        const int32_t* p = cache.ids.data() + at;
        out.insert(out.end(), p + 1, p + 1 + *p);
        return;
      }
      const size_t before = out.size();
      bpe_merge_piece(vocab_, piece, out);
      cache.store(piece, out.data() + before, out.size() - before);
    });
  } catch (const InvalidUtf8Error& e) {
    throw InputError("text: invalid UTF-8 at byte " + std::to_string(base + e.byte));
  }
}

std::vector<int32_t> BpeTokenizer::encode_ordinary(std::string_view text) const {
  std::vector<int32_t> out;
  out.reserve(text.size() / 3 + 16);
  encode_ordinary_into(text, 0, out);
  return out;
}

bool BpeTokenizer::is_allowed(const std::string& special, const AllowedSpecials& allowed) const {
  return allowed.all ||
         std::find(allowed.names.begin(), allowed.names.end(), special) != allowed.names.end();
}

void BpeTokenizer::check_disallowed(std::string_view text, const AllowedSpecials& allowed) const {
  for (const auto& [special, id] : vocab_.specials) {
    if (is_allowed(special, allowed)) continue;
    const size_t at = text.find(special);
    if (at != std::string_view::npos)
      throw InputError("text contains the special token " + special + " at byte " +
                       std::to_string(at) +
                       ", which is not allowed here (allow it, or encode it as plain text "
                       "with encode_ordinary)");
  }
}

std::vector<int32_t> BpeTokenizer::encode(std::string_view text,
                                          const AllowedSpecials& allowed) const {
  check_disallowed(text, allowed);
  std::vector<std::pair<const std::string*, int32_t>> active;  // allowed specials
  for (const auto& [special, id] : vocab_.specials)
    if (is_allowed(special, allowed)) active.emplace_back(&special, id);

  std::vector<int32_t> out;
  out.reserve(text.size() / 3 + 16);
  size_t pos = 0;
  while (pos < text.size()) {
    // The next special: earliest, and longest among those starting there.
    size_t best_at = std::string_view::npos, best_len = 0;
    int32_t best_id = -1;
    for (const auto& [special, id] : active) {
      const size_t at = text.find(*special, pos);
      if (at < best_at ||
          (at == best_at && at != std::string_view::npos && special->size() > best_len)) {
        best_at = at, best_len = special->size(), best_id = id;
      }
    }
    const size_t end = best_at == std::string_view::npos ? text.size() : best_at;
    encode_ordinary_into(text.substr(pos, end - pos), pos, out);
    if (best_at == std::string_view::npos) break;
    out.push_back(best_id);
    pos = best_at + best_len;
  }
  return out;
}

std::vector<int32_t> BpeTokenizer::encode(std::string_view text) const {
  return encode(text, AllowedSpecials::every());
}

std::vector<int32_t> BpeTokenizer::encode_parallel(std::string_view text,
                                                   const AllowedSpecials& allowed,
                                                   int threads) const {
  constexpr size_t kMinChunk = 1 << 16;
  bool special_has_newline = false;
  for (const auto& [special, id] : vocab_.specials)
    special_has_newline |= special.find('\n') != std::string::npos;
  if (threads <= 1 || text.size() < 2 * kMinChunk || special_has_newline)
    return encode(text, allowed);
  check_disallowed(text, allowed);

  // Cut before a '\n' that follows an ASCII non-space byte: the piece before it ends
  // there whatever comes next, and the matcher starts afresh at the '\n'.
  const size_t target = std::max(kMinChunk, text.size() / (static_cast<size_t>(threads) * 8));
  std::vector<size_t> cuts = {0};
  for (size_t pos = target; pos < text.size();) {
    const size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) break;
    const unsigned char before = static_cast<unsigned char>(text[nl - 1]);
    const bool ok = before < 0x80 && before != ' ' && (before < '\t' || before > '\r');
    if (!ok) {
      pos = nl + 1;
      continue;
    }
    cuts.push_back(nl);
    pos = nl + target;
  }
  cuts.push_back(text.size());

  const int n_chunks = static_cast<int>(cuts.size()) - 1;
  std::vector<std::vector<int32_t>> parts(n_chunks);
  std::vector<std::string> errors(n_chunks);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int c = 0; c < n_chunks; ++c) {
    try {
      parts[c] = encode(text.substr(cuts[c], cuts[c + 1] - cuts[c]), allowed);
    } catch (const std::exception& e) {
      errors[c] = e.what();
    }
  }
  for (int c = 0; c < n_chunks; ++c)
    if (!errors[c].empty()) {
      // Re-run the failing chunk alone to report offsets relative to the whole text.
      encode_ordinary_into(text.substr(0, cuts[c + 1]), 0, parts[c]);
      throw InputError(errors[c]);
    }
  std::vector<int32_t> out;
  size_t total = 0;
  for (const auto& p : parts) total += p.size();
  out.reserve(total);
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

std::string BpeTokenizer::decode_bytes(const std::vector<int32_t>& ids) const {
  std::string out;
  for (const int32_t id : ids) {
    require(id >= 0 && id < vocab_.size(), "token id " + std::to_string(id) +
                                               " is outside the vocabulary [0, " +
                                               std::to_string(vocab_.size()) + ")");
    out += vocab_.bytes_of(id);
  }
  return out;
}

std::string BpeTokenizer::decode(const std::vector<int32_t>& ids) const {
  return utf8_lossy(decode_bytes(ids));
}

nlohmann::json BpeTokenizer::to_json() const {
  if (kind_ == "gpt2" && dir_ == default_gpt2_dir()) return {{"kind", kind_}};
  if (encoder_json_.empty()) return {{"kind", kind_}, {"dir", dir_}};
  // The vocabulary itself travels with the run: ids keep their meaning wherever the
  // run is read from, and whatever later happens to the folder it came from.
  return {{"kind", kind_},
          {"dir", dir_},
          {"encoder.json", encoder_json_},
          {"vocab.bpe", merges_text_},
          {"pretokenizer", pretokenizer_name(pretokenizer_)}};
}

}  // namespace tinylm
