/**
 * Browser journeys (`e2e/*.spec.ts`) in Debian's Chromium against the real daemon and a real
 * agent. No test tool downloads its own browser: the executable is the system one.
 */
import { defineConfig } from "@playwright/test";

export default defineConfig({
  testDir: "e2e",
  globalSetup: "./e2e/global-setup.ts",
  outputDir: "test-results/playwright",
  testMatch: "**/*.spec.ts",
  fullyParallel: false,
  // Two workers: each journey starts its own Collie on a free port with its own state directory,
  // and a journey mostly waits (on the daemon, the agent, the page); the files' tests stay in order.
  workers: 2,
  // One retry in CI: a journey that passes on retry is reported as flaky, not hidden (test-all counts it).
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  use: {
    browserName: "chromium",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
      ],
    },
  },
});
