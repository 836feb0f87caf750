// Templates tinylm refuses: when they are loaded, with the construct and its line named
// (never a prompt rendered some other way), and errors while rendering with their line.
#include <gtest/gtest.h>

#include "common/input_error.h"
#include "jinja/error.h"
#include "jinja/template.h"

namespace tinylm::jinja {
namespace {

std::string load_error(const std::string& source) {
  return testing::input_error([&] { Template(source, "tokenizer_config.json: chat_template"); });
}

void expect_mentions(const std::string& message, std::initializer_list<const char*> parts) {
  EXPECT_FALSE(message.empty()) << "no error";
  for (const char* part : parts)
    EXPECT_NE(message.find(part), std::string::npos) << message << "\n  lacks: " << part;
}

TEST(JinjaTemplateErrors, UnclosedBlocksNameTheirTagAndLine) {
  expect_mentions(load_error("a\n{% if x %}unclosed"),
                  {"tokenizer_config.json: chat_template", "line 2", "{% if %}", "never closed"});
  expect_mentions(load_error("{% for m in messages %}\n{{ m }}"),
                  {"line 1", "{% for %}", "never closed"});
  expect_mentions(load_error("{% macro f() %}x"), {"{% macro %}", "never closed"});
  expect_mentions(load_error("{% set x %}x"), {"{% set %}", "never closed"});
  expect_mentions(load_error("{{ x "), {"line 1"});
  expect_mentions(load_error("{# unclosed comment"), {"comment", "never closed"});
  expect_mentions(load_error("x\n\n{{ 'unterminated }}"), {"line 3"});
}

TEST(JinjaTemplateErrors, UnsupportedTagsAreRefusedAtLoad) {
  for (const char* tag : {"include", "extends", "block", "raw", "with", "do", "import", "from"}) {
    const std::string source = std::string("line one\nline two\n{% ") + tag + " 'x' %}";
    expect_mentions(load_error(source),
                    {"line 3", "unsupported tag", (std::string("{% ") + tag + " %}").c_str()});
  }
  expect_mentions(load_error("{% endif %}"), {"{% endif %}", "without an open block"});
  expect_mentions(load_error("{% if x %}{% endfor %}"), {"{% endfor %}"});
}

TEST(JinjaTemplateErrors, UnknownFiltersAndTestsAreRefusedAtLoad) {
  expect_mentions(load_error("ok\n{{ x | nosuchfilter }}"),
                  {"line 2", "unknown filter 'nosuchfilter'"});
  expect_mentions(load_error("{% if x is nosuchtest %}{% endif %}"),
                  {"line 1", "unknown test 'nosuchtest'"});
  // A filter tinylm lacks is refused even on a branch a conversation might never reach.
  expect_mentions(load_error("{% if false %}{{ x | wordcount }}{% endif %}"),
                  {"unknown filter 'wordcount'"});
}

TEST(JinjaTemplateErrors, OtherSyntaxErrors) {
  expect_mentions(load_error("{{ f(*args) }}"), {"argument unpacking"});
  expect_mentions(load_error("{{ f(**kw) }}"), {"argument unpacking"});
  expect_mentions(load_error("{% for 1 in x %}{% endfor %}"), {"{% for %}"});
  expect_mentions(load_error("{% set 'a' = 1 %}"), {"{% set %}"});
  expect_mentions(load_error("{{ x[] }}"), {"empty []"});
  expect_mentions(load_error("{{ 'a' ! 'b' }}"), {"unexpected character '!'"});
  expect_mentions(load_error("{{ '\\q' }}"), {"unknown escape"});
  expect_mentions(load_error(std::string("{{ '\xff' }}")), {"not valid UTF-8"});
  expect_mentions(load_error("{% macro f(a, a) %}{% endmacro %}"), {"named twice"});
  expect_mentions(load_error("{{ f(a=1, 2) }}"), {"positional argument follows a keyword"});
}

TEST(JinjaTemplateErrors, RenderErrorsNameTheLine) {
  const Template t("first line\n{% for m in messages %}\n{{ m.content | trim }}\n{% endfor %}",
                   "chat_template");
  const std::string message = testing::input_error([&] {
    t.render({{"messages", {{{"content", {1, 2}}}}}});
  });
  expect_mentions(message, {"chat_template", "line 3", "trim", "list"});
  // raise_exception is not an error of the template: its message is the template's own.
  const Template raising("{{ raise_exception('no system messages') }}");
  try {
    raising.render(nlohmann::ordered_json::object());
    FAIL();
  } catch (const RaisedException& e) {
    EXPECT_EQ(e.message(), "no system messages");
    EXPECT_NE(std::string(e.what()).find("no system messages"), std::string::npos);
  }
}

}  // namespace
}  // namespace tinylm::jinja

