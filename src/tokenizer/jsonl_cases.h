// The lines of a JSONL file of tokenizer cases (`tinylm tokenize --check`), each parsed:
// blank lines are skipped, a line that is not JSON is an InputError naming
// "<name>:<line>". Both checks (bpe_check.h, hf_json_check.h) read their cases here.
#pragma once
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "util/json_read.h"

namespace tinylm {

// Calls each_case(j, where, line_no) for every non-blank line, where = "<name>:<line>".
template <class F>
void for_each_jsonl_case(std::string_view jsonl, const std::string& name, F&& each_case) {
  size_t pos = 0, line_no = 0;
  while (pos < jsonl.size()) {
    size_t eol = jsonl.find('\n', pos);
    if (eol == std::string_view::npos) eol = jsonl.size();
    const std::string_view line = jsonl.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const std::string where = name + ":" + std::to_string(line_no);
    each_case(parse_json_line(line, name, static_cast<int64_t>(line_no)), where, line_no);
  }
}

}  // namespace tinylm
