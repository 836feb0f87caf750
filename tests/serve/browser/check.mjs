// Opens tinylm serve's playground in headless Chromium (Debian's package, driven by
// playwright-core) against a running server and checks what a user would see:
//   - the page loads and describes the model; no console errors, page errors, failed
//     requests or HTTP errors at any point;
//   - completion mode, temperature 0, 12 tokens: the request shown is the one sent, the
//     tokens stream into the output as token spans coloured by probability, and the
//     time to first token and tokens/s are shown;
//   - clicking a token shows its alternatives with probabilities; clicking one starts a
//     new generation whose text begins with the chosen prefix; Regenerate repeats it;
//   - the next-token chart has bars before and after the samplers, and the "after" side
//     follows the settings (greedy: 1 candidate; top-k 5: 5);
//   - the attention heatmap is drawn for layer 1 head 0, and changes for another
//     layer and head; hovering a cell reads its weight;
//   - chat mode streams an assistant answer as tokens; Stop aborts a longer one;
//   - max_tokens never asks past the context (64 tokens here): a second chat turn and a
//     prompt a few tokens short of it ask for the room left; a prompt that fills it is
//     not sent, and the page says why;
//   - a full-page screenshot is saved.
// Usage: node check.mjs --url http://127.0.0.1:PORT/ --screenshot OUT.png
// Prints one line per check and exits 1 if any failed.
import { checker, flags, launch, openPage } from "./harness.mjs";

const opt = flags(["url", "screenshot"], "node check.mjs --url URL --screenshot OUT.png");
const { check, failures } = checker();

// Runs one step; a step that throws (a wait timed out) is one failed check.
async function step(what, fn) {
  try {
    await fn();
    return true;
  } catch (e) {
    return check(false, what, String(e.message || e).split("\n")[0]);
  }
}

