// Shared helpers for verbs: run a CLI11 parser with tinylm's exit codes, and the
// checks every verb applies to its flags (a path is never empty, a seed never negative).
#pragma once
#include <CLI/CLI.hpp>

namespace tinylm::cli {

// For path options: '' is bad input, not "the default" or the current folder.
inline const CLI::Validator kNonEmptyPath(
    [](std::string& value) { return value.empty() ? std::string("an empty path") : std::string(); },
    "PATH", "NonEmptyPath");

// For --seed: a negative seed would wrap around to 2^64 - 1.
inline const CLI::Validator kSeed(
    [](std::string& value) {
      return !value.empty() && value.find_first_not_of("0123456789") == std::string::npos
                 ? std::string()
                 : "a seed is a non-negative integer, got '" + value + "'";
    },
    "UINT", "Seed");

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
