/**
 * The support desk: opens the socket, lays out the workspaces, tabs and stored conversations, and
 * answers the phone's hooks (S-29) by keeping the store in step, so renames and closings outlive
 * the process (S-12, S-30) and history serves every conversation (S-31).
 */
import { randomBytes } from "node:crypto";
import {
  cleanText, LIMITS, openCollie, Refusal, type Collie, type Hooks, type Tab,
} from "@colliepwa/durable-sdk";
import { Conversation } from "./conversation.ts";
import { deskHistory } from "./history.ts";
import { LAYOUT, seed, STARTERS } from "./seed.ts";
import { DeskStore, type ConversationRecord } from "./store.ts";

export interface DeskOptions {
  /** The socket's path; default `$COLLIE_DURABLE_SOCKET` (S-5). */
  socket?: string;
  /** The desk's JSON store. */
  storePath: string;
  /** How long a card with an expiry stays open; default 2 minutes. */
  askExpiryMs?: number;
}

export class Desk {
  readonly store: DeskStore;
  readonly #askExpiryMs: number;
  /** Open conversations by pane id. */
  readonly #open = new Map<string, Conversation>();
  #collie: Collie | undefined;

  constructor(store: DeskStore, askExpiryMs: number) {
    this.store = store;
    this.#askExpiryMs = askExpiryMs;
  }

  get collie(): Collie {
    if (!this.#collie) throw new Error("the desk is not attached yet");
    return this.#collie;
  }

  /**
   * The core's hooks. Send, steer, stop and taps go to each pane's own handlers (S-19); these are
   * the actions that outlive a pane: rename, close, reopen and starters. The SDK applies rename
   * and close itself once the hook returns (S-30); the hook's job is to remember them.
   */
  readonly hooks: Hooks = {
    onRename: ({ target, title }) => {
      const clean = cleanText(title, LIMITS.titleBytes, { singleLine: true }).text;
      if (target.kind === "pane") this.store.patchConversation(target.id, { title: clean });
      else this.store.setTitle(target.id, clean);
    },
    onClose: ({ target }) => {
      const closing = [...this.#open.values()].filter((c) => {
        const r = c.record;
        return target.kind === "pane" ? r.id === target.id : target.kind === "tab" ? r.tabId === target.id : r.workspaceId === target.id;
      });
      for (const c of closing) this.#ended(c, "Closed on the phone");
      // A closed tab or workspace stays away after a restart too, until a conversation comes back into it.
      if (target.kind !== "pane") this.store.setHidden(target.id, true);
    },
    onReopen: ({ target }) => {
      // A conversation closed before a restart is only in the store: the SDK needs this hook for it (S-30).
      if (target.kind !== "pane") throw new Refusal("Only a conversation can be reopened.");
      const open = this.#open.get(target.id);
      if (open) return open.pane;
      const record = this.store.conversation(target.id);
      if (!record) throw new Refusal("The desk keeps no conversation with this id.");
      this.store.patchConversation(record.id, { state: "open", endedAt: undefined });
      return this.#layOut(record).pane;
    },
    onStarter: ({ starterId }) => {
      const starter = STARTERS.find((s) => s.id === starterId)!; // the SDK answered 404 for any other id
      const now = new Date().toISOString();
      const record = this.store.addConversation({
        id: `c-${Date.now().toString(36)}-${randomBytes(3).toString("hex")}`,
        title: starter.title,
        workspaceId: starter.tabId.split(":")[0]!,
        tabId: starter.tabId,
        startedAt: now,
        state: "open",
        items: [],
        turns: 0,
      });
      const conv = this.#layOut(record);
      conv.item({ kind: "notice", id: "intro", text: starter.intro });
      // The refund check does its work at once; the phone goes to the pane and watches it (P-25).
      if (starter.id === "refund-check") conv.startTurn("refund check");
      return conv.pane;
    },
  };

  /** Lays out what the store holds and tells Collie the layout is complete (S-9). */
  attach(collie: Collie): void {
    this.#collie = collie;
    collie.history(deskHistory(this.store));
    collie.setStarters(STARTERS.map(({ id, title, subtitle, icon }) => ({ id, title, subtitle, icon })));
    // Every tab first, so the phone lists them in order even while empty.
    for (const ws of LAYOUT) {
      if (this.store.isHidden(ws.id)) continue;
      for (const tab of ws.tabs) if (!this.store.isHidden(`${ws.id}:${tab.id}`)) this.#tab(`${ws.id}:${tab.id}`);
    }
    // Open conversations come back with their stored titles and items; closed ones stay in history (S-12).
    for (const record of this.store.conversations()) if (record.state === "open") this.#layOut(record);
    collie.ready();
  }

  /** Stops serving. Open asks stay open (S-8): a shutdown is not an answer. */
  async close(): Promise<void> {
    await this.#collie?.close();
  }

  #layOut(record: ConversationRecord): Conversation {
    this.store.setHidden(record.workspaceId, false);
    this.store.setHidden(record.tabId, false);
    const pane = this.#tab(record.tabId).pane(record.id, { title: record.title, harness: "desk" });
    const conv = new Conversation(pane, {
      store: this.store,
      askExpiryMs: this.#askExpiryMs,
      archive: (c) => {
        this.#ended(c, "Archived");
        c.pane.close();
      },
    });
    conv.restore();
    this.#open.set(record.id, conv);
    return conv;
  }

  /** A tab by its wire id, created with its stored (maybe renamed) titles when it is not laid out. */
  #tab(tabId: string): Tab {
    const [wsId, localId] = tabId.split(":") as [string, string];
    const ws = LAYOUT.find((w) => w.id === wsId);
    const tabTitle = ws?.tabs.find((t) => t.id === localId)?.title ?? localId;
    return this.collie
      .workspace(wsId, { title: this.store.titleOf(wsId, ws?.title ?? wsId) })
      .tab(localId, { title: this.store.titleOf(tabId, tabTitle) });
  }

  /** A conversation leaves the layout: its turn ends and the store marks it closed (S-30). */
  #ended(conv: Conversation, why: string): void {
    conv.abortTurn(why);
    this.store.patchConversation(conv.id, { state: "closed", endedAt: new Date().toISOString() });
    this.#open.delete(conv.id);
  }
}

/** Opens the desk: the store (seeded on a first start), the socket, the layout. */
export async function startDesk(options: DeskOptions): Promise<Desk> {
  const store = new DeskStore(options.storePath);
  if (store.fresh) seed(store);
  const desk = new Desk(store, options.askExpiryMs ?? 2 * 60_000);
  const collie = await openCollie({ hostName: "desk", hooks: desk.hooks, ...(options.socket ? { socket: options.socket } : {}) });
  desk.attach(collie);
  return desk;
}
