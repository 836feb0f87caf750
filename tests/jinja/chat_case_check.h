// Checks rendered chat cases (the JSON lines tests/jinja/jinja_diff/gen_cases.mjs writes
// from @huggingface/jinja) against tinylm's rendering: the same bytes, or an error where
// @huggingface/jinja failed (the template's own message where raise_exception raised).
// Shared by jinja_diff_check (the differential test) and the snapshot unit test.
#pragma once
#include <ctime>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "jinja/chat_template_render.h"
#include "jinja/error.h"
#include "jinja/template.h"

namespace tinylm::testing {
using namespace tinylm::jinja;

struct ChatCaseReport {
  int passed = 0, failed = 0;
  std::vector<std::string> failures;  // the first ones, described
  std::map<std::string, int> passed_per_template;
};

// The clock gen_cases.mjs fixes: 2024-09-05 10:20 UTC.
inline std::tm fixed_clock() {
  std::tm t{};
  t.tm_year = 2024 - 1900;
  t.tm_mon = 8;
  t.tm_mday = 5;
  t.tm_hour = 10;
  t.tm_min = 20;
  return t;
}

// Where two texts first differ, with a little of both around it (JSON-escaped).
inline std::string describe_difference(const std::string& want, const std::string& got) {
  size_t i = 0;
  while (i < want.size() && i < got.size() && want[i] == got[i]) ++i;
  const size_t from = i > 40 ? i - 40 : 0;
  const auto excerpt = [&](const std::string& s) {
    return nlohmann::json(s.substr(std::min(from, s.size()), 100))
        .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  return "first difference at byte " + std::to_string(i) + "\n    want " + excerpt(want) +
         "\n    got  " + excerpt(got);
}

// A case is a conversation through a fixture's chat template (the folder "config",
// loaded once), or a small template of its own ("template", "variables").
inline std::string render_case(const nlohmann::ordered_json& c, const std::string& root,
                               std::map<std::string, std::shared_ptr<ChatTemplates>>& loaded) {
  RenderOptions options;
  options.clock = fixed_clock;
  if (!c.contains("config"))
    return Template(c.at("template").get<std::string>()).render(c.at("variables"), options);
  auto& templates = loaded[c.at("config").get<std::string>()];
  if (!templates)
    templates = std::make_shared<ChatTemplates>(
        ChatTemplates::load(root + "/" + c.at("config").get<std::string>()));
  ChatRequest req;
  req.messages = c.at("messages");
  req.tools = c.at("tools");
  req.add_generation_prompt = c.at("add_generation_prompt").get<bool>();
  req.kwargs = c.at("kwargs");
  return templates->render(req, options);
}

// "" when tinylm agrees with the case, else what differs.
inline std::string check_one(const nlohmann::ordered_json& c, const std::string& root,
                             std::map<std::string, std::shared_ptr<ChatTemplates>>& loaded) {
  const auto& error = c.at("error");
  try {
    const std::string got = render_case(c, root, loaded);
    if (!error.is_null())
      return "rendered, but @huggingface/jinja failed: " + error.at("message").get<std::string>();
    const std::string want = c.at("expected").get<std::string>();
    return got == want ? "" : describe_difference(want, got);
  } catch (const RaisedException& e) {
    if (error.is_null()) return std::string("failed: ") + e.what();
    if (!error.at("raised").get<bool>())
      return "raised an exception where @huggingface/jinja failed otherwise";
    const std::string want = error.at("message").get<std::string>();
    return e.message() == want ? "" : "raised \"" + e.message() + "\", not \"" + want + "\"";
  } catch (const InputError& e) {
    if (error.is_null()) return std::string("failed: ") + e.what();
    if (error.at("raised").get<bool>()) return std::string("failed without raising: ") + e.what();
    return "";
  }
}

// Cases of `path` (JSON lines); template folders are relative to `root`.
inline ChatCaseReport check_chat_cases(const std::string& path, const std::string& root,
                                       size_t max_failures = 20) {
  ChatCaseReport report;
  std::ifstream in(path);
  if (!in) throw InputError("cannot open " + path);
  std::map<std::string, std::shared_ptr<ChatTemplates>> loaded;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto c = nlohmann::ordered_json::parse(line);
    const std::string problem = check_one(c, root, loaded);
    const std::string id = c.at("id").get<std::string>();
    if (problem.empty()) {
      ++report.passed;
      ++report.passed_per_template[id.substr(0, id.find('/'))];
    } else {
      ++report.failed;
      if (report.failures.size() < max_failures) report.failures.push_back(id + ": " + problem);
    }
  }
  return report;
}

}  // namespace tinylm::testing
