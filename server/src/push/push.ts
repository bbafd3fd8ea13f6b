/**
 * The push service (U-1…U-4, R-1; docs/push.md). The daemon calls it with every `ask` and
 * `ask-closed` change of its agents:
 *
 * - ask → dedupe (machine, agent, ask id; persisted, U-3) → limits (U-1; persisted) → payload
 *   (masked, U-2, R-1) → sent to every subscription (U-4). Over a limit the ask still reaches the
 *   phone's UI (the live hub sends it regardless); only the push is skipped. An ask raised again
 *   after an agent or daemon restart is a duplicate: it shows and does not push.
 * - ask-closed (answered, expired, decided) of an ask that pushed → a `clear` push for its tag, so
 *   the phone withdraws the notification (same Topic, so an undelivered push is replaced too).
 *
 * Decisions are synchronous (SQLite), so two asks arriving together cannot both pass a limit;
 * the sends run in the background and `idle()` waits for them.
 */
import { hostname } from "node:os";
import type { DatabaseSync } from "node:sqlite";
import type { Ask } from "@colliepwa/durable-sdk/wire";
import type { PushPayload, PushSubscriptionJson } from "@colliepwa/shared";
import { PushLimits, PUSH_LIMITS, type PushLimitsConfig } from "./limits.ts";
import { masker } from "./mask.ts";
import {
  askPayload, askTopic, askTtlSeconds, clearPayload, DEFAULT_ASK_TTL_S, manyAsksPayload, manyAsksTopic, MANY_ASKS_TTL_S,
} from "./payload.ts";
import { withAnswers, type AnswerableAsk } from "./payload.ts";
import { DEFAULT_SUBJECT, sendPush, type PushPost, type SendOptions, type SendResult } from "./sender.ts";
import { checkEndpointAddresses, checkEndpointUrl, guardedLookup, SubscriptionError, systemResolve, type EndpointPolicy, type Resolve } from "./endpoints.ts";
import { checkSubscription, endpointLabel, MAX_SUBSCRIPTIONS_PER_DEVICE, Subscriptions } from "./subscriptions.ts";
import { loadOrCreateVapidKeys, type VapidKeys } from "./vapid.ts";

export interface PushOptions {
  db: DatabaseSync;
  log: (line: string) => void;
  /** `{host}` of the many-asks push and the machine of this daemon's own agents; os.hostname(). */
  host?: string;
  now?: () => number;
  /** Secret masking of push titles and bodies; on by default. */
  redact?: boolean;
  /** The VAPID subject (`mailto:` or `https:`); COLLIE_PUSH_SUBJECT, else DEFAULT_SUBJECT. */
  subject?: string;
  /**
   * Tests only, never set by the CLI: accept any http or https endpoint on any host and port (a
   * local test push service), without the public-address rules of endpoints.ts.
   */
  allowLocalEndpoints?: boolean;
  /** Exact https origins exempt from the port, name and address rules (COLLIE_PUSH_ALLOW_ORIGINS). */
  allowedOrigins?: ReadonlySet<string>;
  /** How endpoint host names resolve (tests inject one; the system's by default). */
  resolve?: Resolve;
  retryDelaysMs?: readonly number[];
  timeoutMs?: number;
  post?: PushPost;
  sleep?: (ms: number) => Promise<void>;
  limits?: PushLimitsConfig;
}

/** What became of one ask's push (tests and logs). */
export type AskPushResult =
  | "pushed"
  | "many-asks"
  | "duplicate"
  | "no-subscriptions"
  | "expired"
  | "skipped:quiet"
  | "skipped:member-hour"
  | "skipped:member-minute"
  | "skipped:agent-minute"
  | "skipped:pane-minute";

export interface AskContext {
  agent: string;
  /** The crew member the agent runs on; null for this machine's own agents. */
  machine: string | null;
  paneId: string;
  /** The pane's name as the list shows it. */
  paneTitle: string;
  /** The whole ask where there is one: its kind, revision and options say whether the notification can answer it. */
  ask: Pick<Ask, "id" | "title" | "push" | "expiresAt"> & AnswerableAsk;
}

/** Seen asks are kept this long for dedupe (an ask open longer than that is rare and harmless). */
const DEDUPE_KEEP_MS = 30 * 24 * 60 * 60 * 1000;

