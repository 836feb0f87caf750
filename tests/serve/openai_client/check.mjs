// The official OpenAI JS client (npm openai, v6) against a running `tinylm serve`:
// models, completions and chat (whole and streamed, the same seed giving the same text),
// the stream helper's final message, errors as the client's typed errors, a wrong key.
// Usage: node check.mjs BASE_URL API_KEY MODEL_ID
// Prints one line per check and exits 1 if any failed.
import OpenAI from "openai";

const [baseURL, apiKey, model] = process.argv.slice(2);
const client = new OpenAI({ baseURL, apiKey, maxRetries: 0, timeout: 60000 });

let failures = 0;
function check(ok, what, detail = "") {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}${detail ? ": " + detail : ""}`);
  if (!ok) failures++;
}

async function run(what, f) {
  try {
    await f();
  } catch (e) {
    check(false, what, `${e.constructor.name}: ${e.message}`);
  }
}

const messages = [{ role: "user", content: "Write one sentence about the sea." }];

await run("models.list", async () => {
  const page = await client.models.list();
  check(page.data.some((m) => m.id === model), "models.list has the served model", page.data.map((m) => m.id).join(","));
  const one = await client.models.retrieve(model);
  check(one.id === model && one.object === "model", "models.retrieve");
});

await run("completions", async () => {
  const c = await client.completions.create({ model, prompt: "Once upon a time", max_tokens: 10, seed: 3 });
  check(typeof c.choices[0].text === "string" && c.choices[0].text.length > 0, "completions.create text");
  check(c.usage.completion_tokens === 10 && c.choices[0].finish_reason === "length", "completions usage and finish_reason",
        JSON.stringify(c.usage));
  const stream = await client.completions.create({ model, prompt: "Once upon a time", max_tokens: 10, seed: 3, stream: true });
  let text = "";
  for await (const chunk of stream) text += chunk.choices[0]?.text ?? "";
  check(text === c.choices[0].text, "a streamed completion has the same text", JSON.stringify([text, c.choices[0].text]));
});

await run("chat", async () => {
  const whole = await client.chat.completions.create({ model, messages, max_tokens: 16, seed: 11, temperature: 0.8 });
  const text = whole.choices[0].message.content;
  check(whole.object === "chat.completion" && whole.choices[0].message.role === "assistant", "chat.completions.create");
  const stream = await client.chat.completions.create({
    model, messages, max_tokens: 16, seed: 11, temperature: 0.8, stream: true, stream_options: { include_usage: true },
  });
  let streamed = "", usage = null, roles = 0;
  for await (const chunk of stream) {
    if (chunk.usage) usage = chunk.usage;
    const delta = chunk.choices[0]?.delta;
    if (delta?.role) roles++;
    streamed += delta?.content ?? "";
  }
  check(streamed === text, "a streamed chat has the same text", JSON.stringify([streamed, text]));
  check(roles === 1 && usage && usage.total_tokens === whole.usage.total_tokens, "stream: one role delta and the usage chunk");
  const helper = client.chat.completions.stream({ model, messages, max_tokens: 16, seed: 11, temperature: 0.8 });
  const final = await helper.finalChatCompletion();
  check(final.choices[0].message.content === text, "the stream helper's final message", JSON.stringify(final.choices[0].message));
  const lp = await client.chat.completions.create({ model, messages, max_tokens: 4, logprobs: true, top_logprobs: 3 });
  check(lp.choices[0].logprobs.content.length === lp.usage.completion_tokens &&
        lp.choices[0].logprobs.content.every((t) => t.top_logprobs.length === 3), "chat logprobs");
});

await run("errors", async () => {
  try {
    await client.chat.completions.create({ model, messages, temperature: 5 });
    check(false, "temperature 5 is refused");
  } catch (e) {
    check(e instanceof OpenAI.BadRequestError && e.status === 400 && e.param === "temperature",
          "a bad request is a BadRequestError naming its param", `${e.constructor.name} ${e.status} ${e.param}`);
  }
  try {
    await client.chat.completions.create({ model: "no-such-model", messages });
    check(false, "an unknown model is refused");
  } catch (e) {
    check(e instanceof OpenAI.BadRequestError && e.code === "model_not_found", "an unknown model", `${e.constructor.name} ${e.code}`);
  }
  const wrong = new OpenAI({ baseURL, apiKey: "wrong-key", maxRetries: 0 });
  try {
    await wrong.chat.completions.create({ model, messages });
    check(false, "a wrong key is refused");
  } catch (e) {
    check(e instanceof OpenAI.AuthenticationError && e.status === 401, "a wrong key is an AuthenticationError",
          `${e.constructor.name} ${e.status}`);
  }
});

process.exit(failures ? 1 : 0);
