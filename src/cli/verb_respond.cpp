// tinylm respond --run RUN --instruction "..." [--input "..."] [--max-new-tokens N]
#include <cstdio>

#include "cli/cli_util.h"
#include "finetune/instruct_run.h"
#include "finetune/respond.h"
#include "util/error.h"

namespace tinylm::cli {

int run_respond(int argc, char** argv) {
  CLI::App app{
      "The response of an instruction fine-tuned run (tinylm finetune --task instruct) "
      "to one instruction: the Alpaca prompt, greedy decoding up to <|endoftext|>.",
      "tinylm respond"};
  std::string run;
  InstructionEntry entry;
  int64_t max_new_tokens = -1;
  app.add_option("--run", run, "an instruct run folder")->required();
  app.add_option("--instruction", entry.instruction, "the instruction")->required();
  app.add_option("--input", entry.input, "the input (optional)");
  app.add_option("--max-new-tokens", max_new_tokens,
                 "at most this many tokens (default: the run's finetune.max_new_tokens)");
  if (int code = parse_or_exit(app, argc, argv); code >= 0) return code;

  require(!entry.instruction.empty(), "--instruction is empty");
  finetune::InstructRun loaded = finetune::load_instruct_run(run, "tinylm respond");
  const int64_t n = max_new_tokens >= 0 ? max_new_tokens : loaded.config.finetune.max_new_tokens;
  const std::string response = finetune::respond(*loaded.model, *loaded.tokenizer, entry, n);
  std::printf("%s\n", response.c_str());
  return 0;
}

}  // namespace tinylm::cli
