/**
 * Runs a fixture agent (server/test/fixtures/agents/*.ts) in a child process: the SDK refuses
 * writes from the agent's own process tree (S-7), and the daemon runs in the test process, the
 * agent's parent, so its writes are allowed. The child prints one JSON object per line on stdout;
 * the test writes commands as JSON lines on its stdin. A wait ends with the awaited message, or
 * fails as soon as the child exits.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { DEADLINE_MS } from "./wait.ts";

export const AGENTS_DIR = fileURLToPath(new URL("../fixtures/agents/", import.meta.url));
/** Workspace packages resolve to their TypeScript sources under this condition. */
export const NODE_FLAGS = ["--conditions=collie-source", "--disable-warning=ExperimentalWarning"];

export type Message = Record<string, unknown>;

interface Waiter {
  match: (m: Message) => boolean;
  resolve: (m: Message) => void;
  reject: (err: Error) => void;
}

const running = new Set<ChildAgent>();

export class ChildAgent {
  readonly child: ChildProcess;
  readonly messages: Message[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  #stderr = "";
  #waiters: Waiter[] = [];
  #gone = false;

  constructor(script: string, args: string[] = [], env: NodeJS.ProcessEnv = {}) {
    this.child = spawn(process.execPath, [...NODE_FLAGS, join(AGENTS_DIR, script), ...args], {
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
    this.child.stdin!.on("error", () => {});
  }

  get pid(): number {
    return this.child.pid!;
  }

  get stderr(): string {
    return this.#stderr;
  }

  /** The first message (already printed or still to come) that matches. */
  waitFor(match: (m: Message) => boolean): Promise<Message> {
    const seen = this.messages.find(match);
    if (seen) return Promise.resolve(seen);
    if (this.#gone) return Promise.reject(this.#exitError(this.child.exitCode, this.child.signalCode));
    return new Promise((resolve, reject) => {
      // A deadline only turns a hang into a readable failure; nothing asserts on time.
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        reject(new Error(`the fixture agent printed no matching line within ${DEADLINE_MS} ms; last lines:\n${this.messages.slice(-5).map((m) => JSON.stringify(m)).join("\n")}\nstderr:\n${this.#stderr}`));
      }, DEADLINE_MS);
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

/** Starts a fixture agent and waits for its `{"ready": true, ...}` line. */
export async function startAgent(script: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<{ agent: ChildAgent; ready: Message }> {
  const agent = new ChildAgent(script, args, env);
  const ready = await agent.waitFor((m) => m.ready === true);
  return { agent, ready };
}

/** Kills every fixture agent still running (use in an `after` hook). */
export async function killAllAgents(): Promise<void> {
  await Promise.all([...running].map((a) => a.kill()));
}
