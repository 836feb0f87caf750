// Fuzz target for chat templates: the lexer, the parser and the evaluator on any bytes.
// CMake builds it with g++ as a deterministic mutation loop that ctest runs
// (tests/common/mutation_fuzzer_main.cpp, seeds in tests/fuzz_seeds/fuzz_jinja_template:
// real chat templates and small ones). By hand with libFuzzer (one line, folded):
//
//   tests/common/build_libfuzzer.sh fuzz_jinja_template src/jinja/*.cpp src/util/utf8.cpp
//     src/util/json_read.cpp
//
// The input is a template, then (after a 0 byte, if there is one) the variables as JSON.
// Property checked: loading the template and rendering it either return or throw
// InputError (TemplateError, RaisedException); anything else (a crash, a sanitizer
// report, another exception, a hang past the step bound) is a bug. A rendered prompt is
// valid UTF-8 when the template and the variables are.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string_view>

#include "jinja/template.h"
#include "util/error.h"
#include "util/utf8.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t zero = input.find('\0');
  const std::string_view source = input.substr(0, zero);
  nlohmann::ordered_json vars = nlohmann::ordered_json::object();
  if (zero != std::string_view::npos) {
    auto parsed =
        nlohmann::ordered_json::parse(input.substr(zero + 1), nullptr, /*allow_exceptions=*/false);
    if (parsed.is_object()) vars = std::move(parsed);
  }
  tinylm::jinja::RenderOptions options;
  options.clock = [] { return std::tm{}; };
  options.max_steps = 200'000;  // small bounds: every input ends quickly
  options.max_bytes = 1 << 20;
  try {
    const tinylm::jinja::Template t(source);
    const std::string out = t.render(vars, options);
    if (tinylm::utf8_first_invalid(out) != std::string_view::npos) std::abort();
  } catch (const tinylm::InputError&) {
  }
  return 0;
}
