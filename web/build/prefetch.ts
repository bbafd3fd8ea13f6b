/**
 * A Vite plugin that names in index.html, as `<link rel="prefetch">`, every file of the build the
 * first screen does not load: the chunks of the screens loaded on demand (App.tsx) and their CSS.
 * The browser fetches them at low priority once the page is up, so opening a chat does not wait
 * for its code; and the service worker, which keeps what index.html names (its precache), has them
 * for an offline start (P-26). The entry and what it imports stay as they were: script and
 * modulepreload, the only files the first screen waits for (issue 31).
 */
import type { Plugin } from "vite";

/** What the plugin reads of a chunk of the bundle (a Rollup/Rolldown output chunk). */
export interface ChunkInfo {
  type: "chunk" | "asset";
  fileName: string;
  isEntry?: boolean;
  imports?: readonly string[];
  viteMetadata?: { importedCss: Set<string> };
}

/** The files of the bundle that the entry does not load at start, in a stable order. */
export function laterFiles(bundle: Record<string, ChunkInfo>): string[] {
  const chunks = Object.values(bundle).filter((c) => c.type === "chunk");
  const byFile = new Map(chunks.map((c) => [c.fileName, c]));
  const initial = new Set<string>();
  const visit = (file: string) => {
    if (initial.has(file)) return;
    initial.add(file);
    const chunk = byFile.get(file);
    for (const css of chunk?.viteMetadata?.importedCss ?? []) initial.add(css);
    for (const imported of chunk?.imports ?? []) visit(imported);
  };
  for (const c of chunks) if (c.isEntry) visit(c.fileName);
  const later = new Set<string>();
  for (const c of chunks) {
    if (initial.has(c.fileName)) continue;
    later.add(c.fileName);
    for (const css of c.viteMetadata?.importedCss ?? []) if (!initial.has(css)) later.add(css);
  }
  return [...later].sort();
}

export function prefetchLater(): Plugin {
  let base = "/";
  return {
    name: "collie-prefetch-later",
    apply: "build",
    configResolved(config) {
      base = config.base;
    },
    transformIndexHtml: {
      order: "post",
      handler(_html, ctx) {
        if (!ctx.bundle) return;
        return laterFiles(ctx.bundle as unknown as Record<string, ChunkInfo>).map((file) => ({
          tag: "link",
          // `crossorigin` as the module scripts that import them have, so the fetch is the one they reuse.
          attrs: file.endsWith(".css") ? { rel: "prefetch", href: `${base}${file}`, as: "style" } : { rel: "prefetch", href: `${base}${file}`, as: "script", crossorigin: "" },
          injectTo: "head",
        }));
      },
    },
  };
}
