/**
 * A Vite plugin that writes a Brotli (`.br`) and a gzip (`.gz`) copy next to every text file of
 * the build, so the daemon sends each browser the smallest copy it accepts without compressing on
 * every request (server/src/routes/static.ts). A copy that would not be smaller is not written.
 * No dependency: node:zlib.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { extname, join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import type { Plugin } from "vite";

/** The kinds of file worth compressing (images and fonts are compressed already). */
export const COMPRESSIBLE = new Set([".js", ".mjs", ".css", ".html", ".webmanifest", ".json", ".svg", ".txt", ".map"]);

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else yield path;
  }
}

/** Writes `<file>.br` and `<file>.gz` for every compressible file under `dir`; returns how many copies. */
export function precompressDir(dir: string): number {
  let written = 0;
  for (const file of [...files(dir)]) {
    if (!COMPRESSIBLE.has(extname(file))) continue;
    const raw = readFileSync(file);
    const br = brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } });
    const gz = gzipSync(raw, { level: 9 });
    if (br.length < raw.length) {
      writeFileSync(`${file}.br`, br);
      written++;
    }
    if (gz.length < raw.length) {
      writeFileSync(`${file}.gz`, gz);
      written++;
    }
  }
  return written;
}

export function precompress(): Plugin {
  let outDir = "dist";
  return {
    name: "collie-precompress",
    apply: "build",
    configResolved(config) {
      outDir = config.build.outDir.startsWith("/") ? config.build.outDir : join(config.root, config.build.outDir);
    },
    closeBundle() {
      precompressDir(outDir);
    },
  };
}
