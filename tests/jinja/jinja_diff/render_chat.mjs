// Renders one chat request with @huggingface/jinja as transformers.js' apply_chat_template
// does (the special tokens of tokenizer_config.json, then the kwargs), for the tests that
// compare tinylm's rendering of a request with it (tests/serve/chat_tools_test.cpp):
//   node render_chat.mjs < request.json
//   request: {"config": path of a tokenizer_config.json, "messages": [...], "tools": [...]
//             | null, "add_generation_prompt": bool, "kwargs": {...}}
// Writes the prompt as one JSON string.
import fs from "node:fs";
import { Template } from "@huggingface/jinja";

const request = JSON.parse(fs.readFileSync(0, "utf8"));
const config = JSON.parse(fs.readFileSync(request.config, "utf8"));
const tokens = {};
for (const key of ["bos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token", "eos_token"]) {
  let v = config[key];
  if (v && typeof v === "object") v = v.content;
  if (v) tokens[key] = v;
}
const prompt = new Template(config.chat_template).render({
  messages: request.messages,
  add_generation_prompt: request.add_generation_prompt,
  tools: request.tools ?? null,
  documents: null,
  ...tokens,
  ...(request.kwargs ?? {}),
});
process.stdout.write(JSON.stringify(prompt) + "\n");
