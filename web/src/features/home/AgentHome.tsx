/**
 * The agent's home, its conversation list (P-5…P-8, P-17): like a messaging app's chat list.
 * Open rows come from the store and draw at once (waiting first, then newest first); closed rows
 * come from the agent's history under `Closed`; the notes of P-8 end the list. Agent text is
 * always rendered as text, never as markup.
 */
import { useEffect, useMemo, useState } from "react";
import { STRINGS, type AlwaysAllowedPage, type Conversation, type HistoryRow } from "@colliepwa/shared";
import { sureReply } from "../../app/actions.ts";
import { usePhone, usePhoneState, useRead, useRepeatUntilSure } from "../../app/react.ts";
import { go, href } from "../../app/router.ts";
import { agentName, conversationLine2, conversationTitle, shortTime, sortConversations } from "../../app/rules.ts";
import { agentAway, AWAY_WORDS, AwayNote } from "../../ui/AgentAway.tsx";
import { ExperimentalBadge } from "../../ui/Badge.tsx";
import {
  agentConversations, closedRows, closedRowTime, openedPane, openSetKey, refusalReason, rowMark, versionWarning,
} from "./home.ts";
import { Mark } from "./Mark.tsx";
import { useHistory } from "./useHistory.ts";
import "./home.css";
import { WORDS } from "@colliepwa/shared/strings";

export function AgentHome({ agent }: { agent: string }) {
  const phone = usePhone();
  const state = usePhoneState();
  const summary = state.agents.get(agent);
  const open = useMemo(() => sortConversations(agentConversations(state.conversations.values(), agent)), [state.conversations, agent]);
  const trigger = openSetKey(open);
  const caps = summary?.caps ?? null;
  // P-8: an agent without the history cap shows its open conversations alone, no Closed, no note.
  const hasHistory = caps?.history === true;
  const wire = { agent: summary?.wire.agent ?? null, collie: summary?.wire.collie ?? state.collie?.wire ?? 1 };
  const away = agentAway(summary);
  const history = useHistory(agent, hasHistory, trigger, wire, away);
  const closed = useMemo(() => closedRows(history.rows, open), [history.rows, open]);
  const moreOpen = useMoreOpen(agent, open.length, summary?.counts.open ?? 0);
  const now = phone.now();
  const always = useAlwaysAllowed(agent);

  if (state.loaded && !summary) {
    return (
      <main className="screen agent-home">
        <header className="topbar">
          <a className="icon-button" href={href({ name: "dashboard" })} aria-label={WORDS.screen.back}>‹</a>
          <h1>{agent}</h1>
        </header>
        <p className="muted">No durable agent named “{agent}” is attached to this Collie.</p>
        <p><a href={href({ name: "dashboard" })}>{WORDS.screen.backToDashboard}</a></p>
      </main>
    );
  }

  const warning = versionWarning(summary);
  const empty = open.length === 0 && closed.length === 0 && !history.loading && history.note === null;
  return (
    <main className="screen agent-home">
      <header className="topbar">
        <a className="icon-button" href={href({ name: "dashboard" })} aria-label={WORDS.screen.back}>‹</a>
        <div className="home-title">
          <h1>
            {agentName(agent, summary)} <ExperimentalBadge />
          </h1>
          {/* Two agents named `desk` on two machines: the header says whose (C-1, issue #37). */}
          {summary?.machine && <div className="home-line2 muted" data-machine={summary.machine}>{summary.machine}</div>}
        </div>
        {caps?.starters === true && (
          <a className="home-new" href={href({ name: "new", agent })} aria-label={STRINGS.newConversation}>
            <span aria-hidden="true">+</span> New
          </a>
        )}
      </header>
      {warning !== null && <p className="warning" role="alert">{warning}</p>}
      {away && <AwayNote text={AWAY_WORDS.home} />}
      {!state.loaded && <p className="muted">{WORDS.screen.connecting}</p>}
      {open.length > 0 && (
        <ul className="rows home-open" aria-label={WORDS.screen.openConversations}>
          {open.map((c) => <OpenRow key={c.id} c={c} now={now} />)}
        </ul>
      )}
      {moreOpen.more && (
        <div className="home-end" aria-busy={moreOpen.loading}>
          <button type="button" className="home-more home-more-open" onClick={moreOpen.load} disabled={moreOpen.loading}>
            {STRINGS.loadMore}
          </button>
        </div>
      )}
      {summary?.notShown !== undefined && summary.notShown > 0 && (
        <p className="muted home-note" role="status">{WORDS.screen.notShown(summary.counts.open, summary.notShown)}</p>
      )}
      {hasHistory && closed.length > 0 && (
        <section className="home-closed" aria-labelledby="home-closed-heading">
          <h2 id="home-closed-heading">{STRINGS.closed}</h2>
          <ul className="rows">
            {closed.map((r) => <ClosedRow key={r.id} agent={agent} row={r} now={now} canReopen={caps?.reopen === true} />)}
          </ul>
        </section>
      )}
      {always.length > 0 && (
        <section className="home-always" aria-labelledby="home-always-heading">
          <h2 id="home-always-heading">{WORDS.screen.alwaysAllowed}</h2>
          {/* What it means and how it ends (issue #32), one tap away. */}
          <details className="always-what">
            <summary>{WORDS.screen.alwaysAllowedWhat}</summary>
            <p className="muted">{WORDS.screen.alwaysAllowedMeans}</p>
          </details>
          <ul className="always-list">
            {always.map((t) => (
              <li key={t.tool} data-tool={t.tool}>
                <span className="always-tool">{t.tool}</span>
                <span className="muted"> · {t.device} · <time dateTime={t.at}>{shortTime(t.at, now)}</time></span>
              </li>
            ))}
          </ul>
        </section>
      )}
      {state.loaded && empty && <p className="muted home-empty">{hasHistory ? "No conversations yet." : "No open conversations."}</p>}
      {hasHistory && (
        <div className="home-end" aria-busy={history.loading || history.loadingMore}>
          {history.next !== undefined && (
            <button type="button" className="home-more" onClick={history.loadMore} disabled={history.loadingMore || history.loading}>
              {STRINGS.loadMore}
            </button>
          )}
          {history.note !== null && <p className="home-note muted" role="status">{history.note}</p>}
        </div>
      )}
    </main>
  );
}

