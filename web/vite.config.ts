/// <reference types="vitest/config" />
/**
 * The PWA build: hashed, immutable assets under /assets, plus the service worker at /sw.js (not
 * hashed: the browser checks it for updates at its fixed address, P-26; built on its own into one
 * classic script, build/service-worker.ts), each text file with a precompressed `.br` and `.gz`
 * copy beside it.
 */
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";
import { fileURLToPath } from "node:url";
import { precompress } from "./build/precompress.ts";
import { serviceWorker } from "./build/service-worker.ts";

export default defineConfig({
  // Brotli and gzip copies of the build's text files: what goes over the wire (static.ts).
  plugins: [react(), serviceWorker(fileURLToPath(new URL("src/sw/service-worker.ts", import.meta.url))), precompress()],
  resolve: { conditions: ["collie-source"] },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    assetsInlineLimit: 0, // no data: URLs, so the CSP can stay `default-src 'self'`
    rollupOptions: {
      input: {
        main: fileURLToPath(new URL("index.html", import.meta.url)),
      },
      output: {
        entryFileNames: "assets/[name]-[hash].js",
      },
    },
  },
  test: {
    environment: "jsdom",
    include: ["test/**/*.test.{ts,tsx}"],
  },
});
