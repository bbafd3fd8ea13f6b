/**
 * The daemon's parts put together: state database, held answers, agent connections, the live hub
 * and the gateway, fed by sources.json (watched: an edit applies without a restart, a bad edit
 * keeps the last good config, D-1).
 */
import { existsSync, mkdirSync, watch, type FSWatcher } from "node:fs";
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
import { openStateDb, type StateDb } from "./store/db.ts";
import { HeldWrites, type HeldLimits } from "./store/held.ts";
import type { ConnectionOptions } from "./agents/connection.ts";
import { PushService, type PushOptions } from "./push/push.ts";
import { allowedOriginsFrom } from "./push/endpoints.ts";
import { mask, maskConversation, redactionEnabled } from "./push/mask.ts";
import { Devices } from "./security/devices.ts";
import { Invites } from "./crew/invites.ts";
import { AuditLog } from "./security/audit.ts";
import { listeningOrigin, startAdminSocket } from "./security/admin.ts";
import { Decisions } from "./store/decisions.ts";
import { piAgentName, PiDeskProcess } from "./pi/desk.ts";
import type { Server } from "node:http";
import type { ConnectionLimits } from "./connections.ts";

import { HELD_BY_COLLIE } from "./agents/fanout.ts";

export { HELD_BY_COLLIE };

/** How long open connections get to end by themselves when the daemon closes. */
const CLOSE_GRACE_MS = 500;

/**
 * sources.json to read and watch (D-1). `fallback`: the agents shown while the file does not exist
 * yet (the bundled example, D-7); the path's folder is watched from the start, so a file written
 * later (`collie durable attach`, `collie crew join`, an editor) applies live. `applied` hears the
 * agents in force each time they are applied (main.ts keeps the example running while they name it).
 */
export interface WatchedSources {
  path: string;
  fallback?: AgentSource[];
  applied?: (durable: AgentSource[]) => Promise<void>;
}

/** What the admin socket tells the command line of the sources in force (docs/sources.md). */
export interface SourcesReport {
  /** The sources.json this Collie reads, or null for fixed sources. */
  path: string | null;
  /** The fallback's agents while they are in force (no sources.json yet), else null. */
  fallback: { name: string; socket: string }[] | null;
}

export interface DaemonOptions {
  /** sources.json to read and watch; or fixed sources (tests). */
  sources: WatchedSources | { fixed: AgentSource[] };
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
  /** The bounds of held writes (store/held.ts `HELD_LIMITS`); other ones for tests and the bench. */
  heldLimits?: HeldLimits;
  /**
   * `collie serve --fresh-state`: a state database that is missing, empty or damaged where Collie
   * kept its state before starts over (without it, Collie refuses to start; store/state-check.ts).
   */
  freshState?: boolean;
  /** The state directory's lock was left by a Collie that did not stop cleanly (a sign it was used). */
  staleLock?: boolean;
  /** Caps on the phone-facing server's connections (connections.ts); from the open-file limit by default. */
  connectionLimits?: ConnectionLimits;
  /** The phone app's build to serve (static.ts); default the repo's web/dist. The bench serves a scratch build. */
  webDist?: string;
}

export class Daemon {
  readonly app: FastifyInstance;
  readonly agents: AgentManager;
  readonly live: LiveHub;
  /** Every write held for an agent or crew member that cannot take it now (D-5, C-1). */
  readonly held: HeldWrites;
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
  /** The state database (D-8), for the operator's checks and tests. */
  get state(): StateDb {
    return this.#state;
  }
  /** The last sources.json problem, or null when the file in force is the file on disk. */
  sourcesProblem: string | null = null;
  /** The first read of the sources happened. */
  #started = false;
  /** The name under which the agent on `COLLIE_DURABLE_SOCKET` is shown, or null when it is not added. */
  envAgent: string | null = null;
  /** The fallback is in force: no sources.json has existed since the start (D-7). */
  fallbackInForce = false;
  /** The Pi desk, started when a `pi` first asks (docs/pi.md); null without a state directory. */
  readonly #piDesk: PiDeskProcess | null;
  /** The durable agents of the sources in force (sources.json or the fixed list). */
  #durable: AgentSource[] = [];
  /** A `pi` asked for the Pi desk: it is one of the agents from then on. */
  #piShown = false;
  /** The name the Pi desk is shown under, once a `pi` asked for it. */
  piAgent: string | null = null;

