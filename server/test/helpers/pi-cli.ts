/**
 * The real `pi` CLI (node_modules/.bin/pi, @mariozechner/pi-coding-agent) with Collie's extension,
 * for the tests of docs/pi.md: run in a folder of its own, against the scripted model on loopback
 * (sdk/test/helpers/scripted-model.ts), Pi's settings in a folder of the test's (PI_CODING_AGENT_DIR),
 * offline, finding Collie by COLLIE_STATE_DIR. RPC mode (`--mode rpc`) is Pi's own headless mode
 * with a UI: the extension's terminal dialogs arrive as `extension_ui_request` lines and are
 * answered on stdin, as a terminal would; print mode (`-p`) has no UI.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
/** The real CLI, as `npm install` put it there. */
export const PI_BIN = `${ROOT}node_modules/.bin/pi`;
/** The extension, as docs/pi.md installs it. */
export const PI_EXTENSION = `${ROOT}sdk/src/pi/extension.ts`;
/** Pi loads its coding agent for seconds on a busy machine: waits on it get a wide hang guard. */
export const PI_DEADLINE_MS = 180_000;

export interface PiEnv {
  /** PI_CODING_AGENT_DIR: Pi's settings, models.json, sessions. */
  agentDir: string;
  /** COLLIE_STATE_DIR: where the extension finds Collie's admin socket. */
  collieState: string;
  extra?: Record<string, string>;
}

export type Line = Record<string, unknown>;

/** A `pi` process: its stdout as JSON lines (RPC) or text (print), its stderr, its exit. */
export class PiCli {
  readonly child: ChildProcess;
  readonly lines: Line[] = [];
  stdout = "";
  stderr = "";
  readonly exited: Promise<number | null>;
  #buffer = "";
  #waiters: { match: (l: Line) => boolean; resolve: (l: Line) => void; reject: (e: Error) => void }[] = [];

  constructor(args: string[], cwd: string, env: PiEnv) {
    this.child = spawn(process.execPath, [PI_BIN, "-e", PI_EXTENSION, "--provider", "scripted", "--model", "scripted", ...args], {
      cwd,
      env: {
        ...process.env,
        PI_CODING_AGENT_DIR: env.agentDir,
        PI_OFFLINE: "1",
        PI_TELEMETRY: "0",
        PI_SKIP_VERSION_CHECK: "1",
        COLLIE_STATE_DIR: env.collieState,
        NODE_OPTIONS: "",
        ...env.extra,
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child.stdin!.on("error", () => {});
    // Print mode reads piped stdin into its prompt and waits for its end.
    if (args.includes("-p")) this.child.stdin!.end();
    this.child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      this.stdout += chunk;
      this.#buffer += chunk;
      let at: number;
      // RPC framing is LF only (Pi's rpc.md): not readline, which also splits on U+2028.
      while ((at = this.#buffer.indexOf("\n")) >= 0) {
        const text = this.#buffer.slice(0, at);
        this.#buffer = this.#buffer.slice(at + 1);
        let line: Line;
        try {
          line = JSON.parse(text) as Line;
        } catch {
          continue;
        }
        this.lines.push(line);
        for (const w of [...this.#waiters]) {
          if (!w.match(line)) continue;
          this.#waiters.splice(this.#waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    });
    this.child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => this.child.once("exit", (code) => {
      for (const w of this.#waiters.splice(0)) w.reject(new Error(`pi exited (${code}) first; stderr:\n${this.stderr.slice(-2000)}`));
      resolve(code);
    }));
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** The first line (seen or to come) that matches. */
  waitFor(match: (l: Line) => boolean, what = "a matching line"): Promise<Line> {
    const seen = this.lines.find(match);
    if (seen) return Promise.resolve(seen);
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.reject(new Error(`pi has exited; waited for ${what}`));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`pi printed no ${what} in time; stderr:\n${this.stderr.slice(-2000)}`)), PI_DEADLINE_MS);
      timer.unref();
      this.#waiters.push({ match, resolve: (l) => (clearTimeout(timer), resolve(l)), reject: (e) => (clearTimeout(timer), reject(e)) });
    });
  }

  /** Lines after index `from` that match. */
  after(from: number, match: (l: Line) => boolean): Line[] {
    return this.lines.slice(from).filter(match);
  }

  /** An RPC command on stdin. */
  send(command: Line): void {
    this.child.stdin!.write(`${JSON.stringify(command)}\n`);
  }

  /** The extension's dialogs (select) asked so far. */
  dialogs(): Line[] {
    return this.lines.filter((l) => l.type === "extension_ui_request" && l.method === "select");
  }

  /** The extension's notes to the terminal so far. */
  notes(): string[] {
    return this.lines.filter((l) => l.type === "extension_ui_request" && l.method === "notify").map((l) => String(l.message));
  }

  async kill(signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    await this.exited;
  }
}

const running = new Set<PiCli>();

/** Starts `pi` with Collie's extension in `cwd`. */
export function startPi(args: string[], cwd: string, env: PiEnv): PiCli {
  const pi = new PiCli(args, cwd, env);
  running.add(pi);
  void pi.exited.then(() => running.delete(pi));
  return pi;
}

/** Kills every `pi` still running (an `after` hook: a failed test leaves none behind). */
export async function killAllPi(): Promise<void> {
  await Promise.all([...running].map((p) => p.kill()));
}