const browser = await launch();
try {
  const errors = [];
  const page = await openPage(browser, errors);
  let stopping = false;  // while Stop is pressed, the generation's request is aborted on purpose
  page.on("requestfailed", (r) => {
    const why = r.failure()?.errorText ?? "";
    if (!(stopping && /ERR_ABORTED/.test(why))) errors.push(`request failed: ${r.url()} (${why})`);
  });

  const figuresReady = () => page.waitForSelector("body[data-figures=ready]", { state: "attached" });
  const busyDone = () => page.waitForSelector("body[data-busy=false]", { state: "attached" });
  const tokenTexts = () => page.$$eval("#output .tok", (s) => s.map((x) => x.textContent));
  const requestBody = async () => JSON.parse(await page.textContent("#request-json"));

  const loaded = await step("page: loads and connects to the server", async () => {
    await page.goto(opt.url, { waitUntil: "load" });
    await page.waitForSelector("body[data-ready=true]", { state: "attached", timeout: 10000 });
    const info = await page.textContent("#model-info");
    check(/gpt2-tiny/.test(info) && /layers/.test(info), "page: describes the model", info);
    const mode = await page.getAttribute("#mode-completion", "aria-selected");
    check(mode === "true", "page: completion mode by default for a plain-template model");
  });
  if (!loaded) {  // nothing else can work
    await page.screenshot({ path: opt.screenshot, fullPage: true });
    throw new Error("the page did not load; see the screenshot " + opt.screenshot);
  }

  // --- generate: completion, greedy, 12 tokens ----------------------------------------
  const prompt = "The meaning of life is";
  await step("generate: completion at temperature 0", async () => {
    await page.click("#mode-completion");
    await page.fill("#temperature", "0");
    await page.fill("#max-tokens", "12");
    await page.fill("#prompt", prompt);
    const preview = await requestBody();
    check(preview.temperature === 0 && preview.max_tokens === 12 && preview.prompt === prompt &&
          preview.stream === true && preview.logprobs === 5,
          "settings: the request JSON follows the settings", JSON.stringify(preview));
    // Record how many token spans the output holds each time it changes: streaming
    // shows them in several steps, not all at once at the end.
    await page.evaluate(() => {
      window.__tokenCounts = [];
      new MutationObserver(() => {
        const n = document.querySelectorAll("#output .tok").length;
        const seen = window.__tokenCounts;
        if (seen[seen.length - 1] !== n) seen.push(n);
      }).observe(document.querySelector("#output"), { childList: true, subtree: true });
    });
    await page.click("#generate");
    await page.waitForFunction(() => document.querySelector("#finish").textContent === "length");
    await busyDone();
    const tokens = await tokenTexts();
    check(tokens.length === 12, "generate: 12 token spans in the output", `${tokens.length}`);
    const counts = await page.evaluate(() => window.__tokenCounts);
    check(counts.filter((n) => n > 0 && n < 12).length >= 1, "generate: tokens streamed in",
          `span counts seen: ${counts.join(",")}`);
    const text = await page.textContent("#output");
    check(text === prompt + tokens.join(""), "generate: output = prompt + tokens",
          JSON.stringify(text.slice(0, 80)));
    const probs = await page.$$eval("#output .tok", (s) => s.map((x) => [Number(x.dataset.prob), x.style.background]));
    check(probs.every(([p, bg]) => p > 0 && p <= 1 && bg !== ""), "generate: tokens coloured by probability");
    const sent = await requestBody();
    check(/sent/.test(await page.textContent("#request-path")) && sent.prompt === prompt,
          "settings: the request shown is the one sent");
    const ttft = await page.textContent("#ttft"), tps = await page.textContent("#tps");
    check(/^\d+ ms$/.test(ttft), "stats: time to first token shown", ttft);
    check(/^\d+(\.\d+)? tokens\/s$/.test(tps) && parseFloat(tps) > 0, "stats: tokens/s shown", tps);
  });

  // --- the distribution chart follows the settings ------------------------------------
  await step("next-token chart", async () => {
    await page.waitForFunction(() =>
      document.querySelectorAll('#dist-chart g[data-side=before] rect.bar').length === 20 &&
      document.querySelectorAll('#dist-chart g[data-side=after] rect.bar').length === 1);
    check(true, "next-token chart: 20 bars before the samplers, 1 after (temperature 0 is greedy)");
    await page.fill("#temperature", "1");
    await page.fill("#top-k", "5");
    await page.waitForFunction(() =>
      document.querySelectorAll('#dist-chart g[data-side=after] rect.bar').length === 5);
    const cut = await page.$$eval("#dist-chart g[data-side=before] rect.bar.cut", (r) => r.length);
    check(cut === 15, "next-token chart: top-k 5 keeps 5 tokens, the other 15 shown as removed", `${cut} removed`);
    const sum = await page.$$eval("#dist-chart g[data-side=after] rect.bar title",
      (t) => t.map((x) => parseFloat(x.textContent.split(": ")[1])).reduce((a, b) => a + b, 0));
    check(Math.abs(sum - 100) < 0.5, "next-token chart: the 5 kept tokens share all the probability", `${sum.toFixed(2)}%`);
    await page.fill("#temperature", "0");
    await page.fill("#top-k", "0");
  });

  // --- alternatives: click a token, then an alternative ------------------------------
  let expected = null;
  await step("alternatives", async () => {
    const index = 3;
    await page.click(`#output .tok[data-index="${index}"]`);
    await page.waitForSelector("#alternatives:not([hidden])");
    const alts = await page.$$eval("#alt-list button.alt", (b) => b.map((x) => ({
      token: x.dataset.token, p: x.querySelector(".p").textContent, chosen: x.classList.contains("is-chosen") })));
    check(alts.length >= 2 && alts.every((a) => /%$/.test(a.p)), "alternatives: shown with probabilities",
          alts.map((a) => `${JSON.stringify(a.token)} ${a.p}`).join(", "));
    check(alts.filter((a) => a.chosen).length === 1, "alternatives: the generated token is marked");
    // The chart now shows the distribution the clicked token was drawn from (greedy: it
    // is the most likely token, highlighted).
    await figuresReady();
    const hl = await page.$$eval("#dist-chart g[data-side=before] rect.bar.hl", (r) => r.length);
    const forText = await page.textContent("#dist-for");
    const beforeClicked = (prompt + (await tokenTexts()).slice(0, index).join("")).slice(-20).replace(/ /g, "\u00b7");
    check(hl >= 1 && forText.includes(beforeClicked + " \u2014"),
          "next-token chart: follows the clicked token, which is highlighted", forText);
    const pick = alts.find((a) => !a.chosen && !a.token.includes("\uFFFD"));
    const before = (await tokenTexts()).slice(0, index).join("");
    expected = prompt + before + pick.token;
    await page.click(`#alt-list button.alt:not(.is-chosen)[data-token="${pick.token.replace(/["\\]/g, "\\$&")}"]`);
    await page.waitForSelector("#output .tok.chosen");
    await page.waitForFunction(() => document.querySelector("#finish").textContent !== "\u2014" &&
                                     document.body.dataset.busy === "false");
    const sent = await requestBody();
    check(sent.prompt === expected, "alternatives: the new request continues from the chosen token",
          JSON.stringify(sent.prompt));
    const text = await page.textContent("#output");
    check(text.startsWith(expected) && text.length > expected.length,
          "alternatives: the new output begins with the chosen prefix", JSON.stringify(text.slice(0, 80)));
    const n = (await tokenTexts()).length;
    check(n === index + 1 + 12, "alternatives: kept tokens + the chosen one + 12 new", `${n} tokens`);
  });

  await step("regenerate", async () => {
    check(!(await page.isDisabled("#regenerate")), "regenerate: enabled after a generation");
    await page.evaluate(() => { document.querySelector("#finish").textContent = "-"; });
    await page.click("#regenerate");
    await page.waitForFunction(() => document.querySelector("#finish").textContent === "length" &&
                                     document.body.dataset.busy === "false");
    const text = await page.textContent("#output");
    check(expected !== null && text.startsWith(expected), "regenerate: repeats the last request",
          JSON.stringify(text.slice(0, 60)));
  });

  // --- attention heatmap ---------------------------------------------------------------
  // Pixels of the heatmap that are not white or the masked grey: the cells drawn.
  const heatmap = () => page.evaluate(() => {
    const c = document.querySelector("#attn-canvas");
    const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let coloured = 0;
    for (let i = 0; i < d.length; i += 4)
      if (d[i + 2] - d[i] > 20) coloured++;  // blue-ish: attention weight
    return { coloured, url: c.toDataURL(), layer: c.dataset.layer, head: c.dataset.head,
             tokens: Number(c.dataset.tokens) };
  });
  await step("attention heatmap", async () => {
    await figuresReady();
    await page.waitForFunction(() => document.querySelectorAll("#attn-layer option").length === 2 &&
                                     Number(document.querySelector("#attn-canvas").dataset.tokens) > 1);
    await page.selectOption("#attn-layer", "1");
    await page.selectOption("#attn-head", "0");
    await page.waitForSelector('#attn-canvas[data-layer="1"][data-head="0"]', { state: "attached" });
    const a = await heatmap();
    check(a.coloured > 100 && a.tokens > 5, "attention: heatmap drawn for layer 1 head 0",
          `${a.tokens} tokens, ${a.coloured} coloured pixels`);
    await page.selectOption("#attn-layer", "0");
    await page.selectOption("#attn-head", "2");
    await page.waitForSelector('#attn-canvas[data-layer="0"][data-head="2"]', { state: "attached" });
    const b = await heatmap();
    check(b.coloured > 100 && b.url !== a.url, "attention: redrawn for layer 0 head 2",
          `${b.coloured} coloured pixels`);
    const box = await page.locator("#attn-canvas").boundingBox();  // the last row's last cell
    await page.locator("#attn-canvas").hover({ position: { x: box.width - 20, y: box.height - 20 } });
    const info = await page.textContent("#attn-info");
    check(/gives \d\.\d{3} of its attention/.test(info), "attention: hovering a cell reads its weight", info);
  });

  // --- chat mode --------------------------------------------------------------------------
  await step("chat", async () => {
    await page.click("#mode-chat");
    await page.fill("#chat-input", "Hello, who are you?");
    const preview = await requestBody();
    check(Array.isArray(preview.messages) && preview.messages.at(-1).content === "Hello, who are you?" &&
          preview.logprobs === true, "chat: the request holds the message", JSON.stringify(preview.messages));
    await page.click("#generate");
    await page.waitForFunction(() => document.querySelector("#finish").textContent !== "\u2014" &&
                                     document.body.dataset.busy === "false");
    const roles = await page.$$eval("#output .msg .role", (r) => r.map((x) => x.textContent));
    const tokens = await page.$$eval("#output .msg.assistant .tok", (s) => s.length);
    check(roles.join(",") === "user,assistant" && tokens > 0, "chat: the answer streams in as tokens",
          `${roles.join(",")}; ${tokens} tokens`);
  });

  await step("stop", async () => {
    await page.click("#clear");  // a new conversation: its prompt and 50 tokens fit in 64
    await page.fill("#max-tokens", "50");
    await page.fill("#chat-input", "Tell me a long story.");
    stopping = true;
    await page.click("#generate");
    await page.waitForSelector("#output .msg.assistant:last-child .tok");
    check(!(await page.isDisabled("#stop")) || (await page.textContent("#finish")) !== "\u2014",
          "stop: enabled while generating");
    await page.click("#stop", { timeout: 2000 }).catch(() => {});  // it may have just finished
    await busyDone();
    const finish = await page.textContent("#finish");
    const n = await page.$$eval("#output .msg.assistant:last-child .tok", (s) => s.length);
    if (finish === "stopped")
      check(n < 50, "stop: the generation was aborted", `${n} of 50 tokens`);
    else
      console.log(`ok   stop: not checked, the generation ended (${finish}) before Stop was pressed`);
    await page.waitForTimeout(200);
    stopping = false;
    check(await page.isDisabled("#stop"), "stop: disabled again when idle");
    await page.click("#mode-completion");
    await page.waitForSelector("#output .tok.chosen");
  });

  // --- screenshot: the completion with a token's alternatives open -------------------
  await step("screenshot", async () => {
    await page.click('#output .tok[data-index="5"]');
    await page.waitForSelector("#alternatives:not([hidden])");
    await figuresReady();
    await page.screenshot({ path: opt.screenshot, fullPage: true });
    console.log(`screenshot: ${opt.screenshot}`);
  });

  // --- max_tokens within the context ----------------------------------------------------
  // gpt2-tiny's context is 64 tokens. The server counts a prompt (for chat: the rendered
  // conversation) with a max_tokens: 0 request, whose usage says prompt_tokens.
  const CONTEXT = 64;
  const promptTokens = (body) => page.evaluate(async (b) => {
    const path = b.messages ? CHAT : COMPLETIONS;
    const res = await fetch(apiUrl(path), { method: "POST", headers: authHeaders(true),
      body: JSON.stringify({ ...b, max_tokens: 0 }) });
    return (await res.json()).usage.prompt_tokens;
  }, body);
  const generated = async () => {
    await page.waitForFunction(() => document.querySelector("#finish").textContent !== "\u2014" &&
                                     document.body.dataset.busy === "false");
    return { finish: await page.textContent("#finish"), error: await page.isVisible("#error") };
  };

  await step("context: a second chat turn asks for the room left", async () => {
    await page.click("#mode-chat");
    await page.click("#clear");
    await page.fill("#max-tokens", "32");  // turn 1: 9 + 32 tokens; turn 2: ~52 + the rest
    for (const message of ["Name a colour.", "And another one?"]) {
      await page.evaluate(() => { document.querySelector("#finish").textContent = "\u2014"; });
      await page.fill("#chat-input", message);
      await page.click("#generate");
      const end = await generated();
      const sent = await requestBody();
      const n = await promptTokens({ messages: sent.messages });
      check(!end.error && end.finish !== "error" && sent.max_tokens === Math.min(32, CONTEXT - n),
            `context: chat turn "${message}" asks for at most the room left`,
            `${n} prompt tokens + max_tokens ${sent.max_tokens}, finish ${end.finish}`);
    }
    const roles = await page.$$eval("#output .msg .role", (r) => r.map((x) => x.textContent));
    check(roles.join(",") === "user,assistant,user,assistant", "context: both turns answered", roles.join(","));
  });

  await step("context: a prompt near the context", async () => {
    await page.click("#mode-completion");
    await page.fill("#max-tokens", "32");
    const near = prompt + " and".repeat(CONTEXT - 9);  // 5 + 55 = 60 tokens: room for 4
    await page.evaluate(() => { document.querySelector("#finish").textContent = "\u2014"; });
    await page.fill("#prompt", near);
    await page.click("#generate");
    const end = await generated();
    const sent = await requestBody();
    const n = await promptTokens({ prompt: sent.prompt });
    const tokens = (await tokenTexts()).length;
    check(!end.error && end.finish === "length" && sent.max_tokens === CONTEXT - n && tokens === CONTEXT - n,
          "context: a prompt 4 tokens short of the context gets 4 tokens",
          `${n} prompt tokens, max_tokens ${sent.max_tokens}, ${tokens} generated, finish ${end.finish}`);

    let sentGenerations = 0;
    const count = (r) => { if (/\/v1\/(chat\/)?completions$/.test(r.url())) sentGenerations++; };
    page.on("request", count);
    await page.fill("#prompt", prompt + " and".repeat(CONTEXT - 5));  // 64 tokens: no room
    await page.click("#generate");
    await page.waitForSelector("#error:not([hidden])");
    await busyDone();
    page.off("request", count);
    const message = await page.textContent("#error");
    check(sentGenerations === 0 && /no room/.test(message),
          "context: a prompt that fills the context is not sent; the page says why", message);
    await page.fill("#prompt", prompt);
  });

  check(errors.length === 0, "page: no console errors, page errors or failed requests",
        errors.slice(0, 5).join(" | "));
} catch (e) {
  check(false, "check.mjs", e.message);
} finally {
  await browser.close();
}
process.exit(failures() ? 1 : 0);
