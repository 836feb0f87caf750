// Each construct of the subset against the text @huggingface/jinja renders for it (the
// expected texts were rendered by @huggingface/jinja 0.5.11; jinja_differential checks
// many more against it live).
#include "jinja/template.h"

#include <gtest/gtest.h>

#include "common/input_error.h"
#include "jinja/error.h"

namespace tinylm::jinja {
namespace {

using Json = nlohmann::ordered_json;

std::string render(const std::string& source, const Json& vars = Json::object()) {
  return Template(source).render(vars);
}

TEST(JinjaTemplate, TextAndExpressions) {
  EXPECT_EQ(render("hello"), "hello");
  EXPECT_EQ(render("{{ 1 + 2 }}|{{ 'a' ~ 1 }}|{{ x }}", {{"x", "y"}}), "3|a1|y");
  EXPECT_EQ(render("{{ 'a' 'b' }} {{ 3 - -1 }} {{ -x }} {{ x-1 }}", {{"x", 2}}), "ab 4 -2 1");
}

// trim_blocks and lstrip_blocks are on (as transformers sets them), one trailing newline
// of the template goes, and - strips whitespace on its side.
TEST(JinjaTemplate, WhitespaceControl) {
  EXPECT_EQ(render("a\n  {% if true %}\n    b\n  {% endif %}\nc"), "a\n    b\nc");
  EXPECT_EQ(render("a  {%- if true -%}  b  {%- endif -%}  c"), "abc");
  EXPECT_EQ(render("x {{- ' y ' -}} z"), "x y z");
  EXPECT_EQ(render("{# comment #}a{#- stripped -#}  b  {#- x #}\n c"), "ab c");
  EXPECT_EQ(render("{{ 'a' }}\n{{ 'b' }}\n"), "a\nb");  // {{ }} keeps its newline
  EXPECT_EQ(render("{%- generation %}kept{% endgeneration -%}  after"), "keptafter");
  EXPECT_EQ(render("text\u00a0 {{- 'x' }}"), "textx");  // JavaScript's \s: NBSP too
}

// Printing follows JavaScript and @huggingface/jinja: floats keep ".0" when whole, none
// and undefined print nothing, lists and dicts print as JSON.
TEST(JinjaTemplate, PrintingValues) {
  EXPECT_EQ(render("{{ 1 }} {{ 1.0 }} {{ 1.5 }} {{ 10 / 4 }} {{ 7 // 2 }} {{ -7 // 2 }} {{ -7 % 3 "
                   "}} {{ 2 ** -1 }}"),
            "1 1.0 1.5 2.5 3 -4 -1 0.5");
  EXPECT_EQ(render("{{ true }} {{ none }}|{{ undefined_name }}|"), "true ||");
  EXPECT_EQ(render("{{ [1.0, 'a', none, true] }} {{ {'a': 1} }}"),
            "[1, \"a\", null, true] {\"a\": 1}");
  EXPECT_EQ(render("{{ x }} {{ y }} {{ z }}", {{"x", 3.0}, {"y", 1e21}, {"z", 1e-7}}),
            "3 1e+21 1e-7");
  EXPECT_EQ(render("{{ 0.1 + 0.2 }} {{ 5 / 0 }}"), "0.30000000000000004 Infinity");
}

TEST(JinjaTemplate, ComparisonsAreJavaScripts) {
  EXPECT_EQ(render("{{ 1 == 1.0 }} {{ '1' == 1 }} {{ true == 1 }} {{ none == u }} {{ [] == [] }}"),
            "true true true true false");
  EXPECT_EQ(render("{{ 1 and 'x' }} {{ 0 or 'y' }} {{ [] or 'z' }} {{ not '' }}"), "x y z true");
  EXPECT_EQ(render("{{ 'a' in 'cat' }} {{ 2 in [1, 2] }} {{ 'k' in {'k': 1} }} {{ 'x' in u }}"),
            "true true true false");
}

TEST(JinjaTemplate, Tests) {
  EXPECT_EQ(render("{{ x is defined }} {{ y is undefined }} {{ none is none }} {{ x is not none }}",
                   {{"x", 1}}),
            "true true true true");
  EXPECT_EQ(
      render("{{ {} is mapping }} {{ [] is iterable }} {{ {} is iterable }} {{ 's' is sequence }}"),
      "true true false true");
  EXPECT_EQ(render("{{ true is true }} {{ 1 is true }} {{ 3 is odd }} {{ 1.5 is number }}"),
            "true false true true");
}

TEST(JinjaTemplate, MembersIndexesAndSlices) {
  const Json vars = {{"d", {{"a", "A"}}}, {"l", {1, 2, 3, 4}}, {"s", "añb🎉c"}};
  EXPECT_EQ(
      render(
          "{{ d.a }}{{ d['a'] }}[{{ d.missing }}][{{ d.missing.deeper }}]{{ l[-1] }}[{{ l[9] }}]",
          vars),
      "AA[][]4[]");
  EXPECT_EQ(render("{{ l[1:] }} {{ l[::-1] }} {{ l[-2:] }} {{ l[::2] }} {{ s[1:4] }} {{ s[::-1] }}",
                   vars),
            "[2, 3, 4] [4, 3, 2, 1] [3, 4] [1, 3] ñb🎉 c🎉bña");
  EXPECT_EQ(render("{{ s|length }} {{ s.length }}", {{"s", "a🎉"}}), "3 3");  // UTF-16 units
}

// strip/lstrip/rstrip ignore their argument in @huggingface/jinja (Qwen3's strip('\n')
// strips all whitespace there).
TEST(JinjaTemplate, StringMethods) {
  EXPECT_EQ(render("[{{ s.strip('x') }}][{{ s.lstrip('\\n') }}]", {{"s", "\n x \n"}}), "[x][x \n]");
  EXPECT_EQ(render("{{ s.split('</think>')[-1].lstrip('\\n') }}", {{"s", "<think>a</think>\n\nB"}}),
            "B");
  EXPECT_EQ(render("{{ s.split() }} {{ s.split(',', 1) }}", {{"s", " a,b  c,d "}}),
            "[\"a,b\", \"c,d\"] [\" a\", \"b  c,d \"]");
  EXPECT_EQ(render("{{ 'banana'.replace('a', 'x', 1) }} {{ 'ab'.replace('', '-') }}"),
            "bxnana -a-b-");
  EXPECT_EQ(render("{{ 'élan vital'.title() }} {{ 'aBC'.capitalize() }} {{ 'straße'.upper() }}"),
            "éLan Vital ABC STRASSE");
  EXPECT_EQ(render("{{ s.startswith(('x', 'a')) }} {{ s.endswith('cd') }}", {{"s", "abcd"}}),
            "true true");
}

TEST(JinjaTemplate, DictsKeepJavaScriptsKeyOrder) {
  const Json vars = {{"d", {{"b", 1}, {"a", 2}, {"10", 3}, {"2", 4}}}};
  EXPECT_EQ(render("{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}", vars),
            "2=4;10=3;b=1;a=2;");
  EXPECT_EQ(render("{{ d.get('a') }} {{ d.get('zz', 'dflt') }} {{ d|dictsort }}", vars),
            "2 dflt [[\"10\", 3], [\"2\", 4], [\"a\", 2], [\"b\", 1]]");
}

TEST(JinjaTemplate, Filters) {
  EXPECT_EQ(render("{{ l|join(', ') }} {{ l|first }} {{ l|last }} {{ l|reverse }} {{ l|length }}",
                   {{"l", {3, "a"}}}),
            "3, a 3 a [\"a\", 3] 2");
  EXPECT_EQ(render("{{ w|sort }} {{ w|sort(case_sensitive=true) }}", {{"w", {"b", "A", "a", "C"}}}),
            "[\"A\", \"a\", \"b\", \"C\"] [\"A\", \"C\", \"a\", \"b\"]");
  EXPECT_EQ(render("{{ '42'|int }} {{ 'x'|int(7) }} {{ 4.7|int }} {{ '3.5'|float }} {{ -3|abs }}"),
            "42 7 4 3.5 3");
  EXPECT_EQ(
      render("{{ u|default('d') }} {{ ''|default('d', true) }} {{ 'a\\nb'|indent(2, true) }}"),
      "d d   a\n  b");
  const Json people = {{"ps", {{{"name", "b"}, {"ok", true}}, {{"name", "a"}, {"ok", false}}}}};
  EXPECT_EQ(
      render(
          "{{ ps|selectattr('ok')|map(attribute='name')|list }} {{ ps|rejectattr('ok')|length }}",
          people),
      "[\"b\"] 1");
  EXPECT_EQ(render("{{ l|reject('equalto', 'x')|join }}", {{"l", {"x", "y"}}}),
            "y");  // tinylm's own
}

// tojson writes as Python's json.dumps: ", " and ": ", or "," and ": " with an indent.
TEST(JinjaTemplate, ToJson) {
  const Json vars = {{"v", {{"a", {1, 2.5, "é\"\n"}}, {"e", Json::object()}}}};
  EXPECT_EQ(render("{{ v|tojson }}", vars), R"({"a": [1, 2.5, "é\"\n"], "e": {}})");
  EXPECT_EQ(render("{{ v|tojson(indent=2) }}", vars),
            "{\n  \"a\": [\n    1,\n    2.5,\n    \"é\\\"\\n\"\n  ],\n  \"e\": {}\n}");
  EXPECT_EQ(render("{{ v|tojson(separators=(',', ':'), ensure_ascii=true) }}", vars),
            R"({"a":[1,2.5,"\u00e9\"\n"],"e":{}})");
}

