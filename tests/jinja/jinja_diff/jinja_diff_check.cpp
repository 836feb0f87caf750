// The tinylm side of the chat-template differential test (run.sh): renders every case of
// a JSON-lines file written by gen_cases.mjs and compares with @huggingface/jinja's text.
//   jinja_diff_check CASES.jsonl [ROOT]   (ROOT: the clone, where the fixture folders are)
// Prints the first mismatches and "N passed, M failed"; exits 1 when any failed.
#include <cstdio>
#include <exception>

#include "jinja/chat_case_check.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: jinja_diff_check CASES.jsonl [ROOT]\n");
    return 2;
  }
  try {
    const auto report = tinylm::testing::check_chat_cases(argv[1], argc > 2 ? argv[2] : ".");
    for (const auto& f : report.failures) std::printf("MISMATCH %s\n", f.c_str());
    for (const auto& [name, n] : report.passed_per_template)
      std::printf("  %-20s %d cases exact\n", name.c_str(), n);
    std::printf("%d passed, %d failed\n", report.passed, report.failed);
    return report.failed ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "jinja_diff_check: %s\n", e.what());
    return 2;
  }
}
