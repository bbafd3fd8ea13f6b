/**
 * The agent's New page (P-25): titled `New conversation`, it lists the agent's starters. A starter
 * takes no folder and no text (the agent decides where it works); a tap is `phone.actions.starter`
 * (a fresh request id through the outbox, P-14; the same one again after no reply or a 5xx) and goes
 * to the conversation it opened. No agent, shell or
 * command of the machine is offered. Agent text is rendered as text.
 */
import { useEffect, useState, type ReactNode } from "react";
import { STRINGS, type Starter } from "@colliepwa/shared";
import { sureReply } from "../../app/actions.ts";
import { usePhone, usePhoneState, useRead, useRepeatUntilSure } from "../../app/react.ts";
import { go, href } from "../../app/router.ts";
import { openedPane, refusalReason } from "../home/home.ts";
import { startersNote, startersOf } from "./new.ts";
import { agentName } from "../../app/rules.ts";
import "./new.css";
import { Icon } from "../chat/icons.tsx";
import { WORDS } from "@colliepwa/shared/strings";

type Load = { kind: "loading" } | { kind: "list"; starters: Starter[] } | { kind: "note"; text: string };

export function NewConversation({ agent }: { agent: string }) {
  const reader = useRead();
  const state = usePhoneState();
  const summary = state.agents.get(agent);
  const caps = summary?.caps ?? null;
  const offersStarters = caps?.starters === true;
  const [load, setLoad] = useState<Load>({ kind: "loading" });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    if (!offersStarters) return;
    setLoad((l) => (l.kind === "list" ? l : { kind: "loading" }));
    void reader.fresh("starters", { agent }).then((r) => {
      if (r.kind !== "reply") {
        const text = r.kind === "no-reply" ? STRINGS.historyNoAnswer : "The starters could not be loaded. Try again.";
        setLoad((l) => (l.kind === "list" ? l : { kind: "note", text }));
        return;
      }
      const { status, body } = r.reply;
      const starters = status === 200 ? startersOf(body) : null;
      if (starters) setLoad({ kind: "list", starters });
      else {
        const text = startersNote(status, body);
        // An agent that takes no starters after all reads like one without any (P-25).
        setLoad((l) => (l.kind === "list" ? l : text === STRINGS.noStarters ? { kind: "list", starters: [] } : { kind: "note", text }));
      }
    });
    return () => reader.drop();
  }, [reader, agent, offersStarters, attempt]);

  const header = (
    <header className="topbar">
      <a className="icon-button" href={href({ name: "home", agent })} aria-label={WORDS.screen.back}>‹</a>
      <h1>{STRINGS.newConversation}</h1>
    </header>
  );

  if (state.loaded && !summary) {
    return (
      <main className="screen new-conversation">
        {header}
        <p className="muted">No durable agent named “{agent}” is attached to this Collie.</p>
        <p><a href={href({ name: "dashboard" })}>{WORDS.screen.backToDashboard}</a></p>
      </main>
    );
  }

  let body: ReactNode;
  if (!state.loaded) body = <p className="muted">{WORDS.screen.connecting}</p>;
  else if (!offersStarters) body = <p className="muted new-empty">{STRINGS.noStarters}</p>;
  else if (load.kind === "loading") body = <p className="muted" aria-busy="true">{WORDS.screen.loading}</p>;
  else if (load.kind === "note") {
    body = (
      <>
        <p className="muted new-note" role="status">{load.text}</p>
        <button type="button" onClick={() => setAttempt((n) => n + 1)}>{WORDS.screen.tryAgain}</button>
      </>
    );
  } else if (load.starters.length === 0) body = <p className="muted new-empty">{STRINGS.noStarters}</p>;
  else {
    body = (
      <ul className="rows" aria-label={WORDS.screen.starters}>
        {load.starters.map((s) => <StarterRow key={s.id} agent={agent} starter={s} />)}
      </ul>
    );
  }

  return (
    <main className="screen new-conversation">
      {header}
      <p className="muted new-agent">{agentName(agent)}</p>
      {body}
    </main>
  );
}

type Tap = { kind: "idle" } | { kind: "sending" } | { kind: "failed"; text: string };

function StarterRow({ agent, starter }: { agent: string; starter: Starter }) {
  const phone = usePhone();
  const [tap, setTap] = useState<Tap>({ kind: "idle" });
  /** A tap whose outcome is unknown (no reply, a 5xx): the next tap sends its request id again (P-14). */
  const taps = useRepeatUntilSure();

  const onTap = async () => {
    if (tap.kind === "sending") return;
    setTap({ kind: "sending" });
    try {
      // A new request id per tap once the last one's outcome is known; the same one until then (P-14).
      const result = await taps.tap(() => phone.actions.starter({ agent, starter: starter.id }));
      const reply = sureReply(result);
      if (!reply) {
        setTap({ kind: "failed", text: STRINGS.sendingNotConfirmed });
        return;
      }
      const { status, body } = reply;
      const pane = openedPane(status, body);
      if (pane !== null) return go({ name: "chat", agent, pane });
      if (status === 200) return go({ name: "home", agent }); // opened, but the agent named no pane
      setTap({ kind: "failed", text: refusalReason(body) ?? "The conversation was not opened. Try again." });
    } catch {
      setTap({ kind: "failed", text: "The conversation was not opened. Try again." });
    }
  };

  return (
    <li>
      <button type="button" className="row starter-row" onClick={() => void onTap()} disabled={tap.kind === "sending"} aria-busy={tap.kind === "sending"} data-starter={starter.id}>
        {/* The starter's icon when it names one of the twelve (S-18); another name draws none. */}
        {starter.icon && <span className="starter-icon"><Icon name={starter.icon} /></span>}
        <span className="row-main">
          <span className="row-title" dir="auto">{starter.title}</span>
          {starter.subtitle && <span className="row-line2 muted" dir="auto">{starter.subtitle}</span>}
        </span>
      </button>
      {tap.kind === "failed" && <p className="starter-error muted" role="status">{tap.text}</p>}
    </li>
  );
}