/**
 * The agent's open conversations past the snapshot's first page (the snapshot carries only that
 * page): `Load more` reads the next one, in the same order, into the store.
 */
function useMoreOpen(agent: string, loaded: number, total: number): { more: boolean; loading: boolean; load: () => void } {
  const phone = usePhone();
  const reader = useRead();
  const [loading, setLoading] = useState(false);
  const load = () => {
    setLoading(true);
    void reader.more("conversations", { agent }, { after: String(loaded) }).then((r) => {
      if (r.kind === "reply" && r.reply.status === 200) phone.store.addConversations(r.reply.body.conversations);
      setLoading(false);
    });
  };
  return { more: loaded < total, loading, load };
}

/**
 * The tools a phone answered `Always allow` for on this agent (issue 21), read once per visit and
 * again when a new decision comes in or the agent's open asks change. The agent itself remembers
 * them (S-27); this is Collie's record, which ends a tool when the agent asks about it again.
 */
function useAlwaysAllowed(agent: string): AlwaysAllowedPage["tools"] {
  const reader = useRead();
  const [tools, setTools] = useState<AlwaysAllowedPage["tools"]>([]);
  const decisions = usePhoneState().decisions;
  const alwaysCount = useMemo(() => {
    let n = 0;
    for (const [key, list] of decisions) if (key.startsWith(`${agent}\n`)) n += list.filter((d) => d.optionKind === "allow-always").length;
    return n;
  }, [decisions, agent]);
  // An ask about a tool ends its `Always allowed` (what the agent says now, issue #37): read again
  // when the agent's open asks change.
  const conversations = usePhoneState().conversations;
  const asks = useMemo(() => {
    const parts: string[] = [];
    for (const c of conversations.values()) if (c.agent === agent && c.openAsks > 0) parts.push(`${c.id}:${c.openAsks}`);
    return parts.sort().join(" ");
  }, [conversations, agent]);
  useEffect(() => {
    // Offline, or refused: the list stays as it was.
    void reader.fresh("alwaysAllowed", { agent }).then((r) => {
      if (r.kind === "reply" && r.reply.status === 200 && Array.isArray(r.reply.body.tools)) setTools(r.reply.body.tools);
    });
    return () => reader.drop();
  }, [reader, agent, alwaysCount, asks]);
  return tools;
}

