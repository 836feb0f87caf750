// Opens tinylm serve's playground in headless Chromium (as check.mjs does) against a
// server of the addition model (vocabulary 0-9 + = <PAD> <EOS>, context 13), which cannot
// spell the page's English example prompt, and checks:
//   - the page loads without asking the server for anything it cannot answer (no console
//     errors, no HTTP errors): the prompt starts empty, and its placeholder says which
//     characters the model knows;
//   - "123+456=" (8 tokens) with the default max tokens (6, half the context) asks for
//     the 5 tokens left, and the answer comes back.
// Usage: node check_vocabulary.mjs --url http://127.0.0.1:PORT/
// Prints one line per check and exits 1 if any failed.
import { checker, flags, launch, openPage } from "./harness.mjs";

const opt = flags(["url"], "node check_vocabulary.mjs --url URL");
const { check, failures } = checker();

const browser = await launch();
try {
  const errors = [];
  const page = await openPage(browser, errors);
  page.on("requestfailed", (r) => errors.push(`request failed: ${r.url()}`));

  await page.goto(opt.url, { waitUntil: "load" });
  await page.waitForSelector("body[data-ready=true]", { state: "attached", timeout: 10000 });
  await page.waitForFunction(() => document.querySelector("#dist-for").textContent !== "");
  const info = await page.textContent("#model-info");
  check(/addition tokenizer/.test(info) && /context 13/.test(info), "page: describes the addition model", info);
  const prompt = await page.inputValue("#prompt");
  const placeholder = await page.getAttribute("#prompt", "placeholder");
  check(prompt === "" && /cannot spell/.test(placeholder) && /0123456789\+=/.test(placeholder),
        "page: an empty prompt, whose placeholder names the vocabulary", placeholder);
  check(errors.length === 0, "page: loads with no console or HTTP errors", errors.slice(0, 3).join(" | "));

  await page.fill("#temperature", "0");
  await page.fill("#prompt", "123+456=");
  const asked = JSON.parse(await page.textContent("#request-json")).max_tokens;
  await page.click("#generate");
  await page.waitForFunction(() => document.querySelector("#finish").textContent !== "\u2014" &&
                                   document.body.dataset.busy === "false");
  const sent = JSON.parse(await page.textContent("#request-json"));
  const finish = await page.textContent("#finish");
  check(asked === 6 && sent.max_tokens === 5 && finish !== "error",
        "generate: the default max tokens (6) is cut to the 5 tokens the prompt leaves",
        `max_tokens ${sent.max_tokens}, finish ${finish}`);
  check(errors.length === 0, "page: no console errors, page errors or failed requests",
        errors.slice(0, 5).join(" | "));
} catch (e) {
  check(false, "check_vocabulary.mjs", e.message);
} finally {
  await browser.close();
}
process.exit(failures() ? 1 : 0);
