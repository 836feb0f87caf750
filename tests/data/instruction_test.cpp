// Instruction data: the Alpaca prompt, reading and checking entries, the course's split,
// and the course's collate (end-of-text, padding, -100 targets, prompt mask, cut).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "data/instruction_collate.h"
#include "data/instruction_data.h"
#include "data/test_util.h"
#include "tokenizer/bpe_tokenizer.h"
#include "util/files.h"

namespace tinylm {
namespace {

using testing::input_error;
using testing::TempDir;

constexpr int32_t X = kIgnoreTarget;

TEST(InstructionData, AlpacaPromptExactlyAsTheCourse) {
  InstructionEntry e{"Convert 45 kilometers to meters.", "", "45000 meters.", {}};
  const std::string head =
      "Below is an instruction that describes a task. Write a response that appropriately "
      "completes the request.\n\n### Instruction:\nConvert 45 kilometers to meters.";
  EXPECT_EQ(alpaca_prompt(e), head);
  EXPECT_EQ(alpaca_text(e), head + "\n\n### Response:\n45000 meters.");
  e.input = "fast";
  EXPECT_EQ(alpaca_prompt(e), head + "\n\n### Input:\nfast");
  EXPECT_EQ(alpaca_text(e), head + "\n\n### Input:\nfast\n\n### Response:\n45000 meters.");
}

TEST(InstructionData, EntriesAreCheckedAndNamedByIndex) {
  const auto parse = [](const std::string& text) {
    return parse_instruction_entries(nlohmann::json::parse(text), "d.json");
  };
  const auto ok = parse(R"([{"instruction": "a", "output": "b"},
                            {"instruction": "c", "input": null, "output": "d", "id": 7},
                            {"instruction": "e", "input": "f", "output": "g"}])");
  ASSERT_EQ(ok.size(), 3u);
  EXPECT_EQ(ok[0].input, "");
  EXPECT_EQ(ok[1].source["id"], 7);
  EXPECT_EQ(ok[2].input, "f");
  EXPECT_EQ(
      input_error([&] { parse(R"([{"instruction": "a", "output": "b"}, {"instruction": "x"}])"); }),
      "d.json: entry 1: missing \"output\"");
  EXPECT_EQ(input_error([&] { parse(R"([{"input": "a", "output": "b"}])"); }),
            "d.json: entry 0: missing \"instruction\"");
  EXPECT_EQ(input_error([&] { parse(R"([{"instruction": "", "output": "b"}])"); }),
            "d.json: entry 0: empty \"instruction\"");
  EXPECT_EQ(input_error([&] { parse(R"([{"instruction": "a", "input": 3, "output": "b"}])"); }),
            "d.json: entry 0: \"input\" must be a string (got number)");
  EXPECT_EQ(input_error([&] { parse(R"([1])"); }),
            "d.json: entry 0: expected an object with \"instruction\" and \"output\"");
  EXPECT_EQ(input_error([&] { parse(R"({"instruction": "a"})"); }),
            "d.json: expected a JSON array of entries (got object)");
  EXPECT_EQ(input_error([&] { parse("[]"); }), "d.json: no entries (the array is empty)");