TEST(JinjaTemplate, SetAndNamespace) {
  EXPECT_EQ(render("{% set x = 1 %}{% set y, z = 2, 3 %}{{ x }}{{ y }}{{ z }}"), "123");
  EXPECT_EQ(render("{% set x %}block {{ 1 + 1 }}{% endset %}[{{ x }}]"), "[block 2]");
  EXPECT_EQ(render("{% set ns = namespace(n=0) %}{% for i in [1, 2, 3] %}{% set ns.n = ns.n + i "
                   "%}{% endfor %}"
                   "{{ ns.n }}"),
            "6");
  // A set inside a loop stays in the loop.
  EXPECT_EQ(
      render(
          "{% set x = 'outer' %}{% for i in [1] %}{% set x = 'inner' %}{{ x }}{% endfor %}{{ x }}"),
      "innerouter");
}

TEST(JinjaTemplate, Loops) {
  EXPECT_EQ(render("{% for x in xs %}{{ loop.index }}{{ loop.first }}{{ loop.last }}{{ loop.length "
                   "}}|{% endfor %}",
                   {{"xs", {"a", "b"}}}),
            "1truefalse2|2falsetrue2|");
  EXPECT_EQ(render("{% for x in xs %}{{ loop.previtem }}<{{ x }}>{{ loop.nextitem }};{% endfor %}",
                   {{"xs", {1, 2}}}),
            "<1>2;1<2>;");
  EXPECT_EQ(render("{% for x in xs if x > 1 %}{{ x }}{{ loop.index }}{% else %}none{% endfor %}",
                   {{"xs", {1, 2, 3}}}),
            "2132");
  EXPECT_EQ(render("{% for x in [] %}x{% else %}empty{% endfor %}"), "empty");
  // break and continue drop what their iteration rendered so far, as @huggingface/jinja does.
  EXPECT_EQ(render("{% for x in xs %}{% if x == 2 %}{% continue %}{% endif %}{{ x }}{% if x == 3 "
                   "%}{% break %}"
                   "{% endif %}{% endfor %}",
                   {{"xs", {1, 2, 3, 4}}}),
            "1");
  EXPECT_EQ(render("{% for i in range(1, 7, 2) %}{{ i }}{% endfor %}"), "135");
}

