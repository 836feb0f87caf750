#include "tokenizer/hf_json_check.h"

#include <nlohmann/json.hpp>

#include "tokenizer/bpe_check.h"
#include "tokenizer/jsonl_cases.h"
#include "tokenizer/stream_decoder.h"
#include "util/error.h"
#include "util/json_read.h"

namespace tinylm {

namespace {

std::vector<int32_t> read_ids(const nlohmann::json& j, const char* key, const std::string& where) {
  const JsonField ids(j[key], where, key);
  std::vector<int32_t> out;
  for (size_t i = 0; i < ids.size(); ++i)
    out.push_back(static_cast<int32_t>(ids[i].integer(0, INT32_MAX)));
  return out;
}

std::string quoted(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The first difference of one case, or "" when it matches.
HfCheckMismatch check_case(const HfJsonTokenizer& tok, const nlohmann::json& j,
                           const std::string& where) {
  HfCheckMismatch m;
  m.text = j["text"].get<std::string>();
  const auto differ = [&](const std::string& what, std::string expected, std::string got) {
    if (!m.what.empty() || expected == got) return;
    m.what = what, m.expected = std::move(expected), m.got = std::move(got);
  };
  for (const auto& [key, special] : {std::pair{"ids", false}, std::pair{"ids_special", true}}) {
    if (!j.contains(key)) continue;
    differ(key, format_ids(read_ids(j, key, where)), format_ids(tok.encode(m.text, special)));
  }
  if (!j.contains("ids_special") || !m.what.empty()) return m;
  const std::vector<int32_t> ids = read_ids(j, "ids_special", where);
  for (const auto& [key, skip] : {std::pair{"decoded", false}, std::pair{"decoded_skip", true}}) {
    if (!j.contains(key)) continue;
    require(j[key].is_string(), where + ": \"" + std::string(key) + "\" must be a string");
    differ(key, quoted(j[key].get<std::string>()), quoted(tok.decode(ids, skip)));
  }
  if (j.contains("decoded_raw")) {
    require(j["decoded_raw"].is_string(), where + ": \"decoded_raw\" must be a string");
    differ("decoded_raw", quoted(j["decoded_raw"].get<std::string>()),
           quoted(tok.decode(ids, false, false)));
    differ("streamed", quoted(j["decoded_raw"].get<std::string>()),
           quoted(decode_generated(tok, ids, false)));
  }
  return m;
}

}  // namespace

HfCheckResult check_hf_jsonl(const HfJsonTokenizer& tokenizer, std::string_view jsonl,
                             const std::string& name, size_t keep) {
  HfCheckResult result;
  for_each_jsonl_case(jsonl, name,
                      [&](const nlohmann::json& j, const std::string& where, size_t line_no) {
                        require(j.is_object() && j.contains("text") && j["text"].is_string(),
                                where + ": expected {\"text\": string, ...}");
                        HfCheckMismatch m;
                        try {
                          m = check_case(tokenizer, j, where);
                        } catch (const InputError& e) {
                          m.text = j["text"].get<std::string>();
                          m.what = "error", m.got = e.what();
                        }
                        m.line = line_no;
                        if (m.what.empty()) {
                          ++result.passed;
                        } else {
                          ++result.failed;
                          if (result.mismatches.size() < keep)
                            result.mismatches.push_back(std::move(m));
                        }
                      });
  return result;
}

}  // namespace tinylm
