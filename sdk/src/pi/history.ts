/**
 * `piHistory` (S-31, S-35): Pi's own session storage (`SessionManager`'s JSONL files) as the
 * conversations the phone's history lists. Every saved session is a row; its entries are items
 * (`transcript.ts`, the same reading as a pane's first page). A row is `open` while a pane of the
 * core that serves this history shows the session (issue 33: the registry is the core's own panes).
 */
import type { SessionInfo, SessionManager } from "@mariozechner/pi-coding-agent";
import type { HistoryProvider } from "../core/core.ts";
import type { Pane } from "../core/layout.ts";
import { cleanText } from "../wire/rules.ts";
import { LIMITS } from "../wire/constants.ts";
import type { HistoryItemsPage, HistoryPage, HistoryRow } from "../wire/types.ts";
import { wireId } from "./items.ts";
import { sessionItems } from "./transcript.ts";

export interface PiHistoryOptions {
  /**
   * The working directory whose sessions are listed (Pi files sessions by it). Left out: every
   * session in Pi's own folder (`~/.pi/agent/sessions/`, or under `PI_CODING_AGENT_DIR`) and in
   * `sessionDirs()`.
   */
  cwd?: string;
  /** With `cwd`: where its sessions are; default Pi's own folder for `cwd`. */
  sessionDir?: string;
  /** Without `cwd`: more folders of sessions to list (a `pi --session-dir`, `PI_CODING_AGENT_SESSION_DIR`). */
  sessionDirs?: () => Iterable<string>;
  /** A folder as a row's subtitle (default the folder itself); the rows of one folder read alike. */
  folderLabel?: (cwd: string) => string;
}

type SessionManagerClass = typeof SessionManager;
let loaded: Promise<SessionManagerClass> | undefined;
/** Loaded on first use: an agent imports `./pi` without paying for Pi's coding agent until the phone asks. */
const sessionManager = (): Promise<SessionManagerClass> =>
  (loaded ??= import("@mariozechner/pi-coding-agent").then((m) => m.SessionManager));

/** What a history provider learns of the core it serves: its open panes. */
interface ServedBy {
  readonly panes: ReadonlyMap<string, Pane>;
}

/** A HistoryProvider over Pi's saved sessions. */
export function piHistory(opts: PiHistoryOptions): HistoryProvider {
  if (!opts || typeof opts !== "object") throw new TypeError("piHistory needs options ({ cwd } or { sessionDirs })");
  if (opts.cwd !== undefined && (typeof opts.cwd !== "string" || opts.cwd.length === 0)) throw new TypeError("piHistory's cwd must be a path");
  if (opts.sessionDir !== undefined && typeof opts.sessionDir !== "string") throw new TypeError("sessionDir must be a string");
  if (opts.sessionDir !== undefined && opts.cwd === undefined) throw new TypeError("sessionDir goes with cwd; list more folders with sessionDirs");
  if (opts.sessionDirs !== undefined && typeof opts.sessionDirs !== "function") throw new TypeError("sessionDirs must be a function");
  const { cwd, sessionDir } = opts;
  const label = opts.folderLabel ?? ((dir: string) => dir);
  let core: ServedBy | undefined;

  /** Newest first; ties by id, so pages do not shift while a session grows. */
  const sessions = async (): Promise<SessionInfo[]> => {
    const SM = await sessionManager();
    let infos: SessionInfo[];
    if (cwd !== undefined) infos = await SM.list(cwd, sessionDir);
    else {
      const lists = await Promise.all([SM.listAll(), ...[...(opts.sessionDirs?.() ?? [])].map((dir) => SM.list("", dir))]);
      const byPath = new Map<string, SessionInfo>();
      for (const info of lists.flat()) byPath.set(info.path, info);
      infos = [...byPath.values()];
    }
    return infos.sort((a, b) => b.created.getTime() - a.created.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  };

  /** The open pane of the serving core that shows this session, if any. */
  const livePane = (sessionId: string): Pane | undefined => {
    if (!core) return undefined;
    const id = wireId(sessionId);
    for (const pane of core.panes.values()) if (!pane.closed && pane.sessionId === id) return pane;
    return undefined;
  };

  const rowOf = (info: SessionInfo, session: SessionManager): HistoryRow => {
    const id = wireId(info.id);
    const pane = livePane(info.id);
    const named = info.name ?? info.firstMessage;
    const title = cleanText(named ?? "", LIMITS.titleBytes, { singleLine: true }).text || id;
    const row: HistoryRow = { id, title, startedAt: info.created.toISOString(), state: pane ? "open" : "closed", items: sessionItems(session).length };
    if (cwd === undefined && info.cwd) row.subtitle = cleanText(label(info.cwd), LIMITS.subtitleBytes, { singleLine: true }).text;
    if (pane) {
      row.workspaceId = pane.tab.workspace.id;
      row.tabId = pane.tab.id;
    } else {
      row.endedAt = info.modified.toISOString();
    }
    return row;
  };

  return {
    bind(served: ServedBy) {
      core = served;
    },
    async list({ after, limit }): Promise<HistoryPage> {
      const all = await sessions();
      const from = offsetOf(after);
      const SM = await sessionManager();
      const rows = all.slice(from, from + limit).map((info) => rowOf(info, SM.open(info.path, sessionDir)));
      return from + limit < all.length ? { rows, next: String(from + limit) } : { rows };
    },
    async items(sessionId, { after, limit }): Promise<HistoryItemsPage | null> {
      const info = (await sessions()).find((s) => wireId(s.id) === sessionId);
      if (!info) return null;
      const SM = await sessionManager();
      const items = sessionItems(SM.open(info.path, sessionDir));
      const from = offsetOf(after);
      const page = items.slice(from, from + limit);
      return from + limit < items.length ? { items: page, next: String(from + limit) } : { items: page };
    },
  };
}

/** Cursors are offsets written as decimal strings (S-31: the agent's own strings). */
function offsetOf(after: string | undefined): number {
  if (after === undefined) return 0;
  if (!/^\d{1,9}$/.test(after)) throw new RangeError(`cursor ${JSON.stringify(after)} is not one piHistory wrote`);
  return Number(after);
}