  private constructor(app: FastifyInstance, parts: { agents: AgentManager; live: LiveHub; held: HeldWrites; gateway: AgentGateway; state: StateDb; devices: Devices; audit: AuditLog; crew: Crew }, opts: DaemonOptions, log: (line: string) => void) {
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
    this.#piDesk = opts.stateDir === ":memory:" ? null : new PiDeskProcess(opts.stateDir, (line) => log(line));
  }

  static async create(opts: DaemonOptions): Promise<Daemon> {
    const log = opts.log ?? ((line: string) => console.log(`collie: ${line}`));
    const state = openStateDb(opts.stateDir, { fresh: opts.freshState === true, staleLock: opts.staleLock === true, log });
    const held = new HeldWrites(state, opts.heldLimits);
    const decisions = new Decisions(state);
    const live = new LiveHub();
    // Masking: every Conversation is masked where the mirror builds it (`present`), push
    // titles and bodies in the push service, history rows where they are read (docs/push.md).
    const redact = opts.redact ?? redactionEnabled();
    let push: PushService | null = null;
    if (opts.push !== false) {
      try {
        const subject = process.env.COLLIE_PUSH_SUBJECT;
        const allowedOrigins = allowedOriginsFrom(process.env.COLLIE_PUSH_ALLOW_ORIGINS);
        push = PushService.open({ db: state.db, log, redact, allowedOrigins, ...(subject ? { subject } : {}), ...opts.push });
      } catch (err) {
        log(`push is off: ${(err as Error).message}`);
      }
    }
    const audit = new AuditLog(opts.stateDir);
    // Every upstream's events — this machine's agents' and the crew members' — go one way: the live
    // hub, push (under this Collie's limits, once per machine, agent and ask, U-3) and the audit log.
    const events = new Fanout({ live, push, audit, decisions, log });
    // Held writes of this machine's agents are delivered to their connections, found by name.
    const gateway: AgentGateway = new AgentGateway((name) => agents.get(name), held, events, { log, ...(redact ? { mask } : {}) });
    const agents = new AgentManager(events, gateway, { ...opts.tuning, ...(redact ? { present: maskConversation, mask } : {}) });
    // A member's actions are held in the same store, under the same bounds (store/held.ts).
    const crew = new Crew(events, held, { ...(opts.tuning?.retryDelaysMs ? { retryDelaysMs: opts.tuning.retryDelaysMs } : {}), ...(redact ? { present: maskConversation, mask } : {}) });
    const upstreams = new Upstreams(agents, crew);
    const devices = new Devices(state);
    // A revoked phone is locked out at once, its open WebSocket included.
    devices.onRevoked((id) => live.closeDevice(id));
    const invites = new Invites(state, devices);
    const app = await buildApp({ push, upstreams, log, live, audit, decisions, invites, gate: { devices, extraHosts: opts.extraHosts ?? [] }, ...(opts.webDist ? { webDist: opts.webDist } : {}) }, opts.connectionLimits ? { connectionLimits: opts.connectionLimits } : {});
    const daemon: Daemon = new Daemon(app, { agents, live, held, gateway, state, devices, audit, crew }, opts, log);
    daemon.push = push;
    if (opts.stateDir !== ":memory:") {
      daemon.#admin = await startAdminSocket(opts.stateDir, {
        devices, invites, agents: () => upstreams.summaries(), origin: () => listeningOrigin(app.server.address()),
        sources: () => daemon.sourcesReport(),
        pi: () => daemon.openPiDesk(),
      });
    }
    // A write held past HOLD_MS is dropped, and the audit log says so with its request id.
    const expire = () => {
      for (const dropped of held.expire(Date.now())) {
        audit.write({ action: dropped.action, agent: dropped.target, ...(dropped.conversation ? { pane: dropped.conversation } : {}), requestId: dropped.requestId, device: HELD_BY_COLLIE, status: 410, outcome: "dropped: held 7 days" });
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
    // Watch the directory: editors and `collie durable attach` replace the file atomically. It is
    // made (owner-only) when missing, so a sources.json written later is seen too (D-1, issue #34).
    try {
      mkdirSync(dirname(src.path), { recursive: true, mode: 0o700 });
      this.#watcher = watch(dirname(src.path), (_event, file) => {
        if (file !== null && file !== basename(src.path)) return;
        if (this.#reloadTimer) clearTimeout(this.#reloadTimer);
        this.#reloadTimer = setTimeout(() => void this.reloadSources(), 100);
      });
    } catch {
      this.#log(`cannot watch ${dirname(src.path)}; edits to sources.json apply after a restart`);
    }
  }

  /**
   * Reads sources.json again; a bad file is refused and the last good config stays (D-1). Until a
   * file exists, the fallback (the bundled example) is in force; the first file replaces it live.
   */
  async reloadSources(): Promise<void> {
    const src = this.#opts.sources;
    if (!("path" in src)) return;
    const fallback = src.fallback;
    if (fallback && (this.fallbackInForce || !this.#started) && !existsSync(src.path)) {
      this.#started = true;
      this.fallbackInForce = true;
      await this.#applied(fallback);
      await this.#reconcile(fallback);
      return;
    }
    this.#started = true;
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
    if (this.fallbackInForce) this.#log(`${src.path} appeared: showing its agents now`);
    this.fallbackInForce = false;
    await this.#applied(sources.durable);
    await Promise.all([this.#reconcile(sources.durable), this.crew.reconcile(sources.crew)]);
  }

  /** Tells main.ts which agents are in force (it keeps the example running while they name it). */
  async #applied(durable: AgentSource[]): Promise<void> {
    const src = this.#opts.sources;
    if (!("path" in src) || !src.applied) return;
    try {
      await src.applied(durable);
    } catch (err) {
      this.#log(`sources: ${(err as Error).message}`);
    }
  }

  /** The sources in force, for the command line (`durable attach`, `crew join`). */
  sourcesReport(): SourcesReport {
    const src = this.#opts.sources;
    if (!("path" in src)) return { path: null, fallback: null };
    const fallback = this.fallbackInForce && src.fallback
      ? src.fallback.flatMap((s) => (s.endpoint.kind === "socket" ? [{ name: s.name, socket: s.endpoint.path }] : []))
      : null;
    return { path: src.path, fallback };
  }

  /**
   * Applies the sources, with the agent on `COLLIE_DURABLE_SOCKET` when they do not name its socket
   * (S-5), and the Pi desk once a `pi` asked for it.
   */
  async #reconcile(sources: AgentSource[]): Promise<void> {
    this.#durable = sources;
    const merged = withEnvSocket(sources, this.#opts.envSocket ?? null);
    this.envAgent = merged.added?.name ?? null;
    const wanted = [...merged.sources];
    if (this.#piDesk && this.#piShown) {
      this.piAgent = piAgentName(new Set(wanted.map((s) => s.name)));
      wanted.push(this.#piDesk.source(this.piAgent));
    }
    await this.agents.reconcile(wanted);
  }

  /**
   * A `pi` asks for the Pi desk (docs/pi.md): it starts once (again after it died), is shown as the
   * agent `pi`, and its link socket is the answer. No sources.json edit: the desk lives while Collie does.
   */
  async openPiDesk(): Promise<{ link: string }> {
    const desk = this.#piDesk;
    if (!desk) throw new Error("this Collie keeps no state directory");
    await desk.ensure();
    if (!this.#piShown) {
      this.#piShown = true;
      await this.#reconcile(this.#durable);
      this.#log(`a pi asked for the Pi desk: every running pi shows as the agent "${this.piAgent}"`);
    }
    // Back after the desk died: reconnect now, not at the next retry.
    if (this.piAgent !== null) this.agents.get(this.piAgent)?.retryNow();
    return { link: desk.place.link };
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
    this.gateway.stop();
    await Promise.all([this.agents.stopAll(), this.crew.stopAll(), this.#piDesk?.stop()]);
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
