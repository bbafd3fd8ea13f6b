/**
 * What the ./pi tests share: a real Pi `Agent` on pi-ai's faux provider (Pi's own code path with a
 * scripted model), two tools that record what ran, and a reader that follows the phone's events.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Agent, type AgentTool } from "@mariozechner/pi-agent-core";
import { registerFauxProvider, Type, type FauxProviderRegistration, type FauxResponseStep, type TSchema } from "@mariozechner/pi-ai";
import {
  AuthStorage, createAgentSession, DefaultResourceLoader, ModelRegistry, SessionManager, SettingsManager,
  type AgentSession, type ExtensionFactory,
} from "@mariozechner/pi-coding-agent";
import type { FakePhone } from "../../src/testing/index.ts";
import type { Item, PaneEvent } from "../../src/wire/types.ts";

export interface PiTools {
  /** The risky one: each run appends its command here. */
  bash: AgentTool;
  /** The safe one. */
  readFile: AgentTool;
  /** Waits until `release()` or the run's abort: a tool that is still running when the test acts. */
  wait: AgentTool;
  ran: string[];
  release(): void;
  /** Resolves when `wait` has started. */
  waiting: Promise<void>;
}

/** A tool whose `execute` sees its parameters typed by the schema. */
const tool = <T extends TSchema>(def: AgentTool<T>): AgentTool<any> => def as AgentTool<any>;

export function piTools(): PiTools {
  const ran: string[] = [];
  let release = () => {};
  let started = () => {};
  const waiting = new Promise<void>((resolve) => (started = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const text = (t: string) => ({ content: [{ type: "text" as const, text: t }], details: {} });
  return {
    ran,
    release: () => release(),
    waiting,
    bash: tool({
      name: "bash",
      label: "Shell",
      description: "Run a shell command",
      parameters: Type.Object({ command: Type.String() }),
      execute: async (_id, params) => {
        ran.push(params.command);
        return text(`ran: ${params.command}`);
      },
    }),
    readFile: tool({
      name: "read_file",
      label: "Read",
      description: "Read a file",
      parameters: Type.Object({ path: Type.String() }),
      execute: async (_id, params) => {
        ran.push(`read ${params.path}`);
        return text(`contents of ${params.path}`);
      },
    }),
    wait: tool({
      name: "wait",
      label: "Wait",
      description: "Wait for the test",
      parameters: Type.Object({}),
      execute: async (_id, _params, signal) => {
        started();
        await new Promise<void>((resolve, reject) => {
          void released.then(resolve);
          signal?.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
        });
        return text("waited");
      },
    }),
  };
}

/** A faux model with its own api id, so tests in one process do not share responses. */
export function fauxModel(responses: FauxResponseStep[] = [], opts: { tokensPerSecond?: number } = {}): FauxProviderRegistration {
  const faux = registerFauxProvider({ tokenSize: { min: 1, max: 2 }, ...opts });
  faux.setResponses(responses);
  return faux;
}

export function piAgent(faux: FauxProviderRegistration, tools: AgentTool[], extra: ConstructorParameters<typeof Agent>[0] = {}): Agent {
  return new Agent({ ...extra, initialState: { systemPrompt: "You help.", model: faux.getModel(), tools, ...extra.initialState } });
}

/** Follows the events long-poll and keeps every event (views read on a reset count as their items and asks). */
export class EventWatch {
  readonly events: PaneEvent[] = [];
  readonly #phone: FakePhone;
  #cursor: string | null = null;

  constructor(phone: FakePhone) {
    this.#phone = phone;
  }

  /** Reads once without waiting: later events are read from here on. */
  async prime(): Promise<void> {
    const page = await this.#phone.events({ after: null });
    this.#cursor = page.cursor;
  }

  /** Reads until `done(events)` holds; fails after `timeoutMs` with what it saw. */
  async until(done: (events: PaneEvent[]) => boolean, timeoutMs = 8000): Promise<PaneEvent[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (done(this.events)) return this.events;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`the events never matched; saw ${JSON.stringify(this.events.map(brief))}`);
      const page = await this.#phone.events({ after: this.#cursor, wait: Math.min(left, 60_000) });
      this.#cursor = page.cursor;
      for (const view of page.views) {
        for (const item of view.items) this.events.push({ seq: 0, type: "item", pane: view.pane.id, item });
        for (const ask of view.asks) this.events.push({ seq: 0, type: "ask", pane: view.pane.id, ask });
        this.events.push({ seq: 0, type: "state", pane: view.pane.id, summary: view.pane });
      }
      this.events.push(...page.events);
    }
  }

  items(pane?: string): Item[] {
    return this.events.flatMap((e) => (e.type === "item" && (!pane || e.pane === pane) ? [e.item] : []));
  }

  /** The newest write of each item id, in the order the ids first appeared. */
  latest(pane?: string): Item[] {
    const byId = new Map<string, Item>();
    for (const item of this.items(pane)) byId.set(item.id, item);
    return [...byId.values()];
  }
}

const brief = (e: PaneEvent) =>
  e.type === "item" ? `${e.item.kind}:${"status" in e.item ? e.item.status : ""}${"partial" in e.item && e.item.partial ? "~" : ""}` : e.type === "state" ? `state:${e.summary.state}` : e.type;

/** The last state the events gave a pane. */
export function lastState(events: PaneEvent[], pane: string): string | undefined {
  return events.flatMap((e) => (e.type === "state" && e.pane === pane ? [e.summary.state] : [])).at(-1);
}

/** A Pi `AgentSession` as `createAgentSession` makes it, on the faux model, with Pi's own tools. */
export interface PiSessionRig {
  session: AgentSession;
  /** The folder Pi's tools work in. */
  cwd: string;
  sessionDir: string;
}

/**
 * `createAgentSession` with Pi's own tools (read, bash, edit, write) working in `<dir>/work`, its
 * session saved in `<dir>/sessions` (`SessionManager.create`, or `continueRecent` with `resume`),
 * settings in memory, and the faux model's key given at run time unless `noKey`. `extensions` are
 * inline extension factories, loaded the way Pi loads any extension.
 */
export async function piSession(
  faux: FauxProviderRegistration,
  dir: string,
  opts: { resume?: boolean; noKey?: boolean; extensions?: ExtensionFactory[] } = {},
): Promise<PiSessionRig> {
  const cwd = join(dir, "work");
  const sessionDir = join(dir, "sessions");
  const agentDir = join(dir, "agent");
  mkdirSync(cwd, { recursive: true });
  const model = faux.getModel();
  const authStorage = AuthStorage.inMemory();
  if (!opts.noKey) authStorage.setRuntimeApiKey(model.provider, "faux-key");
  const settingsManager = SettingsManager.inMemory({ compaction: { enabled: false }, retry: { enabled: false } });
  const resourceLoader = new DefaultResourceLoader({ cwd, agentDir, settingsManager, noExtensions: true, extensionFactories: opts.extensions ?? [] });
  await resourceLoader.reload();
  const { session } = await createAgentSession({
    cwd,
    agentDir,
    model,
    authStorage,
    modelRegistry: ModelRegistry.inMemory(authStorage),
    settingsManager,
    resourceLoader,
    sessionManager: opts.resume ? SessionManager.continueRecent(cwd, sessionDir) : SessionManager.create(cwd, sessionDir),
  });
  return { session, cwd, sessionDir };
}

/** The roles of a session file's message entries, in file order. */
export function savedMessages(file: string): string[] {
  return readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { type: string; message?: { role: string; content?: unknown } })
    .filter((e) => e.type === "message")
    .map((e) => e.message!.role);
}
