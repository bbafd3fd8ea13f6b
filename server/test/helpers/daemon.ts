/**
 * A real daemon for integration tests: `Daemon.create` with short long-polls and retry delays,
 * listening on 127.0.0.1 on a free port, reached with real HTTP (fetch) and a real WebSocket
 * (`start`); or not listening at all, reached through Fastify's `inject()` (`inject`): the same
 * routes, gate and schemas, no socket, for the route tests whose agents are in memory too
 * (helpers/memory-desk.ts).
 */
import { writeFileSync, renameSync } from "node:fs";
import type { AgentSummary, Snapshot } from "@colliepwa/shared";
import { Daemon, type DaemonOptions } from "../../src/daemon.ts";
import { until } from "./wait.ts";
import { authHeaders, DEVICE_TOKENS } from "./tokens.ts";
import { NO_NAMES } from "./resolver.ts";

export const TUNING = { waitMs: 1000, retryDelaysMs: [50, 100, 200] } as const;

const running = new Set<TestDaemon>();

export interface Reply<T = Record<string, unknown>> {
  status: number;
  body: T;
}

export class TestDaemon {
  readonly daemon: Daemon;
  readonly url: string;
  readonly port: number;
  /** Every line the daemon logged. */
  readonly logs: string[];
  /** The paired test device's token. */
  token = "";
  #closed = false;
  /** Reached through `app.inject()`, not listening. */
  readonly injected: boolean;

  private constructor(daemon: Daemon, url: string, logs: string[], injected = false) {
    this.daemon = daemon;
    this.url = url;
    this.port = Number(new URL(url).port);
    this.logs = logs;
    this.injected = injected;
  }

  /** A daemon that does not listen: every request goes through `app.inject()`. */
  static async inject(opts: StartOptions): Promise<TestDaemon> {
    // The gate answers only to its own host names: not listening, it has no loopback port, so
    // the injected requests name a host it is told to answer to, as a reverse proxy's would be.
    const { daemon, logs } = await create({ ...opts, extraHosts: [...(opts.extraHosts ?? []), INJECT_HOST] });
    await daemon.app.ready();
    return TestDaemon.#paired(new TestDaemon(daemon, INJECT_URL, logs, true));
  }

  static async start(opts: StartOptions): Promise<TestDaemon> {
    const { daemon, logs } = await create(opts);
    const url = await daemon.app.listen({ host: "127.0.0.1", port: opts.port ?? 0 });
    return TestDaemon.#paired(new TestDaemon(daemon, url, logs));
  }

  static #paired(t: TestDaemon): TestDaemon {
    const { daemon, url } = t;
    // Pair a device the way a phone does (a one-time code traded for a token), and use it.
    const paired = daemon.devices.pair(daemon.devices.createCode().code, "test phone", "test");
    if (!paired.ok) throw new Error("pairing the test device failed");
    t.token = paired.token;
    if (!t.injected) {
      DEVICE_TOKENS.set(url, paired.token);
      DEVICE_TOKENS.set(url.replace(/^http/, "ws"), paired.token);
    }
    running.add(t);
    return t;
  }

  /** The headers of a request through `inject()`: the gate's host and the paired device's token. */
  get injectHeaders(): Record<string, string> {
    return { host: INJECT_HOST, authorization: `Bearer ${this.token}` };
  }

  get wsUrl(): string {
    return this.url.replace(/^http/, "ws");
  }

  async get<T = Record<string, unknown>>(path: string): Promise<Reply<T>> {
    if (this.injected) {
      const res = await this.daemon.app.inject({ method: "GET", url: path, headers: this.injectHeaders });
      return { status: res.statusCode, body: res.json() as T };
    }
    const res = await fetch(`${this.url}${path}`, { headers: authHeaders(this.url) });
    return { status: res.status, body: (await res.json()) as T };
  }

  async post<T = Record<string, unknown>>(path: string, body: unknown): Promise<Reply<T>> {
    if (this.injected) {
      const res = await this.daemon.app.inject({
        method: "POST", url: path, payload: JSON.stringify(body),
        headers: { "content-type": "application/json", ...this.injectHeaders },
      });
      return { status: res.statusCode, body: res.json() as T };
    }
    const res = await fetch(`${this.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...authHeaders(this.url) }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as T };
  }

  async snapshot(): Promise<Snapshot> {
    return (await this.get<Snapshot>("/api/snapshot")).body;
  }

  async agent(name: string): Promise<AgentSummary | undefined> {
    return (await this.snapshot()).agents.find((a) => a.name === name);
  }

  /** Polls the snapshot until agent `name` satisfies `pred`; returns its row. */
  async waitAgent(name: string, pred: (a: AgentSummary) => boolean, what = "a matching state"): Promise<AgentSummary> {
    let last: AgentSummary | undefined;
    return until(async () => {
      last = await this.agent(name);
      return last && pred(last) ? last : undefined;
    }, () => `agent ${name}: ${what}; last seen ${JSON.stringify(last)}`);
  }

  waitState(name: string, state: AgentSummary["state"]): Promise<AgentSummary> {
    return this.waitAgent(name, (a) => a.state === state, `state ${state}`);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    running.delete(this);
    await this.daemon.close();
  }
}

/** What an injected daemon's `url` says: it has none (requests go through `app.inject()`). */
const INJECT_HOST = "collie.test";
const INJECT_URL = `http://${INJECT_HOST}`;

type StartOptions = { sources: DaemonOptions["sources"]; stateDir?: string; tuning?: DaemonOptions["tuning"]; port?: number; envSocket?: string; push?: DaemonOptions["push"]; connectionLimits?: DaemonOptions["connectionLimits"]; extraHosts?: string[]; heldLimits?: DaemonOptions["heldLimits"] };

async function create(opts: StartOptions): Promise<{ daemon: Daemon; logs: string[] }> {
  const logs: string[] = [];
  const daemon = await Daemon.create({
    sources: opts.sources,
    stateDir: opts.stateDir ?? ":memory:",
    log: (line) => logs.push(line),
    tuning: opts.tuning ?? { waitMs: TUNING.waitMs, retryDelaysMs: [...TUNING.retryDelaysMs] },
    ...(opts.envSocket !== undefined ? { envSocket: opts.envSocket } : {}),
    ...(opts.heldLimits ? { heldLimits: opts.heldLimits } : {}),
    // Push endpoint names resolve from a table, never through the machine's DNS (endpoints.ts).
    push: opts.push ?? { resolve: NO_NAMES },
    ...(opts.connectionLimits ? { connectionLimits: opts.connectionLimits } : {}),
    ...(opts.extraHosts ? { extraHosts: opts.extraHosts } : {}),
  });
  return { daemon, logs };
}

export async function closeAllDaemons(): Promise<void> {
  await Promise.all([...running].map((d) => d.close()));
}

/** Writes sources.json the way an editor that saves atomically does (temp file, then rename). */
export function writeSources(path: string, content: unknown): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  renameSync(tmp, path);
}

let ids = 0;
/** A fresh request id, as the phone makes one per tap (P-14). */
export function requestId(what = "req"): string {
  return `${what}-${process.pid}-${++ids}-${Math.random().toString(36).slice(2, 8)}`;
}
