// What the playground's browser checks share: flags, a pass/fail line per check, and a
// headless Chromium page (Debian's package, driven by playwright-core) that records every
// console error, page error and HTTP error it meets.
import { chromium } from "playwright-core";

// --name value pairs; exits 2 with `usage` when one of `required` is missing.
export function flags(required, usage) {
  const args = process.argv.slice(2);
  const opt = {};
  for (let i = 0; i < args.length; i += 2) opt[args[i].replace(/^--/, "")] = args[i + 1];
  if (required.some((name) => !opt[name])) {
    console.error(`usage: ${usage}`);
    process.exit(2);
  }
  return opt;
}

// check(ok, what, detail) prints one line and counts failures; failures() says how many.
export function checker() {
  let failures = 0;
  const check = (ok, what, detail = "") => {
    console.log(`${ok ? "ok  " : "FAIL"} ${what}${detail ? ": " + detail : ""}`);
    if (!ok) failures++;
    return ok;
  };
  return { check, failures: () => failures };
}

export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu"],
  });
}

// A page whose console errors, page errors and HTTP errors go into `errors` (failed
// requests are the caller's: a check may abort one on purpose).
export async function openPage(browser, errors) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(15000);
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("response", (r) => { if (r.status() >= 400) errors.push(`HTTP ${r.status()}: ${r.url()}`); });
  return page;
}
