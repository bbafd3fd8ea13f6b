/**
 * The agent's closed conversations (P-7, P-8): read from the agent's history once per visit and
 * again when `trigger` changes (a conversation of this agent opened or closed), never on a live
 * message. A list already drawn stays drawn when a later read fails; the failure becomes the note.
 * Each (re)read of the first page is a fresh read of the read layer: it drops the answers of every
 * read before it, `Load more` pages included.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import type { HistoryRow } from "@colliepwa/shared";
import type { HistoryPage } from "@colliepwa/durable-sdk/wire";
import { useRead } from "../../app/react.ts";
import type { ReadResult } from "../../app/reads.ts";
import {
  appendRows, HISTORY_PAGE, historyNote, historyOutcome, refreshLimit, rememberClosedTitles, type HistoryOutcome, type WireVersions,
} from "./home.ts";

export interface HistoryView {
  /** The rows drawn (open and closed, in the agent's order). */
  rows: HistoryRow[];
  /** The cursor of the next page; absent ends the list. */
  next: string | undefined;
  /** True once a page arrived. */
  drawn: boolean;
  /** The note at the end of the list, or null. */
  note: string | null;
  loading: boolean;
  loadingMore: boolean;
}

const EMPTY: HistoryView = { rows: [], next: undefined, drawn: false, note: null, loading: false, loadingMore: false };

function outcomeOf(r: ReadResult<HistoryPage>): HistoryOutcome {
  if (r.kind === "reply") return historyOutcome(r.reply.status, r.reply.body);
  if (r.kind === "no-reply") return { kind: "network" };
  return { kind: "error", status: 0, body: null };
}

/**
 * `away`: Collie cannot reach the agent (the home's note says so, issue #32 item 3): no read is
 * made, no note of a failed read is shown (one state, one sentence), and what was drawn stays;
 * the list is read again when the agent is back.
 */
export function useHistory(agent: string, enabled: boolean, trigger: string, wire: WireVersions, away = false): HistoryView & { loadMore: () => void } {
  const reader = useRead();
  const [view, setView] = useState<HistoryView>(EMPTY);
  /** Pages of 100 drawn: the first read (or a re-read) and each `Load more`. */
  const pagesDrawn = useRef(0);
  const wireRef = useRef(wire);
  useEffect(() => {
    wireRef.current = wire;
  });

  useEffect(() => {
    if (!enabled || away) return;
    setView((v) => ({ ...v, loading: true, loadingMore: false }));
    const limit = refreshLimit(pagesDrawn.current);
    void reader.fresh("history", { agent }, { limit }).then((r) => {
      const outcome = outcomeOf(r);
      if (outcome.kind === "page") {
        rememberClosedTitles(agent, outcome.page.rows);
        pagesDrawn.current = limit / HISTORY_PAGE;
        setView({ rows: outcome.page.rows, next: outcome.page.next, drawn: true, note: null, loading: false, loadingMore: false });
      } else {
        // P-8: what is drawn stays drawn; the note says why the read failed.
        setView((v) => ({ ...v, note: historyNote(outcome, wireRef.current), loading: false }));
      }
    });
  }, [reader, agent, enabled, trigger, away]);

  const loadMore = useCallback(() => {
    const cursor = view.next;
    if (!cursor || view.loadingMore || view.loading) return;
    setView((v) => ({ ...v, loadingMore: true }));
    // Dropped when a re-read replaces the list meanwhile.
    void reader.more("history", { agent }, { after: cursor, limit: HISTORY_PAGE }).then((r) => {
      const outcome = outcomeOf(r);
      if (outcome.kind === "page") {
        rememberClosedTitles(agent, outcome.page.rows);
        pagesDrawn.current++;
        setView((v) => ({ ...v, rows: appendRows(v.rows, outcome.page.rows), next: outcome.page.next, note: null, loadingMore: false }));
      } else {
        setView((v) => ({ ...v, note: historyNote(outcome, wireRef.current), loadingMore: false }));
      }
    });
  }, [reader, agent, view.next, view.loadingMore, view.loading]);

  if (!enabled) return { ...EMPTY, loadMore };
  return { ...view, ...(away ? { note: null, loading: false, loadingMore: false } : {}), loadMore };
}
