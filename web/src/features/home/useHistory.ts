/**
 * The agent's closed conversations (P-7, P-8): read from the agent's history once per visit and
 * again when `trigger` changes (a conversation of this agent opened or closed), never on a live
 * message. A list already drawn stays drawn when a later read fails; the failure becomes the note.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import type { HistoryRow } from "@colliepwa/shared";
import { NetworkError, type Api } from "../../app/api.ts";
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

async function read(api: Api, agent: string, q: { after?: string; limit: number }): Promise<HistoryOutcome> {
  try {
    const r = await api.history(agent, q);
    return historyOutcome(r.status, r.body);
  } catch (err) {
    if (err instanceof NetworkError) return { kind: "network" };
    return { kind: "error", status: 0, body: null };
  }
}

export function useHistory(api: Api, agent: string, enabled: boolean, trigger: string, wire: WireVersions): HistoryView & { loadMore: () => void } {
  const [view, setView] = useState<HistoryView>(EMPTY);
  // Each (re)read of the first page starts a generation; an older read's answer is dropped.
  const generation = useRef(0);
  /** Pages of 100 drawn: the first read (or a re-read) and each `Load more`. */
  const pagesDrawn = useRef(0);
  const wireRef = useRef(wire);
  useEffect(() => {
    wireRef.current = wire;
  });

  useEffect(() => {
    if (!enabled) return;
    const mine = ++generation.current;
    setView((v) => ({ ...v, loading: true, loadingMore: false }));
    const limit = refreshLimit(pagesDrawn.current);
    void read(api, agent, { limit }).then((outcome) => {
      if (generation.current !== mine) return;
      if (outcome.kind === "page") {
        rememberClosedTitles(agent, outcome.page.rows);
        pagesDrawn.current = limit / HISTORY_PAGE;
        setView({ rows: outcome.page.rows, next: outcome.page.next, drawn: true, note: null, loading: false, loadingMore: false });
      } else {
        // P-8: what is drawn stays drawn; the note says why the read failed.
        setView((v) => ({ ...v, note: historyNote(outcome, wireRef.current), loading: false }));
      }
    });
  }, [api, agent, enabled, trigger]);

  useEffect(() => () => {
    generation.current++; // unmounted: drop answers still on their way
  }, []);

  const loadMore = useCallback(() => {
    const cursor = view.next;
    if (!cursor || view.loadingMore || view.loading) return;
    const mine = generation.current;
    setView((v) => ({ ...v, loadingMore: true }));
    void read(api, agent, { after: cursor, limit: HISTORY_PAGE }).then((outcome) => {
      if (generation.current !== mine) return; // a re-read replaced the list meanwhile
      if (outcome.kind === "page") {
        rememberClosedTitles(agent, outcome.page.rows);
        pagesDrawn.current++;
        setView((v) => ({ ...v, rows: appendRows(v.rows, outcome.page.rows), next: outcome.page.next, note: null, loadingMore: false }));
      } else {
        setView((v) => ({ ...v, note: historyNote(outcome, wireRef.current), loadingMore: false }));
      }
    });
  }, [api, agent, view.next, view.loadingMore, view.loading]);

  return { ...(enabled ? view : EMPTY), loadMore };
}
