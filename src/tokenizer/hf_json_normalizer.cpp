#include "tokenizer/hf_json_normalizer.h"

#include "tokenizer/hf_json_fields.h"
#include "tokenizer/hf_json_unicode.h"

namespace tinylm {

HfNormalizer::HfNormalizer(const nlohmann::json& j, const std::string& where) {
  if (!j.is_null()) add(j, where);
}

void HfNormalizer::add(const nlohmann::json& j, const std::string& where) {
  const std::string type = hf_json::type_of(j, where);
  if (type == "Sequence") {
    const nlohmann::json& list = hf_json::field(j, "normalizers", where);
    require(list.is_array(), where + ": \"normalizers\" must be a list");
    for (const auto& item : list) add(item, where);
  } else if (type == "NFC") {
    steps_.push_back({Step::kNfc, "", "", nullptr});
  } else if (type == "Prepend") {
    steps_.push_back({Step::kPrepend, hf_json::string_field(j, "prepend", where), "", nullptr});
  } else if (type == "Replace") {
    const auto [pattern, is_regex] = hf_json::pattern_field(j, where + " Replace");
    Step s{Step::kReplace, hf_json::string_field(j, "content", where), "", nullptr};
    if (is_regex) {
      s.regex = std::make_shared<HfRegex>(pattern, true);
    } else {
      s.literal = pattern;
    }
    steps_.push_back(std::move(s));
  } else {
    throw InputError(where + ": unsupported normalizer type \"" + type +
                     "\" (tinylm reads NFC, Prepend, Replace and Sequence)");
  }
}

std::string HfNormalizer::apply(std::string_view text) const {
  std::string s(text);
  for (const Step& step : steps_) {
    switch (step.kind) {
      case Step::kNfc:
        s = nfc(s);
        break;
      case Step::kPrepend:
        s.insert(0, step.text);
        break;
      case Step::kReplace:
        s = step.regex ? step.regex->replace_all(s, step.text)
                       : hf_json::replace_all(s, step.literal, step.text);
        break;
    }
  }
  return s;
}

}  // namespace tinylm
