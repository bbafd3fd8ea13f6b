/**
 * The dashboard (P-1…P-4, P-17): the Durable agents section, one row per agent. It floats to the
 * top while a conversation waits on you; it is not drawn when no agent is attached.
 */
import { useState } from "react";
import { STRINGS, type AgentSummary } from "@colliepwa/shared";
import { usePhoneState } from "../../app/react.ts";
import { href } from "../../app/router.ts";
import { agentLine2, agentRowRight, sectionFloats, visibleAgents } from "../../app/rules.ts";
import { ExperimentalBadge } from "../../ui/Badge.tsx";
import { readOnlyNeedsYou } from "./settings.ts";
import { PushOffer } from "./PushOffer.tsx";

/** Said when "Show only what needs you" hides every agent (words in docs/decisions.md). */
export const FILTER_WORDS = Object.freeze({
  nothing: (hidden: number) =>
    `Nothing needs you right now. ${STRINGS.showOnlyWhatNeedsYou} hides ${hidden === 1 ? "1 durable agent" : `${hidden} durable agents`}.`,
  settings: "Change it in Settings",
});

export function Dashboard() {
  const state = usePhoneState();
  const [onlyNeedsYou] = useState(readOnlyNeedsYou);
  const agents = [...state.agents.values()];
  const floats = sectionFloats(agents);
  const rows = visibleAgents(agents, onlyNeedsYou);
  const section = agents.length === 0 ? null : (
    <section className={`durable-section${floats ? " floats" : ""}`} aria-labelledby="durable-agents" data-floats={floats}>
      <h2 id="durable-agents">{STRINGS.durableAgents}</h2>
      <ul className="rows">
        {rows.map((a) => <AgentRow key={a.name} agent={a} />)}
      </ul>
      {rows.length < agents.length && rows.length === 0 && (
        <p className="muted filter-note" role="status">
          {FILTER_WORDS.nothing(agents.length - rows.length)} <a href={href({ name: "settings" })}>{FILTER_WORDS.settings}</a>
        </p>
      )}
    </section>
  );
  return (
    <main className="screen dashboard">
      <header className="topbar">
        <h1>Collie</h1>
        <a className="icon-button" href={href({ name: "settings" })} aria-label="Settings">⚙</a>
      </header>
      <PushOffer />
      {floats && section}
      <section className="spaces" aria-label="Spaces">
        {!state.loaded && <p className="muted">Connecting to Collie…</p>}
        {state.loaded && agents.length === 0 && <p className="muted">No durable agents are attached. Add one to sources.json.</p>}
      </section>
      {!floats && section}
    </main>
  );
}

function AgentRow({ agent }: { agent: AgentSummary }) {
  const right = agentRowRight(agent);
  return (
    <li>
      <a className="row agent-row" href={href({ name: "home", agent: agent.name })} data-agent={agent.name}>
        <span className="row-main">
          <span className="row-line1">
            <span className="row-title">{agent.name}</span> <ExperimentalBadge />
          </span>
          <span className="row-line2 muted">{agentLine2(agent)}</span>
        </span>
        <span className="row-right">
          {right.kind === "counts" ? (
            <>
              {/* Each number says what it counts, to the eye (a small word) and to a screen reader. */}
              <span className="count-group" aria-label={`${right.open} open`} role="img">
                <span className="count" aria-hidden="true">{right.open}</span>
                <span className="count-hint muted" aria-hidden="true">open</span>
              </span>
              {right.waiting > 0 && (
                <span className="count-group" aria-label={`${right.waiting} waiting on you`} role="img">
                  <span className="count accent" aria-hidden="true">{right.waiting}</span>
                  <span className="count-hint accent-text" aria-hidden="true">waiting</span>
                </span>
              )}
            </>
          ) : (
            <span className="state-word">{right.text}</span>
          )}
        </span>
      </a>
    </li>
  );
}
