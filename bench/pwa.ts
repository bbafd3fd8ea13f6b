/**
 * The PWA: the production bundle (built into a scratch directory, so the shared web/dist is left
 * alone) and, in Debian's Chromium via Playwright, against the real daemon and a real agent:
 * - the time from opening a chat of `pwaItems` items (tap on the dashboard → hash change) to the
 *   first frame painted with its rows, and the part of it after the `view` message arrived;
 * - appending items at 4 Hz to the open chat: long tasks (> 50 ms) and frames that took longer
 *   than two vsyncs, counted by a requestAnimationFrame loop.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import { gzipSync } from "node:zlib";
import { Cluster } from "./cluster.ts";
import { BENCH_DIR, ROOT, round, sleep } from "./lib.ts";

export interface PwaResult {
  browser?: string;
  initialJsRaw: number;
  initialJsGzip: number;
  /**
   * What the daemon sends for the initial JS to a browser that accepts br and gzip (Chromium,
   * Safari, Firefox): the build's precompressed Brotli copies (server/src/routes/static.ts).
   */
  initialJsWire: number;
  cssGzip: number;
  assets: { file: string; raw: number; gzip: number; wire: number; initial: boolean }[];
  items: number;
  rowsDrawn?: number;
  drawRuns?: number;
  drawMs?: number;
  drawFirstMs?: number;
  drawAfterViewMs?: number;
  drawAllMs?: number[];
  drawSlowCpuMs?: number;
  append?: { seconds: number; appends: number; longTasks: number; longestTaskMs: number; droppedFrames: number; frames: number };
  /** The same frame count with the chat open and nothing arriving. */
  quiet?: { seconds: number; longTasks: number; longestTaskMs: number; droppedFrames: number; frames: number };
  error?: string;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
  ".webmanifest": "application/manifest+json", ".png": "image/png", ".svg": "image/svg+xml", ".json": "application/json",
};