namespace tinylm::jinja {
namespace {

TEST(JinjaTemplateErrors, RunawayNestingIsAnErrorNotACrash) {
  const std::string message = testing::input_error([] {
    Template("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}")
        .render(nlohmann::ordered_json::object());
  });
  expect_mentions(message, {"nests too deeply"});
  expect_mentions(load_error("{{ " + std::string(5000, '(') + "1" + std::string(5000, ')') + " }}"),
                  {"deeper than 200"});
  expect_mentions(load_error("{{ " + std::string(100000, '[') + " }}"), {"deeper than 200"});
  expect_mentions(load_error("{{ " +
                             [] {
                               std::string s;
                               for (int i = 0; i < 5000; ++i) s += "not ";
                               return s;
                             }() +
                             "x }}"),
                  {"deeper than 200"});
}

}  // namespace
}  // namespace tinylm::jinja

namespace tinylm::jinja {
namespace {

TEST(JinjaTemplateErrors, RendersAreBoundedInTimeAndSize) {
  RenderOptions small;
  small.max_steps = 10'000;
  small.max_bytes = 1 << 16;
  const auto error = [&](const std::string& source) {
    return testing::input_error(
        [&] { Template(source).render(nlohmann::ordered_json::object(), small); });
  };
  expect_mentions(
      error("{% for i in range(100) %}{% for j in range(100) %}{{ j }}{% endfor %}{% endfor %}"),
      {"more than 10000 steps"});
  expect_mentions(
      error("{% set x = 'ab' %}{% for i in range(30) %}{% set x = x ~ x %}{% endfor %}"),
      {"larger than 65536 bytes"});
  expect_mentions(error("{% set l = [1] %}{% for i in range(30) %}{% set l = l + l %}{% endfor %}"),
                  {"larger than"});
  expect_mentions(error("{% set x = range(4000)|join %}{{ x }}{{ x }}{{ x }}{{ x }}{{ x }}"),
                  {"renders more than"});
  // The defaults leave real templates far inside the bounds.
  EXPECT_EQ(Template("{% for i in range(1000) %}{{ i % 10 }}{% endfor %}")
                .render(nlohmann::ordered_json::object())
                .size(),
            1000u);
}

}  // namespace
}  // namespace tinylm::jinja

namespace tinylm::jinja {
namespace {

// Values stay shallow and acyclic, so that printing and freeing them cannot recurse
// without end: a namespace cannot hold a namespace (itself, or one inside a list), lists
// nest at most kMaxValueDepth levels, and so do the variables a render is given.
TEST(JinjaTemplateErrors, ValuesCannotNestWithoutEnd) {
  const auto error = [](const std::string& source,
                        const nlohmann::ordered_json& vars = nlohmann::ordered_json::object()) {
    return testing::input_error([&] { Template(source).render(vars); });
  };
  expect_mentions(error("{% set ns = namespace(n=0) %}{% set ns.n = ns %}{{ ns }}"),
                  {"cannot hold a namespace"});
  expect_mentions(error("{% set ns = namespace() %}{% set ns.n = [1, {'a': ns}] %}"),
                  {"cannot hold a namespace"});
  expect_mentions(error("{% set a = namespace() %}{% set b = namespace(x=a) %}"),
                  {"cannot hold a namespace"});
  expect_mentions(
      error("{% set l = [] %}{% for i in range(1000) %}{% set l = [l] %}{% endfor %}{{ l }}"),
      {"nest deeper than 600"});
  nlohmann::ordered_json deep = 1;
  for (int i = 0; i < 700; ++i) deep = nlohmann::ordered_json::array({deep});
  expect_mentions(error("{{ x }}", {{"x", deep}}), {"nests deeper than 600"});
  EXPECT_EQ(Template("{% set ns = namespace(l=[1]) %}{% set ns.l = ns.l + [2] %}{{ ns.l }}")
                .render(nlohmann::ordered_json::object()),
            "[1, 2]");
}

}  // namespace
}  // namespace tinylm::jinja