  const TempDir tmp;
  const std::string empty = tmp.file("e.json"), broken = tmp.file("b.json");
  write_file_atomic(empty, "\n");
  write_file_atomic(broken, "[{\"instruction\": ");
  EXPECT_EQ(input_error([&] { read_instruction_file(empty); }), empty + ": the file is empty");
  EXPECT_NE(input_error([&] { read_instruction_file(broken); }).find(broken + ": not valid JSON"),
            std::string::npos);
}

// The file is read through the checked JSON reader (a key
// given twice, or nesting past kMaxJsonDepth, is refused naming the file and line), and
// a folder is refused as a folder.
TEST(InstructionData, HostileFilesAreRefusedNamingFileAndLine) {
  const TempDir tmp;
  const std::string twice = tmp.file("twice.json"), deep = tmp.file("deep.json");
  write_file_atomic(twice,
                    "[{\"instruction\": \"a\", \"output\": \"b\"},\n"
                    " {\"instruction\": \"c\", \"output\": \"d\",\n"
                    "  \"output\": \"e\"}]\n");
  EXPECT_EQ(input_error([&] { read_instruction_file(twice); }),
            twice + ": duplicate key \"output\" on line 3");
  // 150,000 levels under an extra field: copying the entry once recursed that deep.
  const size_t depth = 150'000;
  write_file_atomic(deep, "[{\"instruction\": \"a\", \"output\": \"b\", \"x\": " +
                              std::string(depth, '[') + std::string(depth, ']') + "}]");
  EXPECT_EQ(input_error([&] { read_instruction_file(deep); }),
            deep + ": JSON nested deeper than 512 levels on line 1");
  EXPECT_EQ(input_error([&] { read_instruction_file(tmp.file("")); }),
            tmp.file("") + " is a folder, not a file");
}

// The course's file (data/instruction-data.json, a copy of the shared one): 1,100
// entries -> 935 train, 110 test, 55 val, in file order.
TEST(InstructionData, CourseSplitInFileOrder) {
  const BpeTokenizer gpt2;
  const std::string path = testing::repo_path("data/instruction-data.json");
  const auto entries = read_instruction_file(path);
  ASSERT_EQ(entries.size(), 1100u);
  const InstructionData data = load_instruction_data(path, gpt2);
  EXPECT_EQ(data.train.size(), 935);
  EXPECT_EQ(data.test.size(), 110);
  EXPECT_EQ(data.val.size(), 55);
  EXPECT_EQ(data.test.entries.front().source, entries[935].source);
  EXPECT_EQ(data.val.entries.front().source, entries[1045].source);
  EXPECT_EQ(data.val.entries.back().source, entries[1099].source);
  // Each encoding is the prompt's ids followed by the response's.
  const EncodedInstruction& e = data.train.encoded[0];
  const auto prompt = gpt2.encode(alpaca_prompt(data.train.entries[0]));
  EXPECT_EQ(e.prompt_length, static_cast<int64_t>(prompt.size()));
  EXPECT_TRUE(std::equal(prompt.begin(), prompt.end(), e.ids.begin()));
  EXPECT_GT(data.longest, e.prompt_length);
  // Other fractions: floor(n * train), floor(n * test), the rest.
  const InstructionData other = load_instruction_data(path, gpt2, {0.5, 0.25});
  EXPECT_EQ(other.train.size(), 550);
  EXPECT_EQ(other.test.size(), 275);
  EXPECT_EQ(other.val.size(), 275);
}

std::vector<EncodedInstruction> three_examples() {
  // ids, prompt_length; 9 plays the end-of-text / pad id.
  return {{{1, 2, 3}, 2}, {{4, 5, 6, 7, 8}, 3}, {{1}, 1}};
}

TEST(InstructionCollate, EndOfTextPaddingAndIgnoredTargets) {
  InstructionCollateOptions o;
  o.pad_id = 9;
  const Batch b = collate_instructions(three_examples(), o);
  EXPECT_EQ(b.B, 3);
  EXPECT_EQ(b.T, 5);                                        // the longest sequence
  EXPECT_EQ(b.inputs, (std::vector<int32_t>{1, 2, 3, 9, 9,  //
                                            4, 5, 6, 7, 8,  //
                                            1, 9, 9, 9, 9}));
  EXPECT_EQ(b.targets, (std::vector<int32_t>{2, 3, 9, X, X,  //
                                             5, 6, 7, 8, 9,  //
                                             9, X, X, X, X}));
  EXPECT_EQ(b.supervised(), 3 + 5 + 1);
}

TEST(InstructionCollate, MaskPromptSelectionAndCut) {
  InstructionCollateOptions o;
  o.pad_id = 9;
  o.mask_prompt = true;
  const std::vector<int64_t> rows = {1, 0};
  const Batch b = collate_instructions(three_examples(), rows, o);
  EXPECT_EQ(b.T, 5);
  // Targets j < prompt_length - 1 are prompt tokens: 2 of row 1, 1 of row 0.
  EXPECT_EQ(b.targets, (std::vector<int32_t>{X, X, 7, 8, 9,  //
                                             X, 3, 9, X, X}));
  o.allowed_max_length = 3;
  const Batch cut = collate_instructions(three_examples(), rows, o);
  EXPECT_EQ(cut.T, 3);
  EXPECT_EQ(cut.inputs, (std::vector<int32_t>{4, 5, 6, 1, 2, 3}));
  EXPECT_EQ(cut.targets, (std::vector<int32_t>{X, X, 7, X, 3, 9}));
  o.allowed_max_length = 100;  // longer than the batch: no effect
  EXPECT_EQ(collate_instructions(three_examples(), rows, o).T, 5);
}

TEST(InstructionCollate, PadIdInsideTheTextFollowsTheCourse) {
  // The course ignores every target equal to the pad id after the first one; a pad id
  // inside the text (not produced by GPT-2 text without "<|endoftext|>") is the first.
  InstructionCollateOptions o;
  o.pad_id = 9;
  const Batch b = collate_instructions({{{1, 9, 2}, 1}}, o);
  EXPECT_EQ(b.targets, (std::vector<int32_t>{9, 2, X}));
}

}  // namespace
}  // namespace tinylm
