/**
 * The daemon's parts put together: state database, held answers, agent connections, the live hub
 * and the gateway, fed by sources.json (watched: an edit applies without a restart, a bad edit
 * keeps the last good config, D-1).
 */
import { watch, type FSWatcher } from "node:fs";
import { basename, dirname } from "node:path";
import type { FastifyInstance } from "fastify";
import { AgentManager } from "./agents/manager.ts";
import { LiveHub } from "./agents/live.ts";
import { AgentGateway } from "./agents/gateway.ts";
import { Fanout } from "./agents/fanout.ts";
import { Upstreams } from "./agents/upstream.ts";
import { buildApp } from "./app.ts";
import { loadConfig, SourcesError, withEnvSocket, type AgentSource, type SourcesConfig } from "./sources/sources.ts";
import { Crew } from "./crew/crew.ts";
import { HeldCrewActions } from "./crew/held.ts";
import { openStateDb, type StateDb } from "./store/db.ts";
import { HeldAnswers } from "./store/held-answers.ts";
import type { ConnectionOptions } from "./agents/connection.ts";
import { PushService, type PushOptions } from "./push/push.ts";
import { mask, maskConversation, redactionEnabled } from "./push/mask.ts";
import { Devices } from "./security/devices.ts";
import { Invites } from "./crew/invites.ts";
import { AuditLog } from "./security/audit.ts";
import { listeningOrigin, startAdminSocket } from "./security/admin.ts";
import { Decisions } from "./store/decisions.ts";
import type { Server } from "node:http";

import { HELD_BY_COLLIE } from "./agents/fanout.ts";

export { HELD_BY_COLLIE };

/** How long open connections get to end by themselves when the daemon closes. */
const CLOSE_GRACE_MS = 500;

export interface DaemonOptions {
  /** sources.json to read and watch; or fixed sources (the embedded default, tests). */
  sources: { path: string } | { fixed: AgentSource[] };
  stateDir: string | ":memory:";
  log?: (line: string) => void;
  tuning?: Pick<ConnectionOptions, "waitMs" | "retryDelaysMs">;
  /** Secret masking; default from COLLIE_REDACT (on unless `off`). */
  redact?: boolean;
  /** Web Push (U-1…U-4): options for tests (a local push service, a clock), or false for none. */
  push?: Omit<PushOptions, "db" | "log"> | false;
  /** Host names of front doors besides loopback, e.g. `collie.example.ts.net`. */
  extraHosts?: string[];
  /**
   * `COLLIE_DURABLE_SOCKET` (S-5), resolved: the agent on it is shown too, unless the sources
   * name that socket already. Null or absent: none.
   */
  envSocket?: string | null;
}

export class Daemon {
  readonly app: FastifyInstance;
  readonly agents: AgentManager;
  readonly live: LiveHub;
  readonly held: HeldAnswers;
  readonly gateway: AgentGateway;
  /** The crew members whose agents this Collie shows as their lead (C-1). */
  readonly crew: Crew;
  /** Web Push, or null when it is off (damaged VAPID keys, or `push: false`). */
  push: PushService | null = null;
  readonly devices: Devices;
  readonly audit: AuditLog;
  readonly #state: StateDb;
  #admin: Server | null = null;
  readonly #log: (line: string) => void;
  readonly #opts: DaemonOptions;
  #watcher: FSWatcher | null = null;
  #reloadTimer: NodeJS.Timeout | null = null;
  #expireTimer: NodeJS.Timeout | null = null;
  /** The last sources.json problem, or null when the file in force is the file on disk. */
  sourcesProblem: string | null = null;
  /** The name under which the agent on `COLLIE_DURABLE_SOCKET` is shown, or null when it is not added. */
  envAgent: string | null = null;

  private constructor(app: FastifyInstance, parts: { agents: AgentManager; live: LiveHub; held: HeldAnswers; gateway: AgentGateway; state: StateDb; devices: Devices; audit: AuditLog; crew: Crew }, opts: DaemonOptions, log: (line: string) => void) {
    this.app = app;
    this.crew = parts.crew;
    this.devices = parts.devices;
    this.audit = parts.audit;
    this.agents = parts.agents;
    this.live = parts.live;
    this.held = parts.held;
    this.gateway = parts.gateway;
    this.#state = parts.state;
    this.#opts = opts;
    this.#log = log;
  }

