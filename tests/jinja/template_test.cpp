// Each construct of the subset against the text @huggingface/jinja renders for it.
#include "jinja/template.h"

#include <gtest/gtest.h>

#include "jinja/error.h"

namespace tinylm::jinja {
namespace {

std::string render(const std::string& source,
                   const nlohmann::ordered_json& vars = nlohmann::ordered_json::object()) {
  return Template(source).render(vars);
}

TEST(JinjaTemplate, TextAndExpressions) {
  EXPECT_EQ(render("hello"), "hello");
  EXPECT_EQ(render("{{ 1 + 2 }}|{{ 'a' ~ 1 }}|{{ x }}", {{"x", "y"}}), "3|a1|y");
}

}  // namespace
}  // namespace tinylm::jinja
