/**
 * A Vite plugin that builds the service worker (P-26) on its own, into `/sw.js`: one classic
 * script with everything it imports inside. The worker shares the app's action layer and outbox
 * (issue 30: an answer from a notification goes through the same code and storage as a tap), and
 * built with the app those shared modules would become chunks that a classic worker cannot import
 * (module workers are not everywhere a phone runs Collie). Its file name has no hash: the browser
 * looks for updates at its fixed address.
 */
import { build, type LogLevel, type Plugin } from "vite";

export function serviceWorker(entry: string): Plugin {
  let outDir = "dist";
  let root = ".";
  let logLevel: LogLevel = "info";
  return {
    name: "collie-service-worker",
    apply: "build",
    configResolved(config) {
      outDir = config.build.outDir;
      root = config.root;
      logLevel = config.logLevel ?? "info";
    },
    // After the app's files are written and before `closeBundle`, where their compressed copies
    // are made (precompress.ts): the worker gets them too.
    async writeBundle() {
      await build({
        configFile: false,
        root,
        logLevel,
        publicDir: false,
        resolve: { conditions: ["collie-source"] },
        build: {
          outDir,
          emptyOutDir: false,
          copyPublicDir: false,
          rollupOptions: {
            input: { sw: entry },
            output: { format: "iife", entryFileNames: "sw.js" },
          },
        },
      });
    },
  };
}
