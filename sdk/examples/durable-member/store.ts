/**
 * The desk's own store: one JSON file with its conversations and tickets.
 *
 * The SDK rebuilds the layout at every start and keeps nothing across a restart (S-12), so
 * everything that should outlive the process lives here: titles the phone renamed, conversations
 * the phone closed (S-30), what each conversation showed (served as history, S-31) and the tickets
 * the tools work on. Every change is written at once and atomically (a temp file, then rename), so
 * a crash or SIGKILL leaves either the old file or the new one, never half of one.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Item } from "@colliepwa/durable-sdk";

/** One conversation: a pane while it is open, a history row always (S-31). */
export interface ConversationRecord {
  id: string;
  title: string;
  subtitle?: string;
  /** The workspace id and the wire tab id (`<workspace>:<tab>`, S-11). */
  workspaceId: string;
  tabId: string;
  startedAt: string;
  endedAt?: string;
  state: "open" | "closed";
  /** What the conversation showed, final versions only (a growing item is stored once it is done). */
  items: Item[];
  /** The ticket the conversation is about; a starter's conversation may have none. */
  ticketId?: string;
  /** Turns run so far: turn ids `turn-<n>` stay unique across restarts. */
  turns: number;
  escalated?: boolean;
  resolved?: boolean;
  /**
   * A risky call waiting for an Allow, kept until it is decided: should the desk stop meanwhile,
   * its next start raises the same call again, so the same ask comes back (S-23) and an answer
   * Collie held for it lands (D-5).
   */
  waiting?: WaitingCall;
}

/** A risky call that waits for an Allow (ConversationRecord.waiting). */
export interface WaitingCall {
  turnId: string;
  /** The call's id, which is also its tool item's id; the ask's id comes from it. */
  callId: string;
  /** How many ids the turn had handed out, so the resumed turn's next ids are new. */
  idsUsed: number;
  tool: string;
  args: Record<string, unknown>;
}

/** An order a customer wrote in about; the tools read and change it. */
export interface TicketRecord {
  id: string;
  customer: string;
  order: string;
  product: string;
  amount: number;
  currency: string;
  status: string;
  size?: string;
  extras?: string[];
  address?: { street: string; country: string; leaveAtDoor: boolean };
  notes: string[];
  invoice?: string;
}

interface StoreFile {
  version: 1;
  conversations: ConversationRecord[];
  tickets: Record<string, TicketRecord>;
  /** Workspace and tab titles the phone renamed, by workspace id or wire tab id (S-12). */
  titles: Record<string, string>;
  /** Workspaces and tabs the phone closed: they are not laid out again until a conversation comes back into them. */
  hidden: string[];
}

export class DeskStore {
  readonly path: string;
  /** True when the file did not exist: the desk seeds its first conversations. */
  readonly fresh: boolean;
  readonly #data: StoreFile;

  constructor(path: string) {
    this.path = path;
    let data: StoreFile | undefined;
    try {
      data = JSON.parse(readFileSync(path, "utf8")) as StoreFile;
    } catch (err) {
      // A missing file is a first start; a file we cannot read is an error, not a reason to start empty.
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw new Error(`cannot read the desk store ${path}: ${(err as Error).message}`);
    }
    this.fresh = data === undefined;
    this.#data = data ?? { version: 1, conversations: [], tickets: {}, titles: {}, hidden: [] };
    this.#data.titles ??= {};
    this.#data.hidden ??= [];
  }

  conversations(): readonly ConversationRecord[] {
    return this.#data.conversations;
  }

  conversation(id: string): ConversationRecord | undefined {
    return this.#data.conversations.find((c) => c.id === id);
  }

  addConversation(record: ConversationRecord): ConversationRecord {
    if (this.conversation(record.id)) throw new Error(`conversation ${record.id} exists`);
    this.#data.conversations.push(record);
    this.#save();
    return record;
  }

  /** Changes a conversation's fields; `undefined` removes a field (e.g. `endedAt` on reopen). */
  patchConversation(id: string, patch: Partial<Omit<ConversationRecord, "id" | "items">>): ConversationRecord {
    const record = this.#must(id);
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) delete (record as unknown as Record<string, unknown>)[key];
      else (record as unknown as Record<string, unknown>)[key] = value;
    }
    this.#save();
    return record;
  }

  /** Keeps an item as the pane shows it: a known id replaces the earlier one in place (S-14). */
  putItem(id: string, item: Item): void {
    const record = this.#must(id);
    const at = record.items.findIndex((i) => i.id === item.id);
    if (at >= 0) record.items[at] = item;
    else record.items.push(item);
    this.#save();
  }

  ticket(id: string | undefined): TicketRecord | undefined {
    return id === undefined ? undefined : this.#data.tickets[id];
  }

  putTicket(ticket: TicketRecord): void {
    this.#data.tickets[ticket.id] = ticket;
    this.#save();
  }

  tickets(): TicketRecord[] {
    return Object.values(this.#data.tickets);
  }

  /** A workspace or tab title, as renamed on the phone, else the default. */
  titleOf(key: string, fallback: string): string {
    return this.#data.titles[key] ?? fallback;
  }

  setTitle(key: string, title: string): void {
    this.#data.titles[key] = title;
    this.#save();
  }

  isHidden(key: string): boolean {
    return this.#data.hidden.includes(key);
  }

  setHidden(key: string, hidden: boolean): void {
    if (this.isHidden(key) === hidden) return;
    this.#data.hidden = hidden ? [...this.#data.hidden, key] : this.#data.hidden.filter((k) => k !== key);
    this.#save();
  }

  #must(id: string): ConversationRecord {
    const record = this.conversation(id);
    if (!record) throw new Error(`no conversation ${id}`);
    return record;
  }

  /** Temp file plus rename: readers and a later start see the old file or the new one, never a torn one. */
  #save(): void {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const temp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(this.#data, null, 1)}\n`, { mode: 0o600 });
    renameSync(temp, this.path);
  }
}
