/**
 * `node:http`, required rather than imported (issue 18, docs/performance.md). An ESM `import` of a
 * builtin reads every one of its exports, and on Node 22 those of `node:http` include lazy getters
 * (`WebSocket`, `CloseEvent`, `MessageEvent`) that load undici, Node's fetch: about 10 MB of RSS
 * (its code, its WebAssembly HTTP parser, web streams) that Collie never uses. `require` returns
 * the module object without touching the getters.
 */
import { createRequire } from "node:module";

export const http = createRequire(import.meta.url)("node:http") as typeof import("node:http");
