// browsercheck.js: loads an HTML report in headless Chromium over the
// DevTools protocol (a pipe, no port) with the network blocked, and prints
// one JSON object: each chart container's state, JavaScript errors,
// dialogs, network requests other than the file itself, and the page text.
// It saves a full-page screenshot, with CHART_SHOTS=1 one per chart, and
// with SLICE_SHOTS=1 the page in slices a screen high.
//
// Usage: node browsercheck.js CHROMIUM FILE.html SHOT.png
// Used by browser_test.go; needs no npm package.
"use strict";
const { spawn } = require("child_process");
const fs = require("fs");
const path = require("path");

const [chromium, file, shot] = process.argv.slice(2);
const url = "file://" + path.resolve(file);
const profile = fs.mkdtempSync(path.join(require("os").tmpdir(), "hr-chromium-"));
const proc = spawn(chromium, [
  "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--mute-audio",
  "--no-first-run", "--no-default-browser-check", "--disable-extensions",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
  "--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND",
  "--user-data-dir=" + profile, "--remote-debugging-pipe", "about:blank",
], { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] });
let stderr = "";
proc.stdio[2].on("data", (d) => { stderr += d; });
// Chromium gone before the check finished (a crash, the OOM killer):
// say so rather than let node exit quietly with nothing pending.
// Once the check has asked it to close, its exit is the expected end (it may
// exit before it answers Browser.close).
let finished = false, closing = false;
proc.on("exit", (code, signal) => {
  if (!finished && closing) { finish(0); return; }
  if (!finished) { out.fatal = "chromium exited before the check finished (code " + code + ", signal " + signal + ")"; finish(1); }
});

const out = { errors: [], console_errors: [], dialogs: [], requests: [], charts: [], text: "" };
let nextId = 1;
const pending = new Map();
const waiters = [];
let buf = Buffer.alloc(0);
proc.stdio[4].on("data", (chunk) => {
  buf = Buffer.concat([buf, chunk]);
  let i;
  while ((i = buf.indexOf(0)) >= 0) {
    const msg = JSON.parse(buf.subarray(0, i).toString("utf8"));
    buf = buf.subarray(i + 1);
    if (msg.id && pending.has(msg.id)) {
      const { resolve, reject } = pending.get(msg.id);
      pending.delete(msg.id);
      msg.error ? reject(new Error(JSON.stringify(msg.error))) : resolve(msg.result);
    } else if (msg.method) {
      onEvent(msg);
    }
  }
});

function send(method, params = {}, sessionId) {
  const id = nextId++;
  const msg = { id, method, params };
  if (sessionId) msg.sessionId = sessionId;
  proc.stdio[3].write(JSON.stringify(msg) + "\0");
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}

