/**
 * The phone's parts put together (ntfy-style: plain classes, React only in components): the API
 * client, the live connection feeding the store, the outbox that retries unsent actions with
 * their request ids whenever the connection comes back (P-26), and the action layer every tap
 * goes through (actions.ts).
 */
import { PhoneActions } from "./actions.ts";
import { Api, errorMessage } from "./api.ts";
import { browserDraftStorage, Drafts, type DraftStorage } from "./drafts.ts";
import { LiveConnection, liveUrl, type LiveOptions } from "./live.ts";
import { idbNotificationAnswers, memoryNotificationAnswers, type NotificationAnswer, type NotificationAnswerStorage } from "./notification-answers.ts";
import { idbOutboxStorage, Outbox, type OutboxStorage } from "./outbox.ts";
import { paneKey, PhoneStore } from "./store.ts";
import { idbViewCache, memoryViewCache, toCachedView, type ViewCacheStorage } from "./view-cache.ts";

/** How long the phone waits after a change before it saves its view again (streaming writes often). */
export const VIEW_SAVE_DELAY_MS = 1000;

export interface PhoneOptions {
  api?: Api;
  storage?: OutboxStorage;
  liveUrl?: LiveOptions["url"];
  createSocket?: LiveOptions["createSocket"];
  now?: () => number;
  /** Where the last view is kept for an offline start (IndexedDB in the browser). */
  viewCache?: ViewCacheStorage;
  /** Where the service worker leaves the answers it gave from notifications (IndexedDB in the browser). */
  notificationAnswers?: NotificationAnswerStorage;
  /** Where composer drafts are kept (localStorage in the browser; null keeps them in memory). */
  draftStorage?: DraftStorage | null;
}

export class Phone {
  readonly api: Api;
  readonly store = new PhoneStore();
  readonly outbox: Outbox;
  /** Every phone action: request ids, the outbox, sending again (actions.ts). */
  readonly actions: PhoneActions;
  readonly live: LiveConnection;
  readonly now: () => number;
  /** What is typed in each chat's composer and not sent yet (drafts.ts, P-26). */
  readonly drafts: Drafts;
  readonly #viewCache: ViewCacheStorage;
  readonly #notificationAnswers: NotificationAnswerStorage;
  /** Chats opened, most recent first: their content is what the view cache keeps. */
  #opened: string[] = [];
  #saveTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(opts: PhoneOptions = {}) {
    this.api = opts.api ?? new Api();
    this.now = opts.now ?? Date.now;
    this.outbox = new Outbox(this.api, opts.storage ?? idbOutboxStorage(), this.now);
    this.actions = new PhoneActions(this.outbox);
    this.drafts = new Drafts(opts.draftStorage === undefined ? browserDraftStorage() : opts.draftStorage);
    this.#viewCache = opts.viewCache ?? (typeof indexedDB !== "undefined" ? idbViewCache() : memoryViewCache());
    this.#notificationAnswers = opts.notificationAnswers ?? (typeof indexedDB !== "undefined" ? idbNotificationAnswers() : memoryNotificationAnswers());
    this.store.subscribe(() => this.#saveSoon());
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
    // Answers go on the live socket while it is open: a tap reaches the agent sooner (issue 31).
    this.api.actOn(this.live);
  }

  async start(): Promise<void> {
    await this.outbox.load();
    await this.adoptNotificationAnswers();
    // The service worker answered from a notification while the app is open (issue 30).
    if (typeof navigator !== "undefined") {
      navigator.serviceWorker?.addEventListener("message", (event: MessageEvent) => {
        if ((event.data as { type?: unknown } | null)?.type === "collie-answered") void this.adoptNotificationAnswers();
      });
    }
    // Collie has said nothing yet: draw the last view this phone saved, marked as not current.
    try {
      const cached = await this.#viewCache.read();
      if (cached) this.store.restore(cached);
    } catch {
      // no saved view (private mode, a first start): the screens say they are connecting
    }
    if (!(await this.checkPaired())) return;
    this.live.start();
    // Push stays on for a phone that had it on: its subscription is registered again for this device.
    // Loaded here, after the first screen: push's code is not part of the entry (issue 31).
    if (typeof window !== "undefined" && "serviceWorker" in navigator) {
      void import("./push.ts").then(({ browserPushEnv, renewPush }) => renewPush(browserPushEnv(this.api))).catch(() => undefined);
    }
    if (typeof window !== "undefined") window.addEventListener("online", () => this.live.retryNow());
  }

  /**
   * Takes in the answers the service worker gave from notifications (issue 30): the requests it
   * left in the shared outbox (sent again with the next flush, or now when Collie is reachable),
   * and what came back for the others, which the cards then show as if the tap had been here.
   * Taken-in replies are let go; one still waiting for a reply stays with the service worker.
   */
  async adoptNotificationAnswers(): Promise<void> {
    const added = await this.outbox.adopt();
    let settled: NotificationAnswer[] = [];
    try {
      settled = (await this.#notificationAnswers.all()).filter((a) => a.reply !== null);
    } catch {
      // storage unreadable: the outbox still holds what was not sent
    }
    for (const a of settled) this.actions.remember(a.request);
    this.store.addNotificationAnswers(settled);
    for (const a of settled) await this.#notificationAnswers.delete(a.request.requestId).catch(() => undefined);
    if (added > 0 && this.store.getState().status === "online") void this.outbox.flush();
  }

  /**
   * Asks Collie whether this device is paired; when it is not, the reconnect loop stops and the
   * app shows how to pair. True when paired or when Collie cannot be reached (then the reconnect
   * loop carries on).
   */
  async checkPaired(): Promise<boolean> {
    try {
      const r = await this.api.call("me", {});
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
      r = await this.api.call("pair", {}, { code, name });
    } catch {
      return { ok: false, message: "Collie cannot be reached. Try again." };
    }
    if (r.status !== 200) return { ok: false, message: errorMessage(r.body) ?? "This pairing code is not valid. Run `collie pair` again." };
    this.store.setUnpaired(false);
    this.live.start();
    return { ok: true };
  }

  /** Opens a chat: reads its content now and follows it live. */
  async openPane(agent: string, pane: string): Promise<void> {
    const key = paneKey(agent, pane);
    this.#opened = [key, ...this.#opened.filter((k) => k !== key)];
    const views = this.store.viewsOf(agent, pane);
    this.live.watch(agent, pane);
    try {
      const r = await this.api.call("pane", { agent, pane });
      // The WebSocket's view came first and its deltas keep it current: drawing the same chat a
      // second time from this read would only cost time (a 2000-item chat drawn twice).
      if (r.status === 200 && this.store.viewsOf(agent, pane) === views) this.store.setDetail(agent, r.body);
      // The answers given in this chat come with the read only.
      if (r.status === 200 && r.body.decisions) this.store.setDecisions(agent, pane, r.body.decisions);
    } catch {
      // offline: the watch brings the content when the connection is back
    }
  }

  /** Saves the view a moment after it changed, only what Collie sent (never the saved copy again). */
  #saveSoon(): void {
    const s = this.store.getState();
    if (!s.loaded || s.cachedAt !== null || this.#saveTimer !== null) return;
    this.#saveTimer = setTimeout(() => {
      this.#saveTimer = null;
      const now = this.store.getState();
      if (now.cachedAt !== null) return;
      void this.#viewCache.write(toCachedView(now, this.#opened, this.now())).catch(() => undefined);
    }, VIEW_SAVE_DELAY_MS);
  }

  closePane(agent: string, pane: string): void {
    this.live.unwatch(agent, pane);
  }
}
