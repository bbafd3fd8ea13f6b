/**
 * The phone's parts put together (ntfy-style: plain classes, React only in components): the API
 * client, the live connection feeding the store, and the outbox that retries unsent actions with
 * their request ids whenever the connection comes back (P-26).
 */
import { Api } from "./api.ts";
import { LiveConnection, liveUrl, type LiveOptions } from "./live.ts";
import { idbOutboxStorage, Outbox, type OutboxStorage } from "./outbox.ts";
import { PhoneStore } from "./store.ts";

export interface PhoneOptions {
  api?: Api;
  storage?: OutboxStorage;
  liveUrl?: LiveOptions["url"];
  createSocket?: LiveOptions["createSocket"];
  now?: () => number;
}

export class Phone {
  readonly api: Api;
  readonly store = new PhoneStore();
  readonly outbox: Outbox;
  readonly live: LiveConnection;
  readonly now: () => number;

  constructor(opts: PhoneOptions = {}) {
    this.api = opts.api ?? new Api();
    this.now = opts.now ?? Date.now;
    this.outbox = new Outbox(this.api, opts.storage ?? idbOutboxStorage(), this.now);
    this.live = new LiveConnection({
      url: opts.liveUrl ?? liveUrl,
      createSocket: opts.createSocket,
      onMessage: (m) => this.store.apply(m),
      onStatus: (s) => {
        this.store.setStatus(s);
        if (s === "online") {
          this.store.setUnpaired(false);
          void this.outbox.flush();
        }
        // A socket that cannot open may mean this device is not paired: ask once.
        if (s === "offline") void this.checkPaired();
      },
    });
  }

  async start(): Promise<void> {
    await this.outbox.load();
    if (!(await this.checkPaired())) return;
    this.live.start();
    if (typeof window !== "undefined") window.addEventListener("online", () => this.live.retryNow());
  }

  /**
   * Asks Collie whether this device is paired; when it is not, the reconnect loop stops and the
   * app shows how to pair. True when paired or when Collie cannot be reached (then the reconnect
   * loop carries on).
   */
  async checkPaired(): Promise<boolean> {
    try {
      const r = await this.api.me();
      if (r.status === 401) {
        this.store.setUnpaired(true);
        this.live.close();
        return false;
      }
      this.store.setUnpaired(false);
    } catch {
      // offline: nothing to learn now
    }
    return true;
  }

  /** Pairs this device with a one-time code, then connects. */
  async pair(code: string, name: string): Promise<{ ok: true } | { ok: false; message: string }> {
    let r;
    try {
      r = await this.api.pair(code, name);
    } catch {
      return { ok: false, message: "Collie cannot be reached. Try again." };
    }
    if (r.status !== 200) return { ok: false, message: r.body.message ?? "This pairing code is not valid. Run `collie pair` again." };
    this.store.setUnpaired(false);
    this.live.start();
    return { ok: true };
  }

  /** Opens a chat: reads its content now and follows it live. */
  async openPane(agent: string, pane: string): Promise<void> {
    const views = this.store.viewsOf(agent, pane);
    this.live.watch(agent, pane);
    try {
      const r = await this.api.pane(agent, pane);
      // The WebSocket's view came first and its deltas keep it current: drawing the same chat a
      // second time from this read would only cost time (a 2000-item chat drawn twice).
      if (r.status === 200 && this.store.viewsOf(agent, pane) === views) this.store.setDetail(agent, r.body);
      // The answers given in this chat come with the read only.
      if (r.status === 200 && r.body.decisions) this.store.setDecisions(agent, pane, r.body.decisions);
    } catch {
      // offline: the watch brings the content when the connection is back
    }
  }

  closePane(agent: string, pane: string): void {
    this.live.unwatch(agent, pane);
  }
}