let session;
function onEvent(msg) {
  const p = msg.params || {};
  switch (msg.method) {
    case "Runtime.exceptionThrown":
      out.errors.push((p.exceptionDetails.exception && p.exceptionDetails.exception.description) || p.exceptionDetails.text);
      break;
    case "Runtime.consoleAPICalled":
      if (p.type === "error" || p.type === "assert") out.console_errors.push(p.args.map((a) => a.value || a.description).join(" "));
      break;
    case "Log.entryAdded":
      if (p.entry.level === "error") out.console_errors.push(p.entry.text + (p.entry.url ? " " + p.entry.url : ""));
      break;
    case "Page.javascriptDialogOpening":
      out.dialogs.push(p.type + ": " + p.message);
      send("Page.handleJavaScriptDialog", { accept: true }, session).catch(() => {});
      break;
    case "Network.requestWillBeSent":
      if (!p.request.url.startsWith("file:") && !p.request.url.startsWith("data:") && p.request.url !== "about:blank") out.requests.push(p.request.url);
      break;
  }
  for (const w of waiters.splice(0)) {
    if (w.method === msg.method) w.resolve(p); else waiters.push(w);
  }
}
const waitFor = (method, ms) => new Promise((resolve, reject) => {
  waiters.push({ method, resolve });
  setTimeout(() => reject(new Error("timed out waiting for " + method)), ms);
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const inspect = `(() => {
  const charts = [...document.querySelectorAll(".chart")].map((el) => {
    const canvas = el.querySelector("canvas");
    let painted = 0;
    if (canvas && canvas.width > 0 && canvas.height > 0) {
      const d = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
      for (let i = 3; i < d.length; i += 4 * 7) if (d[i] !== 0) painted++;
    }
    // What ECharts was asked to draw: legends, axes, and whether any
    // series has a value to show.
    const inst = typeof echarts !== "undefined" && echarts.getInstanceByDom(el);
    const info = { legends: [], axes: [], has_data: false, series: 0 };
    if (inst) {
      const o = inst.getOption();
      for (const l of o.legend || []) info.legends.push({ type: l.type || "plain", show: l.show !== false });
      for (const dim of ["xAxis", "yAxis"]) for (const a of o[dim] || []) info.axes.push({ dim, type: a.type || "", name: a.name || "" });
      const value = (d) => Array.isArray(d) ? value(d[d.length - 1]) : (d && typeof d === "object") ? value(d.value) : d;
      for (const s of o.series || []) {
        info.series++;
        for (const d of s.data || []) {
          const v = value(d);
          if (typeof v === "number" && isFinite(v) && (v !== 0 || s.type === "heatmap")) info.has_data = true;
        }
      }
    }
    return Object.assign({ id: el.id, canvas: !!canvas, svg: !!el.querySelector("svg"), painted, text: el.textContent,
      height: el.getBoundingClientRect().height }, info);
  });
  return JSON.stringify({ charts, text: document.body.innerText, title: document.title,
    pwned: document.body.hasAttribute("data-pwned") || document.title === "pwned" });
})()`;

(async () => {
  const { targetId } = await send("Target.createTarget", { url: "about:blank" });
  ({ sessionId: session } = await send("Target.attachToTarget", { targetId, flatten: true }));
  for (const m of ["Runtime.enable", "Log.enable", "Page.enable", "Network.enable"]) await send(m, {}, session);
  await send("Emulation.setDeviceMetricsOverride", { width: 1280, height: 900, deviceScaleFactor: 1, mobile: false }, session);
  const loaded = waitFor("Page.loadEventFired", 30000);
  await send("Page.navigate", { url }, session);
  await loaded;
  await sleep(800);
  const res = await send("Runtime.evaluate", { expression: inspect, returnByValue: true }, session);
  Object.assign(out, JSON.parse(res.result.value));
  const m = await send("Page.getLayoutMetrics", {}, session);
  const size = m.cssContentSize || m.contentSize;
  const full = await send("Page.captureScreenshot", { format: "png", captureBeyondViewport: true,
    clip: { x: 0, y: 0, width: size.width, height: Math.min(size.height, 16000), scale: 1 } }, session);
  fs.writeFileSync(shot, Buffer.from(full.data, "base64"));
  if (process.env.SLICE_SHOTS) {
    // The page in slices a screen high, for reading it as a planner would.
    for (let y = 0, i = 0; y < Math.min(size.height, 16000); y += 1400, i++) {
      const s = await send("Page.captureScreenshot", { format: "png", captureBeyondViewport: true,
        clip: { x: 0, y, width: size.width, height: Math.min(1400, size.height - y), scale: 1 } }, session);
      fs.writeFileSync(shot.replace(/\.png$/, "") + "-slice-" + String(i).padStart(2, "0") + ".png", Buffer.from(s.data, "base64"));
    }
  }
  if (process.env.CHART_SHOTS) {
    for (const c of out.charts) {
      const r = await send("Runtime.evaluate", { expression: `JSON.stringify(document.getElementById(${JSON.stringify(c.id)}).closest("figure").getBoundingClientRect().toJSON())`, returnByValue: true }, session);
      const b = JSON.parse(r.result.value);
      const s = await send("Page.captureScreenshot", { format: "png", captureBeyondViewport: true,
        clip: { x: b.x + window_scroll(), y: b.y, width: b.width, height: b.height, scale: 1 } }, session);
      fs.writeFileSync(shot.replace(/\.png$/, "") + "-" + c.id + ".png", Buffer.from(s.data, "base64"));
    }
  }
  closing = true;
  await send("Browser.close").catch(() => {});
})().then(() => finish(0), (e) => { out.fatal = String(e && e.stack || e); finish(1); });

function window_scroll() { return 0; }

function finish(code) {
  if (finished) return;
  finished = true;
  try { proc.kill(); } catch (e) { /* gone */ }
  try { fs.rmSync(profile, { recursive: true, force: true }); } catch (e) { /* ignore */ }
  if (code) out.stderr = stderr.slice(-2000);
  process.stdout.write(JSON.stringify(out) + "\n");
  process.exit(code);
}
setTimeout(() => { out.fatal = "timed out"; finish(1); }, 90000).unref();
