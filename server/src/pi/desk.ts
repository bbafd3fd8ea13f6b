/**
 * The Pi desk (docs/pi.md): the durable agent that shows every running `pi`, started by Collie the
 * first time a `pi` asks for it (`POST /pi` on the admin socket) and stopped with Collie. It runs
 * as a child process (the SDK's `sdk/src/pi/desk-main.ts`), on two sockets in `<state>/pi/`: its
 * durable socket, which Collie attaches as the agent `pi`, and the link socket the `pi` processes
 * connect to. It takes writes from this Collie's process alone (`writesOnlyFrom`, S-7).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { AgentSource } from "../sources/sources.ts";

const DESK_MAIN = fileURLToPath(new URL("../../../sdk/src/pi/desk-main.ts", import.meta.url));
/** The agent's name on the phone, unless sources.json uses it (then `pi-desk`, `pi-desk-2`, …). */
export const PI_AGENT_NAME = "pi";
/** How long the desk gets to start (Node and the SDK on a busy machine). */
const START_MS = 60_000;
/** How long it gets to stop on SIGTERM before it is killed. */
const STOP_MS = 3000;

export interface PiDeskPlace {
  /** The durable socket Collie reads. */
  socket: string;
  /** The link socket a `pi` connects to. */
  link: string;
}

/** The desk's sockets in the state directory. */
export function piDeskPlace(stateDir: string): PiDeskPlace {
  const dir = join(stateDir, "pi");
  return { socket: join(dir, "desk.sock"), link: join(dir, "link.sock") };
}

/** The desk's name: `pi`, unless an agent of sources.json has it. */
export function piAgentName(taken: ReadonlySet<string>): string {
  if (!taken.has(PI_AGENT_NAME)) return PI_AGENT_NAME;
  for (let n = 1; ; n++) {
    const name = n === 1 ? "pi-desk" : `pi-desk-${n}`;
    if (!taken.has(name)) return name;
  }
}

/** Starts the desk on demand, once, and again if it died; stops it with Collie. */
export class PiDeskProcess {
  readonly place: PiDeskPlace;
  readonly #stateDir: string;
  readonly #log: (line: string) => void;
  #child: ChildProcess | null = null;
  #starting: Promise<void> | null = null;
  #stopping = false;

  constructor(stateDir: string, log: (line: string) => void) {
    this.#stateDir = stateDir;
    this.place = piDeskPlace(stateDir);
    this.#log = log;
  }

  /** The desk's durable socket as an agent source. */
  source(name: string): AgentSource {
    return { name, endpoint: { kind: "socket", path: this.place.socket }, key: `pi-desk:${this.place.socket}` };
  }

  get running(): boolean {
    return this.#child !== null && this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** Resolves once the desk listens; starts it when it does not run. */
  ensure(): Promise<void> {
    if (this.running && !this.#starting) return Promise.resolve();
    return (this.#starting ??= this.#start().finally(() => {
      this.#starting = null;
    }));
  }

  async #start(): Promise<void> {
    const dir = join(this.#stateDir, "pi");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    const child = spawn(process.execPath, [
      "--conditions=collie-source", "--disable-warning=ExperimentalWarning", DESK_MAIN,
      "--socket", this.place.socket, "--link", this.place.link, "--state", dir, "--writes-only-from", String(process.pid),
    ], {
      // stdin is a pipe the desk watches: if Collie dies, the desk goes with it.
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.#child = child;
    child.stdin!.on("error", () => {});
    createInterface({ input: child.stderr! }).on("line", (line) => this.#log(line.slice(0, 500)));
    const lines = createInterface({ input: child.stdout! });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error("the Pi desk did not start in time"));
      }, START_MS);
      timer.unref();
      const onExit = (code: number | null) => {
        clearTimeout(timer);
        reject(new Error(`the Pi desk exited (${code}) before it was ready`));
      };
      child.once("exit", onExit);
      lines.on("line", (line) => {
        try {
          if ((JSON.parse(line) as { ready?: boolean }).ready === true) {
            clearTimeout(timer);
            child.off("exit", onExit);
            resolve();
          }
        } catch {
          // not a status line
        }
      });
    });
    child.once("exit", (code, signal) => {
      if (this.#child === child) this.#child = null;
      if (!this.#stopping) this.#log(`the Pi desk stopped (${signal ?? code}); the next pi to link starts it again`);
    });
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    const child = this.#child;
    this.#child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    const kill = setTimeout(() => child.kill("SIGKILL"), STOP_MS);
    await gone;
    clearTimeout(kill);
  }
}
