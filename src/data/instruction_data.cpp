// Instruction entries, the Alpaca prompt, the split and the encoding; see
// instruction_data.h.
#include "data/instruction_data.h"

#include <nlohmann/json.hpp>

#include "data/instruction_chat.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json_read.h"

namespace tinylm {

namespace {

// entry[key] as a string: required and non-empty, or optional (missing / null -> "").
std::string field(const nlohmann::json& entry, const std::string& key, bool required,
                  const std::string& where) {
  const auto it = entry.find(key);
  if (it == entry.end() || it->is_null()) {
    require(!required, where + ": missing \"" + key + "\"");
    return "";
  }
  require(it->is_string(),
          where + ": \"" + key + "\" must be a string (got " + std::string(it->type_name()) + ")");
  std::string value = it->get<std::string>();
  require(!required || !value.empty(), where + ": empty \"" + key + "\"");
  return value;
}

}  // namespace

std::vector<InstructionEntry> parse_instruction_entries(const nlohmann::json& entries,
                                                        const std::string& what) {
  require(entries.is_array(), what + ": expected a JSON array of entries (got " +
                                  std::string(entries.type_name()) + ")");
  require(!entries.empty(), what + ": no entries (the array is empty)");
  std::vector<InstructionEntry> out;
  out.reserve(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    const std::string where = what + ": entry " + std::to_string(i);
    const nlohmann::json& e = entries[i];
    require(e.is_object(), where + ": expected an object with \"instruction\" and \"output\"");
    InstructionEntry entry;
    entry.instruction = field(e, "instruction", true, where);
    entry.input = field(e, "input", false, where);
    entry.output = field(e, "output", true, where);
    entry.source = e;
    out.push_back(std::move(entry));
  }
  return out;
}

std::vector<InstructionEntry> read_instruction_file(const std::string& path) {
  const std::string text = read_file(path);
  require(text.find_first_not_of(" \t\r\n") != std::string::npos, path + ": the file is empty");
  // Duplicate keys and hostile nesting are refused here, naming the line.
  return parse_instruction_entries(parse_json(text, path), path);
}

std::string alpaca_prompt(const InstructionEntry& entry) {
  std::string s = std::string(kAlpacaPreamble) + "\n\n### Instruction:\n" + entry.instruction;
  if (!entry.input.empty()) s += "\n\n### Input:\n" + entry.input;
  return s;
}

std::string alpaca_text(const InstructionEntry& entry) {
  return alpaca_prompt(entry) + kAlpacaResponseHeader + entry.output;
}

EncodedInstruction encode_instruction(const Tokenizer& tokenizer, const InstructionEntry& entry) {
  EncodedInstruction e;
  e.ids = tokenizer.encode(alpaca_text(entry));
  e.prompt_length = static_cast<int64_t>(tokenizer.encode(alpaca_prompt(entry)).size());
  return e;
}

InstructionData load_instruction_data(const std::string& path, const Tokenizer& tokenizer,
                                      const InstructionSplitOptions& o) {
  require(o.train_fraction > 0 && o.train_fraction <= 1 && o.test_fraction >= 0 &&
              o.train_fraction + o.test_fraction <= 1,
          "split fractions: train must be in (0, 1], test in [0, 1), train + test <= 1");
  std::vector<InstructionEntry> entries = read_instruction_file(path);
  const auto n = static_cast<int64_t>(entries.size());
  const auto n_train = static_cast<int64_t>(static_cast<double>(n) * o.train_fraction);
  const auto n_test = static_cast<int64_t>(static_cast<double>(n) * o.test_fraction);
  require(n_train > 0, path + ": the training split is empty (" + std::to_string(n) + " entries)");

  const InstructionFormat format = InstructionFormat::of(tokenizer);
  InstructionData data;
  for (int64_t i = 0; i < n; ++i) {
    InstructionSet& set = i < n_train ? data.train : i < n_train + n_test ? data.test : data.val;
    set.encoded.push_back(encode_instruction(tokenizer, entries[i], format));
    data.longest = std::max<int64_t>(data.longest, set.encoded.back().ids.size());
    set.entries.push_back(std::move(entries[i]));
  }
  return data;
}

}  // namespace tinylm
