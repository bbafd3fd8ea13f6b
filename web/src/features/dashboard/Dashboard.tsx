/**
 * The dashboard (P-1…P-4, P-17, C-1): a Durable agents section per machine of the crew, this
 * machine's first (`Durable agents`), then one per member (`Durable agents on workshop`, with
 * `workshop is offline` while it cannot be reached); one row per agent. A section floats to the
 * top while one of its conversations waits on you; none is drawn when no agent is attached, or
 * when "Show only what needs you" hides all of its rows.
 */
import { lazy, Suspense, useMemo, useState } from "react";
import type { AgentSummary } from "@colliepwa/shared";
import { usePhoneState } from "../../app/react.ts";
import { href } from "../../app/router.ts";
import { agentLine2, agentRowRight, agentSections, agentsWithWaiting, agentTitle, sectionHeading, type AgentSection } from "../../app/rules.ts";
import { ExperimentalBadge } from "../../ui/Badge.tsx";
import { pushOfferPending, readOnlyNeedsYou } from "./settings.ts";
import { WORDS } from "@colliepwa/shared/strings";

/** The push offer is made once, after pairing: its code (and push's) loads only while it is pending. */
const PushOffer = lazy(() => import("./PushOffer.tsx").then((m) => ({ default: m.PushOffer })));

/** Said when "Show only what needs you" hides every agent (words in docs/decisions.md). */
export const FILTER_WORDS = WORDS.filter;

export function Dashboard() {
  const state = usePhoneState();
  const [onlyNeedsYou] = useState(readOnlyNeedsYou);
  const agents = [...state.agents.values()];
  const waiting = useMemo(() => agentsWithWaiting(state.conversations.values()), [state.conversations]);
  const sections = agentSections(agents, onlyNeedsYou, waiting);
  const shown = sections.reduce((n, s) => n + s.rows.length, 0);
  // The filter hides every agent: say so on its own, never under a heading with nothing in it.
  const filterNote = agents.length > 0 && shown === 0 ? (
    <p className="muted filter-note" role="status">
      {FILTER_WORDS.nothing(agents.length)} <a href={href({ name: "settings" })}>{FILTER_WORDS.settings}</a>
    </p>
  ) : null;
  const draw = (s: AgentSection) => <AgentsSection key={s.machine ?? ""} section={s} />;
  return (
    <main className="screen dashboard">
      <header className="topbar">
        <h1>{WORDS.screen.collie}</h1>
        <a className="icon-button" href={href({ name: "settings" })} aria-label={WORDS.screen.settings}>⚙</a>
      </header>
      {pushOfferPending() && <Suspense fallback={null}><PushOffer /></Suspense>}
      {sections.filter((s) => s.floats).map(draw)}
      <section className="spaces" aria-label={WORDS.screen.spaces}>
        {!state.loaded && <p className="muted">{WORDS.screen.connecting}</p>}
        {state.loaded && agents.length === 0 && <p className="muted">{WORDS.screen.noAgents}</p>}
      </section>
      {sections.filter((s) => !s.floats).map(draw)}
      {filterNote}
    </main>
  );
}

function AgentsSection({ section }: { section: AgentSection }) {
  const id = section.machine === null ? "durable-agents" : `durable-agents-${section.machine}`;
  return (
    <section className={`durable-section${section.floats ? " floats" : ""}`} aria-labelledby={id} data-floats={section.floats} data-machine={section.machine ?? ""}
      data-offline={section.offline || undefined}>
      <h2 id={id}>{sectionHeading(section.machine)}</h2>
      {section.offline && section.machine !== null && <p className="muted machine-offline" role="status">{WORDS.screen.machineOffline(section.machine)}</p>}
      <ul className="rows">
        {section.rows.map((a) => <AgentRow key={a.name} agent={a} />)}
      </ul>
    </section>
  );
}

function AgentRow({ agent }: { agent: AgentSummary }) {
  const right = agentRowRight(agent);
  return (
    <li>
      <a className="row agent-row" href={href({ name: "home", agent: agent.name })} data-agent={agent.name}>
        <span className="row-main">
          <span className="row-line1">
            <span className="row-title" dir="auto">{agentTitle(agent)}</span> <ExperimentalBadge />
          </span>
          <span className="row-line2 muted" dir="auto">{agentLine2(agent)}</span>
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
