// Shared helpers for verbs: run a CLI11 parser with tinylm's exit codes.
#pragma once
#include <CLI/CLI.hpp>

namespace tinylm::cli {

// Parses argv into app. Returns -1 to go on, or the exit code to return now:
// 0 after --help, 2 after a usage error (the message goes to stderr).
inline int parse_or_exit(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  return -1;
}

}  // namespace tinylm::cli