  static async create(opts: DaemonOptions): Promise<Daemon> {
    const log = opts.log ?? ((line: string) => console.log(`collie: ${line}`));
    const state = openStateDb(opts.stateDir);
    const held = new HeldAnswers(state);
    const decisions = new Decisions(state);
    const live = new LiveHub();
    // Masking: every Conversation is masked where the mirror builds it (`present`), push
    // titles and bodies in the push service, history rows where they are read (docs/push.md).
    const redact = opts.redact ?? redactionEnabled();
    let push: PushService | null = null;
    if (opts.push !== false) {
      try {
        const subject = process.env.COLLIE_PUSH_SUBJECT;
        push = PushService.open({ db: state.db, log, redact, ...(subject ? { subject } : {}), ...opts.push });
      } catch (err) {
        log(`push is off: ${(err as Error).message}`);
      }
    }
    const audit = new AuditLog(opts.stateDir);
    // Every upstream's events — this machine's agents' and the crew members' — go one way: the live
    // hub, push (under this Collie's limits, once per machine, agent and ask, U-3) and the audit log.
    const events = new Fanout({ live, push, audit, decisions, log });
    const gateway = new AgentGateway(held, events, redact ? { mask } : {});
    const agents = new AgentManager(events, gateway, { ...opts.tuning, ...(redact ? { present: maskConversation, mask } : {}) });
    const crewHeld = new HeldCrewActions(state);
    const crew = new Crew(events, crewHeld, { ...(opts.tuning?.retryDelaysMs ? { retryDelaysMs: opts.tuning.retryDelaysMs } : {}), ...(redact ? { present: maskConversation, mask } : {}) });
    const upstreams = new Upstreams(agents, crew);
    const devices = new Devices(state);
    // A revoked phone is locked out at once, its open WebSocket included.
    devices.onRevoked((id) => live.closeDevice(id));
    const invites = new Invites(state, devices);
    const app = await buildApp({ push, upstreams, log, live, audit, decisions, invites, gate: { devices, extraHosts: opts.extraHosts ?? [] } });
    const daemon: Daemon = new Daemon(app, { agents, live, held, gateway, state, devices, audit, crew }, opts, log);
    daemon.push = push;
    if (opts.stateDir !== ":memory:") {
      daemon.#admin = await startAdminSocket(opts.stateDir, { devices, invites, agents: () => upstreams.summaries(), origin: () => listeningOrigin(app.server.address()) });
    }
    // An answer held past HOLD_MS is dropped, and the audit log says so with its request id.
    const expire = () => {
      for (const dropped of held.expire(Date.now())) {
        audit.write({ action: dropped.action, agent: dropped.agent, pane: dropped.paneId, requestId: dropped.requestId, device: HELD_BY_COLLIE, status: 410, outcome: "dropped: held 7 days" });
      }
      for (const dropped of crewHeld.expire(Date.now())) {
        audit.write({ action: dropped.action, agent: `${dropped.agent}@${dropped.machine}`, requestId: dropped.requestId, device: HELD_BY_COLLIE, status: 410, outcome: "dropped: held 7 days" });
      }
    };
    expire();
    daemon.#expireTimer = setInterval(expire, 60 * 60 * 1000);
    daemon.#expireTimer.unref();
    await daemon.#startSources();
    return daemon;
  }

  async #startSources(): Promise<void> {
    const src = this.#opts.sources;
    if ("fixed" in src) {
      await this.#reconcile(src.fixed);
      return;
    }
    await this.reloadSources();
    // Watch the directory: editors and `collie durable attach` replace the file atomically.
    try {
      this.#watcher = watch(dirname(src.path), (_event, file) => {
        if (file !== null && file !== basename(src.path)) return;
        if (this.#reloadTimer) clearTimeout(this.#reloadTimer);
        this.#reloadTimer = setTimeout(() => void this.reloadSources(), 100);
      });
    } catch {
      this.#log(`cannot watch ${dirname(src.path)}; edits to sources.json apply after a restart`);
    }
  }

  /** Reads sources.json again; a bad file is refused and the last good config stays (D-1). */
  async reloadSources(): Promise<void> {
    const src = this.#opts.sources;
    if (!("path" in src)) return;
    let sources: SourcesConfig;
    try {
      sources = loadConfig(src.path);
    } catch (err) {
      if (!(err instanceof SourcesError)) throw err;
      this.sourcesProblem = err.message;
      this.#log(`${err.message} (keeping the last good sources)`);
      return;
    }
    this.sourcesProblem = null;
    await Promise.all([this.#reconcile(sources.durable), this.crew.reconcile(sources.crew)]);
  }

  /** Applies the sources, with the agent on `COLLIE_DURABLE_SOCKET` when they do not name its socket (S-5). */
  async #reconcile(sources: AgentSource[]): Promise<void> {
    const merged = withEnvSocket(sources, this.#opts.envSocket ?? null);
    this.envAgent = merged.added?.name ?? null;
    await this.agents.reconcile(merged.sources);
  }

  async close(): Promise<void> {
    this.#watcher?.close();
    const admin = this.#admin;
    if (admin) {
      const closed = new Promise<void>((done) => admin.close(() => done()));
      admin.closeAllConnections();
      await closed;
    }
    if (this.#reloadTimer) clearTimeout(this.#reloadTimer);
    if (this.#expireTimer) clearInterval(this.#expireTimer);
    await Promise.all([this.agents.stopAll(), this.crew.stopAll()]);
    // Live WebSockets get their close frame; whatever is still open after a moment (a refused or
    // half-open upgrade, a peer that never hangs up) is destroyed, so closing never hangs.
    const closing = this.app.close();
    const grace = new Promise<void>((r) => setTimeout(r, CLOSE_GRACE_MS).unref());
    await Promise.race([closing, grace]);
    this.app.collieConnections.destroyAll();
    await closing;
    this.push?.close(); // sends in flight finish without touching the closed database
    this.#state.close();
  }
}
