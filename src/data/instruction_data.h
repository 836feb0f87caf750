// Instruction data (Raschka ch. 7): a JSON list of {"instruction", "input", "output"}
// entries, the Alpaca prompt, the course's split, and the token ids of each entry.
//
// Prompt, exactly as the course:
//   alpaca_prompt(e)  = "Below is an instruction that describes a task. Write a response
//                        that appropriately completes the request.\n\n### Instruction:\n"
//                       + instruction  [+ "\n\n### Input:\n" + input, only if input != ""]
//   alpaca_text(e)    = alpaca_prompt(e) + "\n\n### Response:\n" + output
// The response starts after kAlpacaResponseHeader; generation (`tinylm respond`) feeds
// alpaca_prompt(e) + kAlpacaResponseHeader and reads what follows.
//
// Split in file order (the course: 1,100 entries -> 935 train, 110 test, 55 val):
//   train = [0, floor(0.85 n)), test = the next floor(0.10 n), val = the rest.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace tinylm {

inline constexpr const char* kAlpacaPreamble =
    "Below is an instruction that describes a task. Write a response that appropriately "
    "completes the request.";
inline constexpr const char* kAlpacaResponseHeader = "\n\n### Response:\n";

struct InstructionEntry {
  std::string instruction;
  std::string input;  // "" when the entry has none
  std::string output;
  nlohmann::json source;  // the entry as read, with any other fields (for writing it back)
};

// A JSON array of objects. Each needs "instruction" and "output" as non-empty strings;
// "input" may be missing, null or a string. Errors are InputError naming the file (what)
// and the 0-based entry index: "data.json: entry 4: missing \"output\"".
std::vector<InstructionEntry> parse_instruction_entries(const nlohmann::json& entries,
                                                        const std::string& what);
std::vector<InstructionEntry> read_instruction_file(const std::string& path);

std::string alpaca_prompt(const InstructionEntry& entry);
std::string alpaca_text(const InstructionEntry& entry);

// An entry as token ids: ids = encode(alpaca_text), prompt_length = the number of ids of
// encode(alpaca_prompt) (the course's way of finding the prompt for mask_prompt).
// In a model's chat template (data/instruction_chat.h) the ids end with the template's
// end-of-turn token (ends_turn), which the model learns to stop at.
struct EncodedInstruction {
  std::vector<int32_t> ids;
  int64_t prompt_length = 0;
  bool ends_turn = false;  // false: the collate appends the end-of-text to learn
};
EncodedInstruction encode_instruction(const Tokenizer& tokenizer, const InstructionEntry& entry);

struct InstructionSet {
  std::vector<InstructionEntry> entries;
  std::vector<EncodedInstruction> encoded;  // same order
  int64_t size() const { return static_cast<int64_t>(entries.size()); }
};

struct InstructionData {
  InstructionSet train, test, val;  // in file order: train, then test, then val
  int64_t longest = 0;              // the most ids of one entry (any split)
};

// Fractions of the first two splits; val gets the rest.
struct InstructionSplitOptions {
  double train_fraction = 0.85;
  double test_fraction = 0.10;
};

// read_instruction_file -> split -> encode_instruction in the tokenizer's format (Alpaca,
// or the model's own chat template: data/instruction_chat.h). InputError also for
// fractions outside [0, 1] or summing above 1, and for an empty training split.
InstructionData load_instruction_data(const std::string& path, const Tokenizer& tokenizer,
                                      const InstructionSplitOptions& options = {});

}  // namespace tinylm
