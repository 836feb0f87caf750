#include "tokenizer/hf_json_pretokenizer.h"

#include <algorithm>

#include "tokenizer/hf_json_fields.h"
#include "tokenizer/hf_json_unicode.h"

namespace tinylm {

namespace {

// GPT-2's pattern as transformers.js spells it for ByteLevel (JavaScript's \s).
constexpr const char* kJsGpt2Pattern =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

// (span, is_match) pieces covering [begin, end): the gaps and the non-empty matches.
using Marked = std::vector<std::pair<std::pair<uint32_t, uint32_t>, bool>>;

Marked mark_matches(const HfRegex& regex, std::string_view text, uint32_t begin, uint32_t end,
                    std::vector<std::pair<size_t, size_t>>& scratch) {
  scratch.clear();
  regex.find_all(text.substr(begin, end - begin), scratch);
  Marked out;
  uint32_t prev = begin;
  for (const auto& [b, e] : scratch) {
    const uint32_t mb = begin + static_cast<uint32_t>(b), me = begin + static_cast<uint32_t>(e);
    if (prev < mb) out.push_back({{prev, mb}, false});
    out.push_back({{mb, me}, true});
    prev = me;
  }
  if (prev < end) out.push_back({{prev, end}, false});
  return out;
}

}  // namespace

HfPreTokenizer::HfPreTokenizer(const nlohmann::json& j, const std::string& where) {
  if (!j.is_null()) add(j, where);
}

void HfPreTokenizer::add(const nlohmann::json& j, const std::string& where) {
  const std::string type = hf_json::type_of(j, where);
  require(!byte_level_, where + ": ByteLevel must be the last pre-tokenizer");
  Step s{};
  if (type == "Sequence") {
    const nlohmann::json& list = hf_json::field(j, "pretokenizers", where);
    require(list.is_array(), where + ": \"pretokenizers\" must be a list");
    for (const auto& item : list) add(item, where);
    return;
  }
  if (type == "Split") {
    const auto [pattern, is_regex] = hf_json::pattern_field(j, where + " Split");
    s.kind = Step::kSplit;
    s.regex = std::make_shared<HfRegex>(pattern, is_regex);
    const std::string b = hf_json::string_field(j, "behavior", where + " Split");
    if (b == "Isolated")
      s.behavior = Behavior::kIsolated;
    else if (b == "Removed")
      s.behavior = Behavior::kRemoved;
    else if (b == "MergedWithPrevious")
      s.behavior = Behavior::kMergedWithPrevious;
    else if (b == "MergedWithNext")
      s.behavior = Behavior::kMergedWithNext;
    else if (b == "Contiguous")
      s.behavior = Behavior::kContiguous;
    else
      throw InputError(where + " Split: unknown behavior \"" + b + "\"");
    s.invert = hf_json::bool_field(j, "invert", false, where + " Split");
  } else if (type == "Metaspace") {
    s.kind = Step::kMetaspace;
    s.replacement = hf_json::string_field(j, "replacement", where + " Metaspace");
    const std::string scheme = j.contains("prepend_scheme") && j["prepend_scheme"].is_string()
                                   ? j["prepend_scheme"].get<std::string>()
                                   : "always";
    if (scheme == "always")
      s.prepend = Step::kAlways;
    else if (scheme == "first")
      s.prepend = Step::kFirst;
    else if (scheme == "never")
      s.prepend = Step::kNever;
    else
      throw InputError(where + " Metaspace: unknown prepend_scheme \"" + scheme + "\"");
    if (!hf_json::bool_field(j, "add_prefix_space", true, where)) s.prepend = Step::kNever;
    s.split = hf_json::bool_field(j, "split", true, where + " Metaspace");
  } else if (type == "Digits") {
    s.kind = Step::kDigits;
    s.individual_digits = hf_json::bool_field(j, "individual_digits", false, where + " Digits");
  } else if (type == "ByteLevel") {
    s.kind = Step::kByteLevel;
    s.add_prefix_space = hf_json::bool_field(j, "add_prefix_space", false, where);
    if (hf_json::bool_field(j, "use_regex", true, where))
      s.regex = std::make_shared<HfRegex>(kJsGpt2Pattern, true);
    byte_level_ = true;
  } else {
    throw InputError(where + ": unsupported pre-tokenizer type \"" + type +
                     "\" (tinylm reads Split, Digits, ByteLevel, Metaspace and Sequence)");
  }
  steps_.push_back(std::move(s));
}

void HfPreTokenizer::split(std::string_view text, bool first, HfWords& out) const {
  out.text.assign(text);
  out.spans.assign(1, {0, static_cast<uint32_t>(text.size())});
  for (const Step& s : steps_) {
    switch (s.kind) {
      case Step::kSplit:
        apply_split(s, out);
        break;
      case Step::kMetaspace:
        apply_metaspace(s, first, out);
        break;
      case Step::kDigits:
        apply_digits(s, out);
        break;
      case Step::kByteLevel:
        apply_byte_level(s, out);
        break;
    }
  }
}

// Each word cut by the behaviors of Hugging Face's tokenizers (split.rs, pattern.rs).
void HfPreTokenizer::apply_split(const Step& s, HfWords& words) const {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  std::vector<std::pair<size_t, size_t>> scratch;
  for (const auto& [begin, end] : words.spans) {
    Marked marked = mark_matches(*s.regex, words.text, begin, end, scratch);
    if (s.invert)
      for (auto& m : marked) m.second = !m.second;
    if (s.behavior == Behavior::kIsolated) {  // every piece a word (most files)
      for (const auto& m : marked) out.push_back(m.first);
      continue;
    }
    Marked cut;
    bool previous_match = false;
    switch (s.behavior) {
      case Behavior::kIsolated:
        break;
      case Behavior::kRemoved:
        for (const auto& m : marked)
          if (!m.second) cut.push_back(m);
        break;
      case Behavior::kMergedWithPrevious:
        for (const auto& m : marked) {
          if (m.second && !previous_match && !cut.empty())
            cut.back().first.second = m.first.second;
          else
            cut.push_back(m);
          previous_match = m.second;
        }
        break;
      case Behavior::kMergedWithNext:
        for (auto it = marked.rbegin(); it != marked.rend(); ++it) {
          if (it->second && !previous_match && !cut.empty())
            cut.back().first.first = it->first.first;
          else
            cut.push_back(*it);
          previous_match = it->second;
        }
        std::reverse(cut.begin(), cut.end());
        break;
      case Behavior::kContiguous:
        for (const auto& m : marked) {
          if (m.second == previous_match && !cut.empty())
            cut.back().first.second = m.first.second;
          else
            cut.push_back(m);
          previous_match = m.second;
        }
        break;
    }
    for (const auto& m : cut)
      if (m.first.second > m.first.first) out.push_back(m.first);
  }
  words.spans = std::move(out);
}

void HfPreTokenizer::apply_metaspace(const Step& s, bool first, HfWords& words) const {
  HfWords next;
  for (size_t i = 0; i < words.spans.size(); ++i) {
    const std::string_view w = words.word(i);
    const uint32_t begin = static_cast<uint32_t>(next.text.size());
    const bool prepend = s.prepend == Step::kAlways || (s.prepend == Step::kFirst && first);
    if (prepend && w.substr(0, 1) != " " && w.substr(0, s.replacement.size()) != s.replacement)
      next.text += s.replacement;
    for (const char c : w) {
      if (c == ' ')
        next.text += s.replacement;
      else
        next.text += c;
    }
    const uint32_t end = static_cast<uint32_t>(next.text.size());
    if (!s.split) {
      next.spans.push_back({begin, end});
      continue;
    }
    uint32_t start = begin;  // cut before each replacement (merged with the next)
    for (size_t at = next.text.find(s.replacement, begin + 1); at < end && at != std::string::npos;
         at = next.text.find(s.replacement, at + 1)) {
      next.spans.push_back({start, static_cast<uint32_t>(at)});
      start = static_cast<uint32_t>(at);
    }
    next.spans.push_back({start, end});
  }
  words = std::move(next);
}

// Each word cut into its runs of non-digits and its digits (one by one, or runs). Bytes
// 0x30-0x39 are never part of a longer UTF-8 character, so bytes are scanned.
void HfPreTokenizer::apply_digits(const Step& s, HfWords& words) const {
  const auto is_digit = [&](uint32_t i) { return words.text[i] >= '0' && words.text[i] <= '9'; };
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (const auto& [begin, end] : words.spans) {
    for (uint32_t at = begin; at < end;) {
      const bool digit = is_digit(at);
      uint32_t next = at + 1;
      if (!digit || !s.individual_digits)
        while (next < end && is_digit(next) == digit) ++next;
      out.push_back({at, next});
      at = next;
    }
  }
  words.spans = std::move(out);
}

void HfPreTokenizer::apply_byte_level(const Step& s, HfWords& words) const {
  if (s.add_prefix_space) {
    HfWords next;
    for (size_t i = 0; i < words.spans.size(); ++i) {
      const uint32_t begin = static_cast<uint32_t>(next.text.size());
      if (words.word(i).substr(0, 1) != " ") next.text += ' ';
      next.text += words.word(i);
      next.spans.push_back({begin, static_cast<uint32_t>(next.text.size())});
    }
    words = std::move(next);
  }
  if (!s.regex) return;
  std::vector<std::pair<uint32_t, uint32_t>> out;
  std::vector<std::pair<size_t, size_t>> scratch;
  for (const auto& [begin, end] : words.spans) {
    scratch.clear();
    s.regex->find_all(std::string_view(words.text).substr(begin, end - begin), scratch);
    for (const auto& [b, e] : scratch)
      out.push_back({begin + static_cast<uint32_t>(b), begin + static_cast<uint32_t>(e)});
  }
  words.spans = std::move(out);
}

}  // namespace tinylm