export class PushService {
  readonly publicKey: string;
  readonly subscriptions: Subscriptions;
  readonly limits: PushLimits;
  readonly host: string;
  readonly #db: DatabaseSync;
  readonly #opts: PushOptions;
  readonly #vapid: VapidKeys & { subject: string };
  readonly #now: () => number;
  readonly #mask: (text: string) => string;
  readonly #policy: EndpointPolicy;
  readonly #inflight = new Set<Promise<void>>();
  /** The hour (by `#hourOf`) a crew member's hourly push limit was last logged in, by machine. */
  readonly #quietMembers = new Map<string, number>();
  #pruneTimer: NodeJS.Timeout | null = null;
  #closed = false;

  private constructor(opts: PushOptions, keys: VapidKeys) {
    this.#opts = opts;
    this.#db = opts.db;
    this.#now = opts.now ?? Date.now;
    this.host = opts.host ?? hostname();
    this.#mask = masker(opts.redact ?? true);
    this.#vapid = { ...keys, subject: opts.subject ?? DEFAULT_SUBJECT };
    this.#policy = { allowLocal: opts.allowLocalEndpoints === true, allowedOrigins: opts.allowedOrigins ?? new Set(), resolve: opts.resolve ?? systemResolve };
    this.publicKey = keys.publicKey;
    this.subscriptions = new Subscriptions(opts.db, this.#now);
    this.limits = new PushLimits(opts.db, this.#now, opts.limits ?? PUSH_LIMITS);
  }

  /** Loads the VAPID keys (made on the very first start). Throws VapidKeyError on damaged keys. */
  static open(opts: PushOptions): PushService {
    const subject = opts.subject ?? DEFAULT_SUBJECT;
    if (!/^(mailto:|https:\/\/)/.test(subject)) throw new Error(`the push subject ${JSON.stringify(subject)} must start with mailto: or https://`);
    const { keys, created } = loadOrCreateVapidKeys(opts.db, (opts.now ?? Date.now)());
    if (created) opts.log("push: made this Collie's VAPID key pair (kept in the state database)");
    const service = new PushService({ ...opts, subject }, keys);
    service.#prune();
    service.#pruneTimer = setInterval(() => service.#prune(), 60 * 60 * 1000);
    service.#pruneTimer.unref();
    return service;
  }

  /**
   * Registers the subscription of the paired `device`: its shape and URL (endpoints.ts), then
   * where its host resolves (public addresses only). Throws SubscriptionError naming the rule.
   */
  async register(json: PushSubscriptionJson, opts: { device: string; replaces?: string | undefined }): Promise<{ created: boolean; replaced: boolean }> {
    const sub = checkSubscription(json, this.#policy);
    await checkEndpointAddresses(new URL(sub.endpoint), this.#policy);
    if (this.#closed) throw new SubscriptionError("Collie is stopping; try again in a moment.");
    const r = this.subscriptions.upsert(sub, opts);
    if (r.created) this.#opts.log(`push: a phone subscribed (${endpointLabel(sub.endpoint)})${r.replaced ? ", replacing its old subscription" : ""}`);
    if (r.evicted > 0) this.#opts.log(`push: dropped ${r.evicted} subscription(s) of that device unused the longest (at most ${MAX_SUBSCRIPTIONS_PER_DEVICE} per device)`);
    return { created: r.created, replaced: r.replaced };
  }

  /** The paired `device` turns push off: removes its subscription, never another device's. */
  unregister(endpoint: string, device: string): boolean {
    const removed = this.subscriptions.remove(endpoint, { device });
    if (removed) this.#opts.log(`push: a phone unsubscribed (${endpointLabel(endpoint)})`);
    return removed;
  }

  /** An ask appeared (U-1…U-3): decides now, sends in the background. */
  ask(ctx: AskContext): AskPushResult {
    if (this.#closed) return "no-subscriptions";
    const now = this.#now();
    const machine = ctx.machine ?? this.host;
    const seen = this.#db
      .prepare("INSERT OR IGNORE INTO push_asks (machine, agent, ask_id, seen_at) VALUES (?, ?, ?, ?)")
      .run(machine, ctx.agent, ctx.ask.id, now);
    if (Number(seen.changes) === 0) return "duplicate";
    if (this.subscriptions.size === 0) return "no-subscriptions";
    const ttl = askTtlSeconds(ctx.ask, now);
    if (ttl === 0) return "expired";
    const verdict = this.limits.admit({ machine, agent: ctx.agent, pane: ctx.paneId, member: ctx.machine !== null });
    if (verdict.kind === "skip") {
      if (verdict.reason === "member-hour" && this.#quietMembers.get(machine) !== this.#hourOf(now)) {
        // Once an hour per member, not once per ask: a flood must not flood the log.
        this.#quietMembers.set(machine, this.#hourOf(now));
        this.#opts.log(`push: crew member ${machine} raised more than ${(this.#opts.limits ?? PUSH_LIMITS).memberHour} asks in an hour; no push from it until that hour has passed (its asks still show)`);
      }
      return `skipped:${verdict.reason}`;
    }
    if (verdict.kind === "many-asks") {
      this.#opts.log(`push: ${ctx.agent} on ${machine} raised more than ${(this.#opts.limits ?? PUSH_LIMITS).agentHour} asks in an hour; no push from it for the next hour (its asks still show)`);
      const payload = manyAsksPayload({ agent: ctx.agent, machine: ctx.machine, host: machine, mask: this.#mask });
      this.#fanOut(payload, { ttl: MANY_ASKS_TTL_S, urgency: "high", topic: manyAsksTopic(ctx.machine, ctx.agent) });
      return "many-asks";
    }
    this.#db.prepare("UPDATE push_asks SET pushed = 1 WHERE machine = ? AND agent = ? AND ask_id = ?").run(machine, ctx.agent, ctx.ask.id);
    // Answering from the notification (issue 30): its buttons, when the ask has them and they fit.
    const payload = withAnswers(askPayload({ ...ctx, mask: this.#mask }), ctx.ask, this.#mask);
    this.#fanOut(payload, { ttl, urgency: "high", topic: askTopic(ctx.machine, ctx.agent, ctx.ask.id) });
    return "pushed";
  }

  /** An ask was answered, expired or decided: withdraws its notification if it pushed one. */
  askClosed(ctx: { agent: string; machine: string | null; paneId: string; askId: string }): boolean {
    if (this.#closed) return false;
    const machine = ctx.machine ?? this.host;
    const cleared = this.#db
      .prepare("UPDATE push_asks SET pushed = 2 WHERE machine = ? AND agent = ? AND ask_id = ? AND pushed = 1")
      .run(machine, ctx.agent, ctx.askId);
    if (Number(cleared.changes) === 0) return false;
    this.#fanOut(clearPayload(ctx), { ttl: DEFAULT_ASK_TTL_S, urgency: "normal", topic: askTopic(ctx.machine, ctx.agent, ctx.askId) });
    return true;
  }

  #hourOf(now: number): number {
    return Math.floor(now / (this.#opts.limits ?? PUSH_LIMITS).hourMs);
  }

  /** Resolves when every send started so far has finished (tests; a clean shutdown). */
  async idle(): Promise<void> {
    while (this.#inflight.size > 0) await Promise.all([...this.#inflight]);
  }

  /** Stops the timer; sends in flight finish but no longer touch the database. */
  close(): void {
    this.#closed = true;
    if (this.#pruneTimer) clearInterval(this.#pruneTimer);
  }

  #fanOut(payload: PushPayload, opts: SendOptions): void {
    const config = {
      vapid: this.#vapid,
      log: this.#opts.log,
      ...(this.#opts.retryDelaysMs ? { retryDelaysMs: this.#opts.retryDelaysMs } : {}),
      ...(this.#opts.timeoutMs ? { timeoutMs: this.#opts.timeoutMs } : {}),
      ...(this.#opts.post ? { post: this.#opts.post } : {}),
      ...(this.#opts.sleep ? { sleep: this.#opts.sleep } : {}),
    };
    for (const sub of this.subscriptions.all()) {
      // A subscription kept from before the endpoint rules (or under other exceptions) that breaks
      // them now is dropped, never connected to.
      let url: URL;
      try {
        url = checkEndpointUrl(sub.endpoint, this.#policy);
      } catch (err) {
        this.subscriptions.remove(sub.endpoint);
        this.#opts.log(`push: dropped the subscription ${endpointLabel(sub.endpoint)}: ${(err as Error).message}`);
        continue;
      }
      const p: Promise<void> = sendPush(sub, payload, opts, { ...config, lookup: guardedLookup(url, this.#policy) })
        .then((r) => this.#settle(sub.endpoint, r))
        .catch((err: unknown) => this.#opts.log(`push: could not send to ${endpointLabel(sub.endpoint)}: ${(err as Error).message}`))
        .finally(() => this.#inflight.delete(p));
      this.#inflight.add(p);
    }
  }

  #settle(endpoint: string, r: SendResult): void {
    if (this.#closed) return;
    if (r.outcome === "sent") this.subscriptions.delivered(endpoint);
    else if (r.outcome === "gone") this.subscriptions.remove(endpoint);
    else this.subscriptions.failed(endpoint, r.reason);
  }

  #prune(): void {
    if (this.#closed) return;
    this.#db.prepare("DELETE FROM push_asks WHERE seen_at < ?").run(this.#now() - DEDUPE_KEEP_MS);
  }
}
