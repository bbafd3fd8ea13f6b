/**
 * How `collie serve` stops (the sockets issue): on SIGTERM or SIGINT it closes the daemon and the
 * children it started, and exits within a few seconds whatever state its sockets are in; if the
 * close has not finished by the deadline it exits anyway, and a second signal exits at once. A
 * daemon that stops listening but never exits keeps its example agent and its port's clients
 * hanging, and a service manager waits on it.
 */
export const SHUTDOWN_DEADLINE_MS = 5000;

export interface ShutdownOptions {
  log?: (line: string) => void;
  deadlineMs?: number;
  exit?: (code: number) => void;
  /** Where the signals come from (a test passes an emitter). */
  signals?: Pick<NodeJS.Process, "on">;
}

/** Runs every step of `stop` (each even if an earlier one fails), then exits 0; see above. */
export function stopOnSignals(stop: () => Promise<unknown>[], opts: ShutdownOptions = {}): void {
  const log = opts.log ?? ((line: string) => console.error(`collie: ${line}`));
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  const source = opts.signals ?? process;
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      log(`${signal} again: exiting now`);
      exit(1);
      return;
    }
    stopping = true;
    log(`${signal}: stopping (a second ${signal} exits at once)`);
    const timer = setTimeout(() => {
      log(`stopping took longer than ${Math.round((opts.deadlineMs ?? SHUTDOWN_DEADLINE_MS) / 1000)} s: exiting anyway`);
      exit(1);
    }, opts.deadlineMs ?? SHUTDOWN_DEADLINE_MS);
    timer.unref();
    void Promise.allSettled(stop()).then((results) => {
      clearTimeout(timer);
      const failed = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
      for (const f of failed) log(`while stopping: ${f.reason instanceof Error ? f.reason.message : String(f.reason)}`);
      exit(failed.length === 0 ? 0 : 1);
    });
  };
  source.on("SIGINT", onSignal);
  source.on("SIGTERM", onSignal);
}
