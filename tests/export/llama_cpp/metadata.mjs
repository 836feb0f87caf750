// llama.cpp's view of a GGUF file's tokenizer against the tokenizer folder it came from
// (node metadata.mjs FILE DIR): the pre-tokeniser name, and the chat template and the
// end-of-text token of DIR's tokenizer_config.json (chat_template.jinja when there is
// one), which the file must carry. Prints "metadata: ..."; exit 1 on a difference.
import { existsSync, readFileSync } from "node:fs";
import { loadLlama } from "./llama.mjs";

const [file, dir] = process.argv.slice(2);
const config = JSON.parse(readFileSync(`${dir}/tokenizer_config.json`, "utf8"));
const tokenizer = JSON.parse(readFileSync(`${dir}/tokenizer.json`, "utf8"));
const jinja = `${dir}/chat_template.jinja`;
const template = existsSync(jinja) ? readFileSync(jinja, "utf8") : config.chat_template;
const eosText = typeof config.eos_token === "object" ? config.eos_token?.content : config.eos_token;
const eos = tokenizer.added_tokens.find((t) => t.content === eosText)?.id;

const llama = await loadLlama();
const model = await llama.loadModel({ modelPath: file });
const meta = model.fileInfo.metadata.tokenizer;
const problems = [];
if (meta.chat_template !== template) problems.push("the chat template differs");
if (model.tokens.eos !== eos) problems.push(`eos ${model.tokens.eos}, expected ${eos}`);
console.log(`metadata: pre ${meta.ggml.pre}, eos ${model.tokens.eos}, bos ${model.tokens.bos}, ` +
            `chat template of ${meta.chat_template?.length ?? 0} characters` +
            (problems.length ? `; ${problems.join("; ")}` : ", as the folder's"));
await model.dispose();
process.exit(problems.length ? 1 : 0);
