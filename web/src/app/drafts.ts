/**
 * What is typed in a chat's composer and not sent yet (P-26: nothing typed is lost), kept per
 * conversation in the browser's localStorage: a reload, a restart of the phone or of Collie, an
 * agent that is down, finds the text where it was left. localStorage, not IndexedDB, because it
 * answers at once: the chat draws with its draft in place, so the composer does not jump when the
 * text arrives a moment later. At most `MAX_DRAFTS` conversations keep a draft, the ones typed in
 * last; an empty draft is no draft. Storage that refuses (private mode, a full quota) leaves the
 * draft in memory for this page.
 */

/** The part of `Storage` drafts use (the browser's localStorage, or a map in tests). */
export type DraftStorage = Pick<Storage, "getItem" | "setItem" | "removeItem">;

/** How many conversations keep a draft; typing in one more drops the one typed in longest ago. */
export const MAX_DRAFTS = 100;

const INDEX_KEY = "collie.drafts";
const textKey = (key: string): string => `collie.draft:${key}`;

export class Drafts {
  readonly #storage: DraftStorage | null;
  /** Drafts of this page, so a refusing storage still keeps them while the page lives. */
  readonly #memory = new Map<string, string>();

  constructor(storage: DraftStorage | null) {
    this.#storage = storage;
  }

  /** The draft of a conversation (`paneKey`), or "". */
  get(key: string): string {
    const mine = this.#memory.get(key);
    if (mine !== undefined) return mine;
    try {
      return this.#storage?.getItem(textKey(key)) ?? "";
    } catch {
      return "";
    }
  }

  /** Keeps (or, when empty, forgets) the draft of a conversation. */
  set(key: string, text: string): void {
    this.#memory.set(key, text);
    const s = this.#storage;
    if (!s) return;
    try {
      const index = this.#index().filter((k) => k !== key);
      if (text === "") s.removeItem(textKey(key));
      else {
        index.push(key);
        for (const old of index.splice(0, Math.max(0, index.length - MAX_DRAFTS))) {
          s.removeItem(textKey(old));
          this.#memory.delete(old);
        }
        s.setItem(textKey(key), text);
      }
      s.setItem(INDEX_KEY, JSON.stringify(index));
    } catch {
      // Storage refused (private mode, quota): the draft lives on in memory for this page.
    }
  }

  /** The conversations with a draft, typed in longest ago first. */
  #index(): string[] {
    try {
      const raw: unknown = JSON.parse(this.#storage?.getItem(INDEX_KEY) ?? "[]");
      return Array.isArray(raw) ? raw.filter((k): k is string => typeof k === "string") : [];
    } catch {
      return [];
    }
  }
}

/** Drafts in memory only (tests, a browser without localStorage). */
export function memoryDraftStorage(): DraftStorage {
  const m = new Map<string, string>();
  return { getItem: (k) => m.get(k) ?? null, setItem: (k, v) => void m.set(k, String(v)), removeItem: (k) => void m.delete(k) };
}

/** The browser's localStorage, when the page may use it. */
export function browserDraftStorage(): DraftStorage | null {
  try {
    return typeof localStorage !== "undefined" ? localStorage : null;
  } catch {
    return null; // a browser that forbids storage throws on the very access
  }
}
