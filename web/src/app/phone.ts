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
        if (s === "online") void this.outbox.flush();
      },
    });
  }

  async start(): Promise<void> {
    await this.outbox.load();
    this.live.start();
    if (typeof window !== "undefined") window.addEventListener("online", () => this.live.retryNow());
  }

  /** Opens a chat: reads its content now and follows it live. */
  async openPane(agent: string, pane: string): Promise<void> {
    this.live.watch(agent, pane);
    try {
      const r = await this.api.pane(agent, pane);
      if (r.status === 200) this.store.setDetail(agent, r.body);
    } catch {
      // offline: the watch brings the content when the connection is back
    }
  }

  closePane(agent: string, pane: string): void {
    this.live.unwatch(agent, pane);
  }
}
