// browser-test.mjs: the MCP Apps browser test (run by scripts/apps.sh).
//
//   node browser-test.mjs HOST_URL MCP_URL SCREENSHOT.png
//
// Chromium (the machine's, never a downloaded one: $CHROMIUM, default
// /usr/bin/chromium), driven by playwright-core, opens the host page
// (serve.mjs), which renders show_incident_board's view in a sandboxed
// iframe. The test checks that the view got the tool input and result and
// drew the board, that its CSP blocks a connection the metadata does not
// declare, that the app-only tool is hidden from the model's list, clicks
// Acknowledge, and checks that acknowledge_alert's receipt reached the view.
// The caller checks the server side (the audit trail: one handler run).
import { chromium } from "playwright-core";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [hostURL, mcpURL, shot] = process.argv.slice(2);
const timeout = 20000;
const profile = mkdtempSync(join(tmpdir(), "mcpgen-apps-chromium-"));
const failures = [];
function check(ok, what) {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  if (!ok) failures.push(what);
}

const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync"],
  viewport: { width: 720, height: 420 },
});
try {
  const page = context.pages()[0] || (await context.newPage());
  page.on("console", (m) => { if (m.type() === "error") console.log(`browser console: ${m.text()}`); });
  await page.goto(hostURL);
  await page.waitForFunction(() => window.mcpHost && (window.mcpHost.ready || window.mcpHost.error), null, { timeout })
    .catch(() => {});
  const host = await page.evaluate(() => window.mcpHost);
  check(host.ready && !host.error, `the view initialized and got the tool's input and result` +
    (host.error ? `: ${host.error}` : host.ready ? "" : ` (not within ${timeout} ms; host log: ${host.log.join(" | ")})`));
  check(host.modelTools.includes("show_incident_board") && !host.modelTools.includes("acknowledge_alert"),
    `the model's tools hide the app-only tool: ${host.modelTools.join(", ")}`);

  const view = page.frameLocator("#view").frameLocator("iframe");
  const row = view.locator('li[data-alert="alert-payments-0001"]');
  await row.waitFor({ timeout }).catch(() => {});
  check(await row.count() === 1, "the view drew the board from the tool result");

  // The view's CSP comes from the resource's _meta.ui: the example declares no
  // connect domain, so a fetch to the MCP server itself must be blocked.
  const body = await view.locator("body").elementHandle({ timeout }).catch(() => null);
  const frame = body && await body.ownerFrame();
  const blocked = frame && await frame.evaluate((url) => new Promise((resolve) => {
    document.addEventListener("securitypolicyviolation", (e) => resolve(e.effectiveDirective));
    fetch(url, { method: "POST" }).then(() => resolve("allowed"), () => {});
    setTimeout(() => resolve("no violation"), 5000);
  }), mcpURL);
  check(blocked === "connect-src", `the view's CSP blocks an undeclared connection (${blocked})`);

  await row.locator("button").click({ timeout }).catch((e) => console.log(String(e)));
  const receipt = row.locator(".receipt[data-ack]");
  await receipt.waitFor({ timeout }).catch(() => {});
  const text = (await receipt.count()) ? await receipt.textContent() : "";
  check(/^ACK-\d{4} · receipt act_[0-9a-f]+ · committed$/.test(text), `the app-only tool's receipt reached the view: "${text}"`);
  const calls = await page.evaluate(() => window.mcpHost.appCalls.map((c) => c.name + (c.refused ? " (refused)" : "")));
  check(calls.length === 1 && calls[0] === "acknowledge_alert", `the view called acknowledge_alert once: ${calls}`);

  if (shot) {
    await page.screenshot({ path: shot, clip: { x: 0, y: 0, width: 720, height: 380 } });
    const size = statSync(shot).size;
    check(size < 150 * 1024, `screenshot ${shot}: ${size} bytes`);
  }
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
if (failures.length) {
  console.log(`apps browser test: ${failures.length} check(s) failed`);
  process.exit(1);
}
console.log("apps browser test: ok");