function OpenRow({ c, now }: { c: Conversation; now: number }) {
  const mark = rowMark(c);
  const line2 = conversationLine2(c);
  return (
    <li>
      <a className={`row conv-row conv-${mark}`} href={href({ name: "chat", agent: c.agent, pane: c.id })} data-pane={c.id}>
        <Mark mark={mark} />
        <span className="row-main">
          <span className="row-line1">
            <span className="row-title" dir="auto">{conversationTitle(c)}</span>
            <time className="conv-time muted" dateTime={c.activeAt}>{shortTime(c.activeAt, now)}</time>
          </span>
          <span className="row-line2 conv-line2">
            <span className={`conv-line2-text ${c.pendingQuestion ? "conv-question" : "muted"}`} dir="auto">{line2}</span>
            {mark === "waiting" && c.openAsks > 0 && (
              <span className="count accent" aria-label={`${c.openAsks} open ${c.openAsks === 1 ? "ask" : "asks"}`}>{c.openAsks}</span>
            )}
          </span>
        </span>
      </a>
    </li>
  );
}

type ReopenState = { kind: "idle" } | { kind: "sending" } | { kind: "failed"; text: string };

function ClosedRow({ agent, row, now, canReopen }: { agent: string; row: HistoryRow; now: number; canReopen: boolean }) {
  const phone = usePhone();
  const [reopen, setReopen] = useState<ReopenState>({ kind: "idle" });
  /** A reopen whose outcome is unknown (no reply, a 5xx): the next tap sends its request id again (P-14). */
  const taps = useRepeatUntilSure();
  const time = closedRowTime(row);

  const onReopen = async () => {
    if (reopen.kind === "sending") return;
    setReopen({ kind: "sending" });
    try {
      // A new request id per tap once the last one's outcome is known; the same one until then (P-14).
      const result = await taps.tap(() => phone.actions.reopen({ agent }, { target: { kind: "pane", id: row.id } }));
      const reply = sureReply(result);
      if (!reply) {
        setReopen({ kind: "failed", text: STRINGS.sendingNotConfirmed });
        return;
      }
      const pane = openedPane(reply.status, reply.body);
      if (pane !== null) {
        go({ name: "chat", agent, pane });
        return;
      }
      if (reply.status === 200 || reply.status === 202) {
        setReopen({ kind: "idle" }); // reopened; the row leaves Closed when the conversation opens
        return;
      }
      setReopen({ kind: "failed", text: refusalReason(reply.body) ?? "Not reopened. Try again." });
    } catch {
      setReopen({ kind: "failed", text: "Not reopened. Try again." });
    }
  };

  return (
    <li className="closed-item">
      <div className="row closed-row" data-session={row.id}>
        <a className="closed-link" href={href({ name: "closed", agent, session: row.id })}>
          <Mark mark="closed" />
          <span className="row-main">
            <span className="row-line1">
              <span className="row-title" dir="auto">{conversationTitle(row)}</span>
              <time className="conv-time muted" dateTime={time}>{shortTime(time, now)}</time>
            </span>
            <span className="row-line2 muted" dir="auto">{row.subtitle ?? ""}</span>
          </span>
        </a>
        {canReopen && (
          <button type="button" className="home-reopen" onClick={() => void onReopen()} disabled={reopen.kind === "sending"} aria-label={`${STRINGS.reopen} ${conversationTitle(row)}`}>
            {STRINGS.reopen}
          </button>
        )}
      </div>
      {reopen.kind === "failed" && <p className="closed-error muted" role="status">{reopen.text}</p>}
    </li>
  );
}
