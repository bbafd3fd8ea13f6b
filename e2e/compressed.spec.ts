/**
 * Speed on a real network (issue 21, item 17): Chromium accepts br, so the daemon sends the
 * build's Brotli copy of the app's script and stylesheet; what crosses the network is the
 * compressed size, within the goal (≤ 100 KB of initial JS).
 */
import { expect, openDashboard, test } from "./fixtures.ts";

test("the app's script and stylesheet arrive Brotli-compressed, the script under 100 KB on the wire", async ({ page }) => {
  const responses = new Map<string, { encoding: string | undefined; bytes: Promise<number> }>();
  page.on("response", (r) => {
    const path = new URL(r.url()).pathname;
    if (!path.startsWith("/assets/")) return;
    responses.set(path, { encoding: r.headers()["content-encoding"], bytes: r.request().sizes().then((s) => s.responseBodySize) });
  });
  await openDashboard(page);
  const script = [...responses].find(([p]) => p.endsWith(".js"));
  const style = [...responses].find(([p]) => p.endsWith(".css"));
  expect(script, "the app's script was loaded").toBeDefined();
  expect(style, "the app's stylesheet was loaded").toBeDefined();
  expect(script![1].encoding).toBe("br");
  expect(style![1].encoding).toBe("br");
  const wire = await script![1].bytes;
  expect(wire).toBeGreaterThan(0);
  expect(wire).toBeLessThanOrEqual(100 * 1024);
});