TEST(JinjaTemplate, ConditionalsAndTernary) {
  EXPECT_EQ(
      render("{% if x == 1 %}one{% elif x == 3 %}three{% else %}other{% endif %}", {{"x", 3}}),
      "three");
  EXPECT_EQ(render("{{ 'y' if x else 'n' }}|{{ 'y' if x }}|", {{"x", 0}}), "n||");
}

TEST(JinjaTemplate, MacrosCallAndFilterBlocks) {
  EXPECT_EQ(render("{% macro g(name, p='!') %}Hi {{ name }}{{ p }}{% endmacro %}{{ g('Ann') }} {{ "
                   "g(p='.', name='Cy') }}"),
            "Hi Ann! Hi Cy.");
  EXPECT_EQ(
      render("{% macro m(a) %}{{ a }}{{ varargs }}{{ kwargs }}{% endmacro %}{{ m(1, 2, k=4) }}"),
      "1[2]{\"k\": 4}");
  EXPECT_EQ(render("{% macro rows(xs) %}{% for x in xs %}{{ caller(x) }}{% endfor %}{% endmacro %}"
                   "{% call(item) rows([1, 2]) %}[{{ item }}]{% endcall %}"),
            "[1][2]");
  EXPECT_EQ(render("{% filter upper %}shout {{ 'this' }}{% endfilter %}"), "SHOUT THIS");
}

