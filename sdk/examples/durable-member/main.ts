/**
 * The support desk example (S-36): every part of the SDK in one durable agent that runs with no
 * network. Run it with
 *
 *   node sdk/examples/durable-member/main.ts --socket $XDG_RUNTIME_DIR/collie/desk.sock
 *
 * and attach that socket in Collie's sources.json (README.md in this folder).
 *
 *   --socket <path>  the socket; default $COLLIE_DURABLE_SOCKET (S-5), the variable Collie reads too
 *   --store <file>   the desk's JSON store; default $DESK_STORE, else a file in the OS temp folder per user
 *   DESK_ASK_EXPIRY_MS  how long the invoice card waits before it times out (default 2 minutes)
 *
 * Prints one JSON line `{"ready":true,"socket":"…"}` once Collie can connect; SIGTERM or SIGINT
 * closes the socket and exits.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startDesk } from "./desk.ts";

const { values } = parseArgs({ options: { socket: { type: "string" }, store: { type: "string" } } });
// Per user, so two people on one machine never share (or read) each other's desk.
const defaultStore = join(tmpdir(), `collie-desk-${process.getuid?.() ?? "user"}`, "desk.json");
const expiry = Number(process.env.DESK_ASK_EXPIRY_MS);

const desk = await startDesk({
  ...(values.socket ? { socket: values.socket } : {}),
  storePath: values.store ?? process.env.DESK_STORE ?? defaultStore,
  ...(Number.isFinite(expiry) && expiry > 0 ? { askExpiryMs: expiry } : {}),
});
console.log(JSON.stringify({ ready: true, socket: desk.collie.socketPath }));

let closing = false;
const shutdown = (): void => {
  if (closing) return;
  closing = true;
  // The store is written at every change, so there is nothing to flush; open asks stay open (S-8).
  void desk.close().then(() => process.exit(0));
};
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);
// Started by Collie (the embedded default) with a pipe on stdin: when Collie dies, even by
// SIGKILL, the pipe closes and the desk goes too, instead of living on as an orphan.
if (process.env.DESK_EXIT_WITH_PARENT === "1") {
  process.stdin.on("end", shutdown);
  process.stdin.on("error", shutdown);
  process.stdin.resume();
}
