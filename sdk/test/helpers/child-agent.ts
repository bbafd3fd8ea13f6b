/**
 * Runs a fixture agent in a child process and talks to it in JSON lines: the child prints one JSON
 * object per line on stdout, the test writes commands as JSON lines on its stdin. A wait ends with
 * the message it waits for, or fails as soon as the child exits, or (where the caller gives one)
 * at a generous deadline that only turns a hang into a readable failure. The SDK's tests run
 * sdk/test/fixtures/agents/*.ts; the server's tests run theirs through this same class
 * (server/test/helpers/child-agent.ts).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** The folder of the fixture agents. */
export const AGENTS_DIR = fileURLToPath(new URL("../fixtures/agents/", import.meta.url));

/**
 * The flags a child runtime needs to run a `.ts` fixture quietly, workspace packages resolved to
 * their sources. Node also gets the condition from NODE_OPTIONS; Bun reads only the flag (S-3).
 */
export const NODE_FLAGS = ["--conditions=collie-source", "--disable-warning=ExperimentalWarning"];

export type Message = Record<string, unknown>;

export interface ChildAgentOptions {
  /** The folder of the fixture agents (default: the SDK's). */
  dir?: string;
  /** A wait fails after this long, with the last lines printed; none by default. */
  deadlineMs?: number;
}

interface Waiter {
  match: (m: Message) => boolean;
  resolve: (m: Message) => void;
  reject: (err: Error) => void;
}

const running = new Set<ChildAgent>();

export class ChildAgent {
  readonly child: ChildProcess;
  /** Every JSON line the child printed, in order. */
  readonly messages: Message[] = [];
  /** Resolves when the child has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  #stderr = "";
  #waiters: Waiter[] = [];
  #gone = false;
  readonly #deadlineMs: number | undefined;

  constructor(script: string, args: string[] = [], env: NodeJS.ProcessEnv = {}, opts: ChildAgentOptions = {}) {
    this.#deadlineMs = opts.deadlineMs;
    this.child = spawn(process.execPath, [...NODE_FLAGS, join(opts.dir ?? AGENTS_DIR, script), ...args], {
      env: { ...process.env, ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    running.add(this);
    this.child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      this.#stderr += chunk;
    });
    createInterface({ input: this.child.stdout! }).on("line", (line) => {
      let message: Message;
      try {
        message = JSON.parse(line) as Message;
      } catch {
        this.#stderr += `(stdout, not JSON) ${line}\n`;
        return;
      }
      this.messages.push(message);
      for (const w of [...this.#waiters]) {
        if (w.match(message)) {
          this.#waiters.splice(this.#waiters.indexOf(w), 1);
          w.resolve(message);
        }
      }
    });
    this.exited = new Promise((resolve) => {
      this.child.once("exit", (code, signal) => {
        this.#gone = true;
        running.delete(this);
        for (const w of this.#waiters.splice(0)) w.reject(this.#exitError(code, signal));
        resolve({ code, signal });
      });
    });
    // A write to stdin after the child died must not crash the test process.
    this.child.stdin!.on("error", () => {});
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** What the child wrote to stderr so far (for failure messages). */
  get stderr(): string {
    return this.#stderr;
  }

  /** The first message (already printed or still to come) that matches; rejects if the child exits first. */
  waitFor(match: (m: Message) => boolean): Promise<Message> {
    const seen = this.messages.find(match);
    if (seen) return Promise.resolve(seen);
    if (this.#gone) return Promise.reject(this.#exitError(this.child.exitCode, this.child.signalCode));
    const deadline = this.#deadlineMs;
    if (deadline === undefined) return new Promise((resolve, reject) => this.#waiters.push({ match, resolve, reject }));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        reject(new Error(`the fixture agent printed no matching line within ${deadline} ms; last lines:\n${this.messages.slice(-5).map((m) => JSON.stringify(m)).join("\n")}\nstderr:\n${this.#stderr}`));
      }, deadline);
      const waiter: Waiter = {
        match,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
        reject: (err) => {
          clearTimeout(timer);
          reject(err);
        },
      };
      this.#waiters.push(waiter);
    });
  }

  /** Every message printed so far that matches. */
  all(match: (m: Message) => boolean): Message[] {
    return this.messages.filter(match);
  }

  /** The first message that has `key`. */
  waitForKey(key: string): Promise<Message> {
    return this.waitFor((m) => key in m);
  }

  /** Writes one command line to the child's stdin. */
  send(command: Message): void {
    this.child.stdin!.write(`${JSON.stringify(command)}\n`);
  }

  /** Kills the child (SIGKILL by default) and waits until it is gone. */
  async kill(signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
    if (!this.#gone) this.child.kill(signal);
    await this.exited;
  }

  #exitError(code: number | null, signal: NodeJS.Signals | null): Error {
    return new Error(`the fixture agent exited (code ${code}, signal ${signal}) before the awaited message; stderr:\n${this.#stderr}`);
  }
}

/** Starts a fixture agent by its file name under sdk/test/fixtures/agents/. */
export function startAgent(script: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): ChildAgent {
  return new ChildAgent(script, args, env);
}

/** Kills every fixture agent still running (use in an `after` hook, so a failed test leaves none behind). */
export async function killAllAgents(): Promise<void> {
  await Promise.all([...running].map((a) => a.kill()));
}
