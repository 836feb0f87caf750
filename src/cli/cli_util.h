// Shared helpers for verbs: run a CLI11 parser with tinylm's exit codes, and the
// checks every verb applies to its flags (a path is never empty, a seed never negative).
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

#include "tensor/device.h"
#include "util/integer_text.h"

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

// For integer options with a lower bound: "must be at least 1", not CLI11's Range message
// (which prints its upper end, DBL_MAX, in 300 digits). Runs after integer_text (which
// checks the decimal form and puts itself first), so the value is plain decimal here.
inline CLI::Validator at_least(int64_t min) {
  return CLI::Validator(
      [min](std::string& value) -> std::string {
        const std::optional<int64_t> v = decimal_integer(value);
        if (v && *v >= min) return "";
        return "must be at least " + std::to_string(min) + ", got " + value;
      },
      "INT>=" + std::to_string(min), "AtLeast");
}

// For integer options with both bounds: "must be in [1, 4096], got 0".
inline CLI::Validator in_range(int64_t min, int64_t max) {
  return CLI::Validator(
      [min, max](std::string& value) -> std::string {
        const std::optional<int64_t> v = decimal_integer(value);
        if (v && *v >= min && *v <= max) return "";
        return "must be in [" + std::to_string(min) + ", " + std::to_string(max) + "], got " +
               value;
      },
      "INT in [" + std::to_string(min) + ", " + std::to_string(max) + "]", "InRange");
}

// CLI11 (2.1) reads an integer option with strtoll / strtoull in base 0 and does not
// check for overflow: "99999999999999999999" becomes INT64_MAX, "-1" becomes 2^64 - 1
// for an unsigned option, "010" is octal 8. This check runs before CLI11's conversion:
// plain decimal within int64 (uint64, without a sign, for an unsigned option), handed
// on as its canonical decimal text. Narrower types are then range-checked by CLI11.
inline CLI::Validator integer_text(bool is_unsigned) {
  return CLI::Validator(
      [is_unsigned](std::string& value) -> std::string {
        const bool digits =
            !value.empty() &&
            value.find_first_not_of("0123456789", value[0] == '-' ? 1 : 0) == std::string::npos;
        if (!digits || value == "-") return "'" + value + "' is not an integer";
        if (is_unsigned) {
          if (value[0] == '-') return "a non-negative integer is needed, got " + value;
          const std::optional<uint64_t> v = decimal_unsigned(value);
          if (!v) return value + " is too large (at most " + std::to_string(UINT64_MAX) + ")";
          value = std::to_string(*v);
        } else {
          const std::optional<int64_t> v = decimal_integer(value);
          if (!v)
            return value + " is out of range (" + std::to_string(INT64_MIN) + " to " +
                   std::to_string(INT64_MAX) + ")";
          value = std::to_string(*v);
        }
        return "";
      },
      "", "IntegerText");
}

// Puts integer_text first on every integer option of app and its subcommands.
inline void check_integer_options(CLI::App& app) {
  for (CLI::Option* opt : app.get_options()) {
    if (opt->get_type_size_max() == 0) continue;  // a flag
    const std::string type = opt->get_type_name();
    const std::string base = type.substr(0, type.find(':'));
    if (base == "INT" || base == "UINT") opt->transform(integer_text(base == "UINT"));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    check_integer_options(*sub);
}

// Which of `names` were given on the command line, as "--a, --b" (empty: none); for a
// verb that refuses flags its chosen output would ignore.
inline std::string given_flags(const CLI::App& app, std::initializer_list<const char*> names) {
  std::string list;
  for (const char* name : names)
    if (app.count(name) > 0) list += (list.empty() ? "" : ", ") + std::string(name);
  return list;
}

// --device cpu|cuda: where the model computes. The value is checked by CLI11 (exit 2);
// whether the device is there is checked when the model moves (backend/registry.h).
inline CLI::Option* add_device_option(CLI::App& app, std::string& device) {
  return app
      .add_option("--device", device,
                  "where the model computes: cpu (default) or cuda (an NVIDIA GPU; the same "
                  "checkpoint files on both)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
}

// Parses argv into app. Returns -1 to go on, or the exit code to return now:
// 0 after --help, 2 after a usage error (the message goes to stderr). Every integer
// option is checked by integer_text first.
inline int parse_or_exit(CLI::App& app, int argc, char** argv) {
  check_integer_options(app);
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
