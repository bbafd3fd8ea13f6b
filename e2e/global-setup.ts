/** Builds the PWA once before the journeys (the daemon serves web/dist). */
import { execFileSync } from "node:child_process";
import { join } from "node:path";

export default function globalSetup(): void {
  const root = join(import.meta.dirname, "..");
  execFileSync(process.execPath, [join(root, "node_modules/vite/bin/vite.js"), "build", "--logLevel", "warn"], { cwd: join(root, "web"), stdio: "inherit" });
}
