/**
 * The two helpers a bench child needs, in plain JavaScript so that daemon-entry.js (which must not
 * load Node's type stripper into the process whose memory it measures) and lib.ts share them.
 */

/**
 * Milliseconds on CLOCK_MONOTONIC. `process.hrtime` reads the system-wide monotonic clock, so two
 * processes on one machine can compare their readings: that is how a card's one-way latency from
 * the agent process to the phone process is measured.
 */
export function nowMs() {
  return Number(process.hrtime.bigint()) / 1e6;
}

/**
 * The child side of `Child` (lib.ts): answers commands with the handler's result; `exit` ends the
 * process. A child also exits when its parent goes away (the IPC channel closes).
 */
export function serveParent(handler) {
  process.on("message", (m) => {
    if (m.type === "exit") {
      void Promise.resolve(handler(m)).finally(() => process.exit(0));
      return;
    }
    Promise.resolve()
      .then(() => handler(m))
      .then(
        (value) => process.send?.({ replyTo: m.id, value }),
        (err) => process.send?.({ replyTo: m.id, error: err instanceof Error ? err.stack ?? err.message : String(err) }),
      );
  });
  process.on("disconnect", () => process.exit(0));
}
