/**
 * `piHistory` (S-31, S-35): Pi's own session storage (`SessionManager`'s JSONL files) as the
 * conversations the phone's history lists. Every saved session is a row; its entries are items.
 */
import type { SessionEntry, SessionInfo, SessionManager } from "@mariozechner/pi-coding-agent";
import type { HistoryProvider } from "../core/core.ts";
import { cleanText } from "../wire/rules.ts";
import { LIMITS } from "../wire/constants.ts";
import type { HistoryItemsPage, HistoryPage, HistoryRow, Item, ToolItem } from "../wire/types.ts";
import { contentText, finishedTool, isAssistant, roleOf, runningTool, wireId } from "./items.ts";
import { DENIED_ENTRY, livePane } from "./sessions.ts";

export interface PiHistoryOptions {
  /** The working directory the sessions belong to (Pi files sessions by it). */
  cwd: string;
  /** Where the sessions are; default Pi's own folder for `cwd` (under `~/.pi/agent/sessions/`). */
  sessionDir?: string;
}

type SessionManagerClass = typeof SessionManager;
let loaded: Promise<SessionManagerClass> | undefined;
/** Loaded on first use: an agent imports `./pi` without paying for Pi's coding agent until the phone asks. */
const sessionManager = (): Promise<SessionManagerClass> =>
  (loaded ??= import("@mariozechner/pi-coding-agent").then((m) => m.SessionManager));

/** A HistoryProvider over the Pi sessions of `cwd`. */
export function piHistory(opts: PiHistoryOptions): HistoryProvider {
  if (!opts || typeof opts.cwd !== "string" || opts.cwd.length === 0) throw new TypeError("piHistory needs opts.cwd");
  if (opts.sessionDir !== undefined && typeof opts.sessionDir !== "string") throw new TypeError("sessionDir must be a string");
  const { cwd, sessionDir } = opts;

  /** Newest first; ties by id, so pages do not shift while a session grows. */
  const sessions = async (): Promise<SessionInfo[]> => {
    const SM = await sessionManager();
    const infos = await SM.list(cwd, sessionDir);
    return infos.sort((a, b) => b.created.getTime() - a.created.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  };

  return {
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

function rowOf(info: SessionInfo, session: SessionManager): HistoryRow {
  const id = wireId(info.id);
  const pane = livePane(info.id);
  const named = info.name ?? info.firstMessage;
  const title = cleanText(named ?? "", LIMITS.titleBytes, { singleLine: true }).text || id;
  const row: HistoryRow = {
    id,
    title,
    startedAt: info.created.toISOString(),
    state: pane ? "open" : "closed",
    items: sessionItems(session).length,
  };
  if (pane) {
    row.workspaceId = pane.tab.workspace.id;
    row.tabId = pane.tab.id;
  } else {
    row.endedAt = info.modified.toISOString();
  }
  return row;
}

/**
 * A session's current branch as items: user lines, replies and thinking per block, one tool item
 * per call (ending done, failed or denied with its result), an error as a notice.
 */
export function sessionItems(session: SessionManager): Item[] {
  const entries = session.getEntries();
  const denied = new Set(
    entries.flatMap((e) => (e.type === "custom" && e.customType === DENIED_ENTRY ? [String((e.data as { toolCallId?: unknown } | undefined)?.toolCallId)] : [])),
  );
  const items: Item[] = [];
  const tools = new Map<string, number>();
  for (const entry of session.getBranch()) {
    if (entry.type !== "message") continue;
    const ts = timeOf(entry);
    const base = wireId(entry.id);
    const message = entry.message;
    const role = roleOf(message);
    if (role === "user") {
      const text = contentText((message as { content?: unknown }).content);
      if (text.length > 0) items.push({ id: `${base}-u`, kind: "user", text, ...ts });
    } else if (isAssistant(message)) {
      message.content.forEach((block, i) => {
        if (block.type === "text" && typeof block.text === "string" && block.text.length > 0) {
          items.push({ id: `${base}-${i}`, kind: "reply", text: block.text, ...ts });
        } else if (block.type === "thinking" && typeof block.thinking === "string" && block.thinking.length > 0 && block.redacted !== true) {
          items.push({ id: `${base}-${i}`, kind: "thinking", text: block.thinking, ...ts });
        } else if (block.type === "toolCall" && typeof block.id === "string" && typeof block.name === "string") {
          tools.set(block.id, items.length);
          items.push({ ...runningTool(block.id, block.name, block.arguments), ...ts });
        }
      });
      if (message.stopReason === "error" && message.errorMessage) items.push({ id: `${base}-error`, kind: "notice", text: message.errorMessage, ...ts });
    } else if (role === "toolResult") {
      const result = message as { toolCallId: string; toolName: string; content?: unknown; isError?: boolean };
      const at = tools.get(result.toolCallId);
      const running = at === undefined ? { ...runningTool(result.toolCallId, result.toolName, undefined), ...ts } : (items[at] as ToolItem);
      const done = finishedTool(running, { content: result.content, isError: result.isError === true }, denied.has(result.toolCallId));
      if (at === undefined) items.push(done);
      else items[at] = done;
    }
  }
  return items;
}

function timeOf(entry: SessionEntry): { ts?: string } {
  const ms = Date.parse(entry.timestamp);
  return Number.isFinite(ms) ? { ts: new Date(ms).toISOString() } : {};
}
