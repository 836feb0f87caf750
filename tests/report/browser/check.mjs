// Opens tinylm's report.html and SVG figures in headless Chromium (Debian's package,
// driven by playwright-core) and checks what a reader would see:
//   - no console errors, no page errors, no failed requests;
//   - the report has its sections and inline figures (loss curves, attention maps) and
//     a non-empty sample;
//   - in every figure, no two text labels overlap and none is cut off by the figure's
//     edge (the report's figures and each --svg file, e.g. a 256-token attention map);
//   - a full-page screenshot of the report is saved.
// Usage: node check.mjs --report RUN/report.html --screenshot OUT.png [--svg FILE.svg ...]
// Prints one line per check and exits 1 if any failed.
import { chromium } from "playwright-core";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const opt = { svg: [] };
for (let i = 0; i < args.length; i += 2) {
  const key = args[i].replace(/^--/, "");
  if (key === "svg") opt.svg.push(args[i + 1]);
  else opt[key] = args[i + 1];
}

let failures = 0;
function check(ok, what, detail = "") {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}${detail ? ": " + detail : ""}`);
  if (!ok) failures++;
}

// In the page: every <svg>'s text boxes, pairwise overlaps and boxes outside the figure.
function labelProblems() {
  const problems = [];
  document.querySelectorAll("svg").forEach((svg, s) => {
    const frame = svg.getBoundingClientRect();
    const scale = frame.width / svg.viewBox.baseVal.width || 1;
    const tol = 1.0 * scale;  // 1 figure pixel: glyph boxes may touch
    const boxes = [...svg.querySelectorAll("text")]
      .filter((t) => t.textContent.trim() !== "")
      .map((t) => ({ r: t.getBoundingClientRect(), text: t.textContent }));
    for (const b of boxes) {
      if (b.r.left < frame.left - tol || b.r.right > frame.right + tol ||
          b.r.top < frame.top - tol || b.r.bottom > frame.bottom + tol)
        problems.push(`figure ${s}: "${b.text}" is cut off by the figure's edge`);
    }
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i].r, b = boxes[j].r;
        const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (w > tol && h > tol)
          problems.push(`figure ${s}: "${boxes[i].text}" overlaps "${boxes[j].text}"`);
      }
    }
  });
  return problems;
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("requestfailed", (r) => errors.push(`request failed: ${r.url()}`));

  await page.goto(pathToFileURL(opt.report).href, { waitUntil: "load" });
  check(errors.length === 0, "report: no console errors", errors.join(" | "));
  for (const id of ["loss", "samples", "attention", "model", "config"])
    check(await page.locator(`section#${id}`).count() === 1, `report: section "${id}"`);
  const lossFigures = await page.locator("section#loss svg").count();
  check(lossFigures === 1, "report: loss curves figure", `${lossFigures} svg`);
  const attentionCells = await page.locator("section#attention svg rect").count();
  check(attentionCells > 10, "report: attention heatmaps drawn", `${attentionCells} rects`);
  const sample = (await page.locator("section#samples pre").first().textContent()) ?? "";
  check(sample.trim().length > 0, "report: a sample is shown", JSON.stringify(sample.slice(0, 40)));
  const tables = await page.locator("section#model pre").textContent();
  check(/total/.test(tables ?? ""), "report: parameter table shown");
  const problems = await page.evaluate(labelProblems);
  check(problems.length === 0, "report: figure labels readable", problems.slice(0, 5).join("; "));
  await page.screenshot({ path: opt.screenshot, fullPage: true });
  console.log(`screenshot: ${opt.screenshot}`);

  for (const file of opt.svg) {
    errors.length = 0;
    await page.goto(pathToFileURL(file).href, { waitUntil: "load" });
    const p = await page.evaluate(labelProblems);
    check(p.length === 0 && errors.length === 0, `${file}: labels readable`,
          [...errors, ...p.slice(0, 5)].join("; "));
  }
} finally {
  await browser.close();
}
process.exit(failures ? 1 : 0);
