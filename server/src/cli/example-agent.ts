/**
 * The embedded default (D-7): the bundled support-desk example on a private socket in Collie's
 * state directory, so a new user sees a working phone UI at once. Collie runs it while the sources
 * in force name its socket: with no sources.json (the fallback), or once `collie durable attach` or
 * `collie crew join` wrote the example into the first sources.json (docs/sources.md). While it is
 * wanted, an example that dies is started again after the fixed retry table's delays (issue #32):
 * Collie started it, so Collie brings it back, and the phone sees it return.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { AgentSource } from "../sources/sources.ts";
import { RETRY_DELAYS_MS } from "../agents/reconnect.ts";

const EXAMPLE = fileURLToPath(new URL("../../../sdk/examples/durable-member/main.ts", import.meta.url));

/** The example's name on the phone, when sources.json does not name it otherwise. */
export const EXAMPLE_NAME = "desk";

/** How long the example agent gets to stop on SIGTERM before it is killed. */
const EXAMPLE_STOP_MS = 3000;

/** The example's socket in a state directory: what a sources.json entry names to keep the example. */
export function exampleSocket(stateDir: string): string {
  return join(stateDir, "example", "desk.sock");
}

export interface ExampleOptions {
  /** Delays before each start again after the example died (the connections' retry table). */
  retryDelaysMs?: readonly number[];
  log?: (line: string) => void;
  now?: () => number;
}

/** Starts the example's process and resolves once it is ready; rejects when it exits first. */
async function spawnExample(stateDir: string): Promise<ChildProcess> {
  const dir = join(stateDir, "example");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const child = spawn(process.execPath, ["--conditions=collie-source", "--disable-warning=ExperimentalWarning", EXAMPLE, "--socket", exampleSocket(stateDir), "--store", join(dir, "desk.json")], {
    // stdin is a pipe the agent watches: if Collie dies, the example goes with it.
    stdio: ["pipe", "pipe", "inherit"],
    env: { ...process.env, DESK_EXIT_WITH_PARENT: "1" },
  });
  const lines = createInterface({ input: child.stdout! });
  await new Promise<void>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`the example agent exited (${code}) before it was ready`));
    child.once("exit", onExit);
    lines.on("line", (line) => {
      try {
        if ((JSON.parse(line) as { ready?: boolean }).ready) {
          child.off("exit", onExit);
          resolve();
        }
      } catch {
        // not a status line
      }
    });
  });
  return child;
}

/**
 * The bundled example agent, kept running while wanted (`keep(true)`), started again after the
 * retry table's delays when it dies; `keep(false)` and `stop()` end it.
 */
export class ExampleAgent {
  readonly source: AgentSource;
  readonly #stateDir: string;
  readonly #delays: readonly number[];
  readonly #log: (line: string) => void;
  readonly #now: () => number;
  #wanted = false;
  #child: ChildProcess | null = null;
  #starting: Promise<void> | null = null;
  #timer: NodeJS.Timeout | null = null;
  #attempt = 0;
  #readyAt = 0;

  constructor(stateDir: string, opts: ExampleOptions = {}) {
    this.#stateDir = stateDir;
    const socket = exampleSocket(stateDir);
    this.source = { name: EXAMPLE_NAME, endpoint: { kind: "socket", path: socket }, key: `socket:${socket}` };
    this.#delays = opts.retryDelaysMs ?? RETRY_DELAYS_MS;
    this.#log = opts.log ?? ((line) => console.log(`collie: ${line}`));
    this.#now = opts.now ?? Date.now;
  }

  /** The running process, if any (tests kill it as a crash would). */
  get child(): ChildProcess | null {
    return this.#child;
  }

  /** Whether the sources in force name the example: start it (and keep it up) or stop it. */
  async keep(wanted: boolean): Promise<void> {
    this.#wanted = wanted;
    if (wanted) return this.#start();
    this.#cancelRestart();
    await this.#end();
  }

  async stop(): Promise<void> {
    await this.keep(false);
  }

  #start(): Promise<void> {
    if (this.#child) return Promise.resolve();
    this.#cancelRestart();
    this.#starting ??= spawnExample(this.#stateDir).then(
      (child) => {
        this.#starting = null;
        if (!this.#wanted) {
          child.kill("SIGTERM");
          return;
        }
        this.#child = child;
        this.#readyAt = this.#now();
        child.once("exit", (code, signal) => this.#exited(child, code, signal));
      },
      (err: unknown) => {
        this.#starting = null;
        this.#log(`${(err as Error).message}`);
        this.#restartLater();
      },
    );
    return this.#starting;
  }

  #exited(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#child !== child) return;
    this.#child = null;
    if (!this.#wanted) return;
    // A run as long as the longest delay was a good one: the next failure starts the table again.
    if (this.#now() - this.#readyAt >= this.#delays.at(-1)!) this.#attempt = 0;
    this.#log(`the example agent exited (${signal ?? code}); starting it again`);
    this.#restartLater();
  }

  #restartLater(): void {
    if (!this.#wanted || this.#timer) return;
    const delay = this.#delays[Math.min(this.#attempt++, this.#delays.length - 1)]!;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (this.#wanted) void this.#start();
    }, delay);
    this.#timer.unref();
  }

  #cancelRestart(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  async #end(): Promise<void> {
    await this.#starting?.catch(() => undefined);
    const child = this.#child;
    this.#child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    // An agent that does not stop in time is killed: Collie's own shutdown must not wait on it.
    const kill = setTimeout(() => child.kill("SIGKILL"), EXAMPLE_STOP_MS);
    await gone;
    clearTimeout(kill);
  }
}
