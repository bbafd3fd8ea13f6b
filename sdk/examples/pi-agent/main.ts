/**
 * A Pi agent on your phone (S-35). Run it from the repository root with
 *
 *   node sdk/examples/pi-agent/main.ts --socket $XDG_RUNTIME_DIR/collie/pi.sock
 *
 * and add it to Collie with `collie durable attach pi --socket <that path>` (README.md here).
 *
 *   --socket <path>    the socket; default $COLLIE_DURABLE_SOCKET (S-5), the variable Collie reads too
 *   --cwd <folder>     where the tools work; default the current folder
 *   --sessions <dir>   where Pi saves the sessions; default $PI_CODING_AGENT_SESSION_DIR, else a
 *                      folder in the OS temp folder per user
 *   PI_PROVIDER, PI_MODEL, PI_API_KEY   a real model (default: pi-ai's faux provider, no network)
 *
 * Prints one JSON line `{"ready":true,"socket":"…","model":"…"}` once Collie can connect; SIGTERM
 * or SIGINT closes the socket and exits (a card still open stays open, S-8).
 */
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { startPiAgent } from "./agent.ts";

const { values } = parseArgs({ options: { socket: { type: "string" }, cwd: { type: "string" }, sessions: { type: "string" } } });
const cwd = resolve(values.cwd ?? process.cwd());
// Per user, so two people on one machine never read each other's sessions.
const sessionDir = resolve(values.sessions ?? process.env.PI_CODING_AGENT_SESSION_DIR ?? join(tmpdir(), `collie-pi-${process.getuid?.() ?? "user"}`, "sessions"));

const { collie, model } = await startPiAgent({ ...(values.socket ? { socket: values.socket } : {}), cwd, sessionDir });
console.log(JSON.stringify({ ready: true, socket: collie.socketPath, model }));

let closing = false;
const shutdown = (): void => {
  if (closing) return;
  closing = true;
  void collie.close().then(() => process.exit(0));
};
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);
