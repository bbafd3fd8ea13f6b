/**
 * `npm start` on a fresh checkout (D-4, D-7): when the phone app was never built, build it with
 * Vite before Collie listens, so the first page the user opens is the app, not a 503.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** Builds web/dist when its index.html is missing; true when it built. A failed build only warns. */
export async function buildWebIfMissing(root: string = ROOT, log: (line: string) => void = (l) => console.log(`collie: ${l}`)): Promise<boolean> {
  const web = join(root, "web");
  if (existsSync(join(web, "dist", "index.html"))) return false;
  const vite = [join(root, "node_modules", "vite", "bin", "vite.js"), join(web, "node_modules", "vite", "bin", "vite.js")].find((p) => existsSync(p));
  if (!vite) {
    log("the phone app is not built and Vite is not installed: run npm install, then npm run build -w web");
    return false;
  }
  log("the phone app is not built yet (web/dist is missing): building it now with vite build …");
  const code = await new Promise<number>((done) => {
    const child = spawn(process.execPath, [vite, "build"], { cwd: web, stdio: "inherit" });
    child.on("error", () => done(1));
    child.on("exit", (status) => done(status ?? 1));
  });
  if (code !== 0) {
    log(`building the phone app failed (exit ${code}); Collie starts anyway, build it with: npm run build -w web`);
    return false;
  }
  log("built the phone app into web/dist");
  return true;
}
