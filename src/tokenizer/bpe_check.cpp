#include "tokenizer/bpe_check.h"

#include <cstdint>
#include <nlohmann/json.hpp>

#include "tokenizer/jsonl_cases.h"
#include "util/error.h"
#include "util/json_read.h"

namespace tinylm {

namespace {

AllowedSpecials parse_allowed(const nlohmann::json& j, const std::string& where) {
  if (j.is_string() && j.get<std::string>() == "all") return AllowedSpecials::every();
  require(j.is_array(), where + ": \"allowed_special\" must be \"all\" or a list of strings");
  AllowedSpecials allowed;
  for (const auto& s : j) {
    require(s.is_string(), where + ": \"allowed_special\" must list strings");
    allowed.names.push_back(s.get<std::string>());
  }
  return allowed;
}

}  // namespace

std::string format_ids(const std::vector<int32_t>& ids) {
  std::string out = "[";
  for (size_t i = 0; i < ids.size(); ++i) out += (i ? ", " : "") + std::to_string(ids[i]);
  return out + "]";
}

BpeCheckResult check_jsonl(const BpeTokenizer& tokenizer, std::string_view jsonl,
                           const std::string& name, size_t keep) {
  BpeCheckResult result;
  for_each_jsonl_case(
      jsonl, name, [&](const nlohmann::json& j, const std::string& where, size_t line_no) {
        require(j.is_object() && j.contains("text") && j["text"].is_string() && j.contains("ids") &&
                    j["ids"].is_array(),
                where + ": expected {\"text\": string, \"ids\": [int, ...]}");
        CheckMismatch c;
        c.line = line_no;
        c.text = j["text"].get<std::string>();
        const JsonField ids(j["ids"], where, "ids");  // "<file>:<line>: ids[2] must be ..."
        for (size_t i = 0; i < ids.size(); ++i)
          c.expected.push_back(static_cast<int32_t>(ids[i].integer(0, INT32_MAX)));
        const AllowedSpecials allowed = j.contains("allowed_special")
                                            ? parse_allowed(j["allowed_special"], where)
                                            : AllowedSpecials::none();
        try {
          c.got = tokenizer.encode(c.text, allowed);
        } catch (const InputError& e) {
          c.error = e.what();
        }
        if (c.error.empty() && c.got == c.expected) {
          ++result.passed;
        } else {
          ++result.failed;
          if (result.mismatches.size() < keep) result.mismatches.push_back(std::move(c));
        }
      });
  return result;
}

}  // namespace tinylm
