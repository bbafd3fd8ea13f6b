/**
 * The desk fixture (fixtures/agents/desk.ts) in the test's own process: a `DurableCore` from
 * `createCore`, which the daemon reaches as an in-memory endpoint (agents/client.ts, `memory`), so
 * a route test needs neither a child process nor a socket. Its messages and commands are those of
 * the child-process desk (helpers/child-agent.ts), with the same `waitFor`, `all` and `send`.
 */
import { createCore, type DurableCore } from "@colliepwa/durable-sdk/core";
import type { Endpoint } from "../../src/agents/client.ts";
import { openDesk, type DeskCommand, type DeskSettings } from "../fixtures/agents/desk.ts";
import { DEADLINE_MS } from "./wait.ts";

export type Message = Record<string, unknown>;

interface Waiter {
  match: (m: Message) => boolean;
  resolve: (m: Message) => void;
}

/** The bearer token of every in-memory desk: createCore wants one (S-6), and the client sends it. */
const TOKEN = "memory-desk-token-0123456789abcdef";

export class MemoryDesk {
  readonly messages: Message[] = [];
  readonly core: DurableCore;
  readonly #command: (cmd: DeskCommand) => void;
  #waiters: Waiter[] = [];

  private constructor(core: DurableCore, command: (cmd: DeskCommand) => void) {
    this.core = core;
    this.#command = command;
  }

  static async open(settings: DeskSettings = {}): Promise<MemoryDesk> {
    let desk: MemoryDesk | undefined;
    const early: Message[] = [];
    const print = (m: Message) => (desk ? desk.#print(m) : early.push(m));
    const { core, command } = await openDesk((options) => Promise.resolve(createCore({ ...options, token: TOKEN })), settings, print);
    desk = new MemoryDesk(core, command);
    for (const m of early) desk.#print(m);
    return desk;
  }

  /** Where the daemon reaches it (a fixed source's endpoint). */
  get endpoint(): Endpoint {
    return { kind: "memory", core: this.core, token: TOKEN };
  }

  /** The first message (already printed or still to come) that matches, within the tests' deadline. */
  waitFor(match: (m: Message) => boolean): Promise<Message> {
    const seen = this.messages.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        reject(new Error(`the desk printed no matching message within ${DEADLINE_MS} ms; last:\n${this.messages.slice(-5).map((m) => JSON.stringify(m)).join("\n")}`));
      }, DEADLINE_MS);
      const waiter: Waiter = { match, resolve: (m) => { clearTimeout(timer); resolve(m); } };
      this.#waiters.push(waiter);
    });
  }

  /** Every message printed so far that matches. */
  all(match: (m: Message) => boolean): Message[] {
    return this.messages.filter(match);
  }

  /** Runs one of the desk's commands. */
  send(command: Message): void {
    this.#command(command as unknown as DeskCommand);
  }

  #print(m: Message): void {
    this.messages.push(m);
    const ready = this.#waiters.filter((w) => w.match(m));
    this.#waiters = this.#waiters.filter((w) => !ready.includes(w));
    for (const w of ready) w.resolve(m);
  }
}