function build(): string {
  const out = mkdtempSync(join(tmpdir(), "collie-bench-web-"));
  const r = spawnSync(process.execPath, [join(ROOT, "node_modules/vite/bin/vite.js"), "build", "--outDir", out, "--emptyOutDir", "--logLevel", "warn"], {
    cwd: join(ROOT, "web"),
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`vite build failed: ${r.stderr || r.stdout}`);
  return out;
}

function sizes(dist: string): Pick<PwaResult, "initialJsRaw" | "initialJsGzip" | "initialJsWire" | "cssGzip" | "assets"> {
  const html = readFileSync(join(dist, "index.html"), "utf8");
  // What the first route loads: the entry script and the chunks it preloads.
  const initial = new Set([...html.matchAll(/<script[^>]+src="\/([^"]+\.js)"|<link[^>]+rel="modulepreload"[^>]+href="\/([^"]+)"/g)].map((m) => m[1] ?? m[2]!));
  // The build's own .br/.gz copies are not assets of their own: they are what a file goes out as.
  const assets = readdirSync(join(dist, "assets")).filter((f) => !/\.(br|gz)$/.test(f)).map((f) => {
    const path = join(dist, "assets", f);
    const buf = readFileSync(path);
    const copy = [`${path}.br`, `${path}.gz`].find((c) => existsSync(c));
    const wire = copy ? statSync(copy).size : buf.length;
    return { file: `assets/${f}`, raw: buf.length, gzip: gzipSync(buf, { level: 9 }).length, wire, initial: initial.has(`assets/${f}`) };
  });
  const js = assets.filter((a) => a.initial && a.file.endsWith(".js"));
  return {
    initialJsRaw: js.reduce((n, a) => n + a.raw, 0),
    initialJsGzip: js.reduce((n, a) => n + a.gzip, 0),
    initialJsWire: js.reduce((n, a) => n + a.wire, 0),
    cssGzip: assets.filter((a) => a.file.endsWith(".css")).reduce((n, a) => n + a.gzip, 0),
    assets,
  };
}

/** Runs in the page before the app: notes when the snapshot and each view arrive, counts items. */
const PAGE_PROBE = `
(() => {
  const Native = window.WebSocket;
  window.__bench = { snapshotAt: 0, viewAt: 0, items: 0, longTasks: [] };
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (e) => {
        const head = typeof e.data === "string" ? e.data.slice(0, 20) : "";
        if (head.startsWith('{"type":"snapshot"')) window.__bench.snapshotAt = performance.now();
        else if (head.startsWith('{"type":"view"')) window.__bench.viewAt = performance.now();
        else if (head.startsWith('{"type":"item"')) window.__bench.items++;
      });
    }
  };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__bench.longTasks.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: "longtask", buffered: true });
})();
`;

/** In the page: opens the chat by its hash and resolves once a frame with its rows was produced. */
const OPEN_CHAT = `async (hash) => {
  const b = window.__bench;
  const rowsNow = () => document.querySelectorAll(".chat-items .row-slot").length;
  const t0 = performance.now();
  location.hash = hash;
  await new Promise((resolve) => {
    const observer = new MutationObserver(() => check());
    const check = () => {
      if (rowsNow() > 0) {
        observer.disconnect();
        resolve();
      }
    };
    observer.observe(document.body, { childList: true, subtree: true });
    check();
  });
  // The frame with the rows: after the next animation frame has been produced.
  await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  const t1 = performance.now();
  return { total: t1 - t0, afterView: b.viewAt > 0 ? t1 - b.viewAt : NaN, rows: rowsNow() };
}`;

/** In the page: counts frames, frames later than two vsyncs, long tasks and items for `ms` milliseconds. */
const WATCH_FRAMES = `async (ms) => {
  const b = window.__bench;
  const items0 = b.items;
  const start = performance.now();
  let last = start;
  let frames = 0;
  let dropped = 0;
  await new Promise((resolve) => {
    const frame = (t) => {
      frames++;
      const gap = t - last;
      if (gap > 2 * (1000 / 60) + 1) dropped += Math.round(gap / (1000 / 60)) - 1;
      last = t;
      if (t - start < ms) requestAnimationFrame(frame);
      else resolve();
    };
    requestAnimationFrame(frame);
  });
  const tasks = b.longTasks.filter((l) => l.start >= start);
  return { appends: b.items - items0, longTasks: tasks.length, longestTaskMs: Math.max(0, ...tasks.map((l) => l.duration)), droppedFrames: dropped, frames };
}`;

export async function runPwa(cfg: { pwaItems: number; hz: number }, log: (line: string) => void): Promise<PwaResult> {
  const dist = build();
  const result: PwaResult = { ...sizes(dist), items: cfg.pwaItems };
  log(`pwa: initial JS ${(result.initialJsWire / 1024).toFixed(1)} KB over the wire (${(result.initialJsGzip / 1024).toFixed(1)} KB gzip)`);
  const cluster = new Cluster("pwa");
  let browser: import("@playwright/test").Browser | null = null;
  const pageErrors: string[] = [];
  try {
    await cluster.startLoad({ agents: 1, panes: 1, procs: 1 });
    await cluster.loadProcs[0]!.call("fill", { items: cfg.pwaItems, textBytes: 200, updatesPerReply: 1, chunkWords: 12, streamRounds: 0 });
    await cluster.startDaemon({ panes: 1 });
    const agent = cluster.loadSources[0]!.name;
    const { chromium } = await import("@playwright/test");
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
        // The page comes from `route.fulfill` (the fresh build), which Chromium does not count as loopback.
        "--disable-features=LocalNetworkAccessChecks",
      ],
    });
    result.browser = `Chromium ${browser.version()}`;
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, serviceWorkers: "block" });
    // A paired phone: the device cookie the pairing page would have set (X-1).
    await context.addCookies([{ name: "collie_device", value: cluster.token, url: cluster.url, httpOnly: true, sameSite: "Strict" }]);
    // The page is the daemon's origin; everything that is not the API comes from the fresh build.
    await context.route(`${cluster.url}/**`, async (route) => {
      const url = new URL(route.request().url());
      if (url.pathname.startsWith("/api/")) return route.fallback();
      let file = join(dist, url.pathname === "/" ? "index.html" : url.pathname);
      try {
        if (!statSync(file).isFile()) file = join(dist, "index.html");
      } catch {
        file = join(dist, "index.html");
      }
      return route.fulfill({ status: 200, body: readFileSync(file), headers: { "content-type": TYPES[extname(file)] ?? "application/octet-stream" } });
    });
    await context.addInitScript(PAGE_PROBE);
    const page = await context.newPage();
    page.on("pageerror", (e) => pageErrors.push(e.message));
    page.on("console", (m) => {
      if (m.type() === "error") pageErrors.push(m.text());
    });
    const chat = `#/agent/${encodeURIComponent(agent)}/pane/pane-0`;

    let loads = 0;
    const drawOnce = async (): Promise<{ total: number; afterView: number; rows: number }> => {
      // A fresh page each time (a new query string: a hash change alone would keep the app and
      // the chat it already holds), then the dashboard, then the chat.
      await page.goto(`${cluster.url}/?load=${++loads}#/`);
      await page.waitForFunction("window.__bench.snapshotAt > 0");
      await sleep(300); // the dashboard has settled
      return page.evaluate<{ total: number; afterView: number; rows: number }>(`(${OPEN_CHAT})(${JSON.stringify(chat)})`);
    };

    const runs: { total: number; afterView: number; rows: number }[] = [];
    for (let i = 0; i < 6; i++) runs.push(await drawOnce());
    const sorted = runs.map((r) => r.total).sort((a, b) => a - b);
    result.drawRuns = runs.length;
    result.drawAllMs = runs.map((r) => round(r.total, 1));
    result.drawFirstMs = round(runs[0]!.total, 1);
    result.drawMs = round(sorted[Math.floor(sorted.length / 2)]!, 1);
    result.drawAfterViewMs = round(runs.map((r) => r.afterView).sort((a, b) => a - b)[Math.floor(runs.length / 2)]!, 1);
    result.rowsDrawn = runs[0]!.rows;
    log(`pwa: ${cfg.pwaItems}-item chat drawn in ${result.drawMs} ms (median of ${runs.length})`);

    const cdp = await context.newCDPSession(page);
    if (process.env.BENCH_PROFILE === "1") {
      // A CPU profile of one more open, for `node bench/profile-summary.ts`.
      await cdp.send("Profiler.enable");
      await cdp.send("Profiler.setSamplingInterval", { interval: 100 });
      await page.goto(`${cluster.url}/?load=${++loads}#/`);
      await page.waitForFunction("window.__bench.snapshotAt > 0");
      await sleep(300);
      await cdp.send("Profiler.start");
      await page.evaluate(`(${OPEN_CHAT})(${JSON.stringify(chat)})`);
      await sleep(300); // the second copy of the chat (the GET /api/…/panes reply) lands too
      const { profile } = await cdp.send("Profiler.stop");
      mkdirSync(join(BENCH_DIR, "results", "profiles"), { recursive: true });
      writeFileSync(join(BENCH_DIR, "results", "profiles", "pwa-open-chat.cpuprofile"), JSON.stringify(profile));
    }

    // The same on a CPU four times slower (a mid-range phone, roughly).
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
    const slow: number[] = [];
    for (let i = 0; i < 3; i++) slow.push((await drawOnce()).total);
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: 1 });
    result.drawSlowCpuMs = round(slow.sort((a, b) => a - b)[1]!, 1);

    // Appending at 4 Hz to the open chat.
    await drawOnce();
    await sleep(500);
    const seconds = 10;
    // The same window with nothing arriving: what this (shared, GPU-less) machine drops anyway.
    const quiet = await page.evaluate<{ appends: number; longTasks: number; longestTaskMs: number; droppedFrames: number; frames: number }>(`(${WATCH_FRAMES})(${seconds * 1000})`);
    result.quiet = { seconds, longTasks: quiet.longTasks, longestTaskMs: round(quiet.longestTaskMs, 1), droppedFrames: quiet.droppedFrames, frames: quiet.frames };
    await cluster.stream({ hz: cfg.hz, updatesPerReply: 1, chunkWords: 12, tickMs: 10 });
    const append = await page.evaluate<{ appends: number; longTasks: number; longestTaskMs: number; droppedFrames: number; frames: number }>(`(${WATCH_FRAMES})(${seconds * 1000})`);
    await cluster.stopStream();
    result.append = { seconds, ...append, longestTaskMs: round(append.longestTaskMs, 1) };
    log(`pwa: ${append.appends} appends in ${seconds} s, ${append.longTasks} long tasks, ${append.droppedFrames} missed vsyncs (${quiet.droppedFrames} with nothing arriving)`);
  } catch (err) {
    result.error = `${err instanceof Error ? err.message.split("\n")[0]! : String(err)}${pageErrors.length ? ` (page: ${pageErrors.slice(0, 3).join(" | ")})` : ""}`;
    log(`pwa: browser part failed: ${result.error}`);
  } finally {
    await browser?.close();
    await cluster.stop();
    rmSync(dist, { recursive: true, force: true });
  }
  return result;
}
