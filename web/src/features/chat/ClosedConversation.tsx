/**
 * A closed conversation, read-only (P-6): its items from the agent's history, drawn like the chat
 * (same item views), with `Load more` while the agent has more, and no composer or belt. With the
 * reopen cap, `Reopen` asks the agent to open it again and goes to the chat of the pane it names.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Item } from "@colliepwa/durable-sdk/wire";
import { STRINGS } from "@colliepwa/shared";
import { sureReply } from "../../app/actions.ts";
import { usePhone, usePhoneState, useRead, useRepeatUntilSure } from "../../app/react.ts";
import { go, href } from "../../app/router.ts";
import { closedTitle } from "../home/home.ts";
import { agentWithMachine } from "../../app/rules.ts";
import { ChatTitle } from "./ChatTitle.tsx";
import { ItemView } from "./ItemView.tsx";
import { burstEnds } from "./list.ts";
import { usePinnedScroll } from "./scroll.ts";
import { loadProblem } from "./load-problem.ts";
import { refusalLine } from "./refusal.ts";
import "./chat.css";
import { WORDS } from "@colliepwa/shared/strings";

export interface ClosedConversationProps {
  agent: string;
  session: string;
}

export function ClosedConversation({ agent, session }: ClosedConversationProps) {
  const phone = usePhone();
  const state = usePhoneState();
  const summary = state.agents.get(agent);
  const [items, setItems] = useState<Item[]>([]);
  const [next, setNext] = useState<string | undefined>(undefined);
  const [loaded, setLoaded] = useState(false);
  const [loading, setLoading] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const reader = useRead();
  // Opens at its newest item, as an open chat does (and follows `Load more` down while you are there).
  const scroller = useRef<HTMLDivElement>(null);
  const { onScroll } = usePinnedScroll(scroller);

  const load = useCallback(
    async (after: string | undefined) => {
      setLoading(true);
      setProblem(null);
      // The first page replaces any read before it; `Load more` adds to it.
      const read = after ? reader.more("historyItems", { agent, session }, { after }) : reader.fresh("historyItems", { agent, session }, {});
      const r = await read;
      setLoading(false);
      if (r.kind !== "reply") {
        setProblem(r.kind === "no-reply" ? STRINGS.historyNoAnswer : STRINGS.historyFailed);
        return;
      }
      const { status, body } = r.reply;
      if (status === 200 && Array.isArray(body.items)) {
        // A page drawn stays drawn; items with a known id replace the earlier one (S-14).
        setItems((prev) => mergeItems(after ? prev : [], body.items));
        setNext(typeof body.next === "string" && body.next ? body.next : undefined);
        setLoaded(true);
      } else {
        setProblem(loadProblem(status, body as unknown as Record<string, unknown>, summary?.wire));
      }
    },
    [reader, agent, session, summary?.wire],
  );

  useEffect(() => {
    void load(undefined);
    // Read once per visit (P-7); `Load more` reads the next page. Not again when `load` changes.
  }, [reader, agent, session]);

  const today = new Date(phone.now()).setHours(0, 0, 0, 0);
  // One time per burst, as the open chat shows them (issue 37: it stamped every item).
  const burstTimes = useMemo(() => burstEnds(items), [items]);
  // Named by its title when the home drew its row; a link opened cold says `Closed` (P-6).
  const title = closedTitle(agent, session);
  // The agent as the dashboard names it (C-1): `desk`, and a member's machine after a comma.
  const named = agentWithMachine(agent, summary);

  return (
    <main className="screen chat chat-closed">
      <header className="topbar chat-header">
        <a className="icon-button back" href={href({ name: "home", agent })} aria-label={WORDS.screen.back}>‹</a>
        <ChatTitle title={title ?? STRINGS.closed} line2={title === undefined ? named : `${STRINGS.closed} · ${named}`} />
      </header>
      <div className="chat-scroll" ref={scroller} onScroll={onScroll}>
        <div className="chat-items">
          {items.map((item) => (
            <div className="row-slot" key={item.id}>
              <ItemView item={item} today={today} showTime={burstTimes.has(item.id)} />
            </div>
          ))}
          {!loaded && loading && <p className="muted chat-loading">{WORDS.screen.loading}</p>}
          {problem && <p className="chat-problem" role="status">{problem}</p>}
          {next && (
            <button type="button" className="load-more" disabled={loading} onClick={() => void load(next)}>
              {STRINGS.loadMore}
            </button>
          )}
          {problem && !loaded && (
            <button type="button" className="load-more" disabled={loading} onClick={() => void load(undefined)}>
              Try again
            </button>
          )}
        </div>
      </div>
      {summary?.caps?.reopen && <Reopen agent={agent} session={session} />}
    </main>
  );
}

function mergeItems(prev: readonly Item[], page: readonly Item[]): Item[] {
  const out = [...prev];
  const at = new Map(out.map((i, n) => [i.id, n]));
  for (const i of page) {
    const n = at.get(i.id);
    if (n === undefined) {
      at.set(i.id, out.length);
      out.push(i);
    } else out[n] = i;
  }
  return out;
}

/** `Reopen` (P-6): one request id per tap; with no answer a second tap sends the same id again. */
function Reopen({ agent, session }: { agent: string; session: string }) {
  const phone = usePhone();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const taps = useRepeatUntilSure();

  const reopen = async () => {
    setBusy(true);
    setProblem(null);
    const result = await taps.tap(() => phone.actions.reopen({ agent }, { target: { kind: "pane", id: session } }));
    setBusy(false);
    const reply = sureReply(result);
    if (!reply) {
      setProblem(STRINGS.sendingNotConfirmed);
      return;
    }
    const { status, body } = reply;
    if (status >= 200 && status < 300) {
      if (typeof body.paneId === "string" && body.paneId) go({ name: "chat", agent, pane: body.paneId });
      else go({ name: "home", agent });
      return;
    }
    // Every refusal says so (issue 37), not only one that came with the agent's reason.
    setProblem(refusalLine(STRINGS.reopen, body));
  };

  return (
    <footer className="chat-footer reopen-bar">
      {problem && <p className="belt-note" role="status">{problem}</p>}
      <button type="button" className="reopen" disabled={busy} onClick={() => void reopen()}>
        {STRINGS.reopen}
      </button>
    </footer>
  );
}