TEST(JinjaTemplate, RaiseExceptionCarriesTheTemplatesMessage) {
  try {
    render("ok {{ raise_exception('Conversation roles must alternate ' ~ 42) }}");
    FAIL() << "no exception";
  } catch (const RaisedException& e) {
    EXPECT_EQ(e.message(), "Conversation roles must alternate 42");
  }
}

TEST(JinjaTemplate, StrftimeNowReadsTheGivenClock) {
  RenderOptions options;
  options.clock = [] {
    std::tm t{};
    t.tm_year = 124, t.tm_mon = 6, t.tm_mday = 3, t.tm_hour = 9, t.tm_min = 5;
    return t;
  };
  EXPECT_EQ(Template("{{ strftime_now('%d %b %Y, %B %H:%M %%') }}").render(Json::object(), options),
            "03 Jul 2024, July 09:05 %");
}

// Undefined as @huggingface/jinja has it: prints nothing, has undefined attributes, and
// fails in arithmetic, concatenation and filters.
TEST(JinjaTemplate, Undefined) {
  EXPECT_EQ(render("[{{ u }}][{{ u.a }}][{{ u is defined }}]"), "[][][false]");
  for (const char* bad : {"{{ u + 1 }}", "{{ 'x' ~ u }}", "{{ u|trim }}", "{{ u|length }}",
                          "{{ u() }}", "{% for x in u %}{% endfor %}", "{{ u|default }}"}) {
    EXPECT_THROW(render(bad), TemplateError) << bad;
  }
}

TEST(JinjaTemplate, BuiltinNamesCannotBeVariables) {
  EXPECT_NE(testing::input_error([] {
              render("x", {{"range", 1}});
            }).find("'range'"),
            std::string::npos);
}

}  // namespace
}  // namespace tinylm::jinja

namespace tinylm::jinja {
namespace {

TEST(JinjaTemplate, ExtremeIntegersStayDefined) {
  const nlohmann::ordered_json vars = {{"big", INT64_MAX}, {"small", INT64_MIN}, {"l", {1, 2, 3}}};
  EXPECT_EQ(render("{{ l[::big] }} {{ l[small:] }} {{ l[:small] }} {{ l[::-big] }} {{ range(0, "
                   "big, big // 2) }}",
                   vars),
            "[1] [1, 2, 3] [] [3] [0, 4611686018427388000]");  // printed as JavaScript prints 2^62
  EXPECT_THROW(render("{{ -small }}", vars), TemplateError);
  EXPECT_THROW(render("{{ '99999999999999999999999'|int }}"), TemplateError);
}

}  // namespace
}  // namespace tinylm::jinja
