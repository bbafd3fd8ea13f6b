/**
 * The Pi desk as a program (docs/pi.md): Collie starts it on the first `pi` that asks, with
 *
 *   node desk-main.ts --socket <durable socket> --link <link socket> --state <folder> [--writes-only-from <pid>]
 *
 * It prints one JSON line `{"ready":true,…}` once both sockets listen, and stops when its stdin
 * closes (Collie is gone) or on SIGTERM / SIGINT.
 */
import { parseArgs } from "node:util";
import { openPiDesk } from "./desk.ts";

const { values } = parseArgs({
  options: { socket: { type: "string" }, link: { type: "string" }, state: { type: "string" }, "writes-only-from": { type: "string" } },
});
if (!values.socket || !values.link) {
  process.stderr.write("usage: desk-main.ts --socket <path> --link <path> [--state <folder>] [--writes-only-from <pid>]\n");
  process.exit(2);
}
const writer = values["writes-only-from"] === undefined ? undefined : Number(values["writes-only-from"]);
const desk = await openPiDesk({
  socket: values.socket,
  link: values.link,
  ...(values.state ? { stateDir: values.state } : {}),
  ...(writer !== undefined ? { writesOnlyFrom: writer } : {}),
});
let closing = false;
const shutdown = (): void => {
  if (closing) return;
  closing = true;
  void desk.close().finally(() => process.exit(0));
};
// Before the ready line: whoever reads it may stop the desk at once, and must find it listening
// for that (the default would kill it with its socket and link files left behind).
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);
process.stdout.write(`${JSON.stringify({ ready: true, socket: desk.collie.socketPath, link: desk.linkPath })}\n`);
// Started with a pipe for stdin: when it closes, whoever started the desk is gone, and so is it.
process.stdin.on("end", shutdown);
process.stdin.on("error", shutdown);
process.stdin.resume();
