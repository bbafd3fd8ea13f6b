/**
 * The chat (P-18…P-24): a durable conversation's only view. No terminal, tab strip, pane strip or
 * Keys/Type/Quick (P-24). Header: the title with an `Experimental` badge, line 2 progress,
 * subtitle or workspace (P-21). Then the items (windowed, pinned to the newest while you read
 * there), ask cards under their tool call (P-9), your own lines (P-20), the belt (P-22) and the
 * composer. Opening the chat watches the pane; leaving stops watching.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Ask, Caps, Item } from "@colliepwa/durable-sdk/wire";
import type { Conversation, Decision, PaneDetail } from "@colliepwa/shared";
import { STRINGS } from "@colliepwa/shared";
import type { SendResult } from "../../app/actions.ts";
import { usePhone, usePhoneState } from "../../app/react.ts";
import { href } from "../../app/router.ts";
import { agentName, conversationTitle, headerLine2 } from "../../app/rules.ts";
import { paneKey } from "../../app/store.ts";
import { AgentAway, agentAway, AWAY_WORDS, AwayNote } from "../../ui/AgentAway.tsx";
import { AskSlot } from "./AskSlot.tsx";
import { Belt, useBelt } from "./Belt.tsx";
import { newestTurn, turnRunning } from "./belt.ts";
import { ChatMenu } from "./ChatMenu.tsx";
import { ChatTitle } from "./ChatTitle.tsx";
import { Composer } from "./Composer.tsx";
import { DecisionLine } from "./DecisionLine.tsx";
import { answerLines } from "./answer-lines.ts";
import { ItemTime, ItemView } from "./ItemView.tsx";
import { JumpToNewest, useUnread } from "./JumpToNewest.tsx";
import { arrange, burstEnds, WINDOW_SIZE } from "./list.ts";
import { ownLines } from "./own-lines.ts";
import { OwnLineView, WorkingDots } from "./OwnLineView.tsx";
import { usePinnedScroll } from "./scroll.ts";
import { useNow } from "./useNow.ts";
import { useDraft } from "./useDraft.ts";
import { CHAT_WORDS } from "./words.ts";
import { useForgetSettled, useOwnSends } from "./useOwnSends.ts";
import "./chat.css";
import { WORDS } from "@colliepwa/shared/strings";

export interface ChatProps {
  agent: string;
  pane: string;
}

export function Chat({ agent, pane }: ChatProps) {
  const phone = usePhone();
  const state = usePhoneState();

  useEffect(() => {
    void phone.openPane(agent, pane);
    return () => phone.closePane(agent, pane);
  }, [phone, agent, pane]);

  const key = paneKey(agent, pane);
  const listed = state.conversations.get(key);
  const detail = state.details.get(key);
  const conversation = listed ?? detail?.conversation;
  const caps = state.agents.get(agent)?.caps ?? null;
  const away = agentAway(state.agents.get(agent));

  if (!conversation) {
    return (
      <main className="screen chat">
        <header className="topbar">
          <BackLink agent={agent} />
          <h1>{state.loaded ? STRINGS.closed : ""}</h1>
        </header>
        {state.loaded
          ? <ClosedNote agent={agent} />
          : <p className="muted chat-loading">{WORDS.screen.loading}</p>}
      </main>
    );
  }
  // A conversation closed while it was on screen stays readable, without composer or belt. Before
  // Collie's first snapshot (a slow or failed live connection) a chat read over HTTP is not "gone":
  // its composer stays, so a message can be typed and sent (P-26).
  return (
    <AgentAway.Provider value={away}>
      <ChatScreen key={key} agent={agent} pane={pane} conversation={conversation} detail={detail} caps={caps} gone={state.loaded && !listed} away={away} />
    </AgentAway.Provider>
  );
}

function BackLink({ agent }: { agent: string }) {
  return <a className="icon-button back" href={href({ name: "home", agent })} aria-label={WORDS.screen.back}>‹</a>;
}

function ClosedNote({ agent }: { agent: string }) {
  return (
    <p className="chat-closed-note" role="status">
      This conversation is closed. <a href={href({ name: "home", agent })}>Back to {agentName(agent)}</a>
    </p>
  );
}

const EMPTY_ITEMS: readonly Item[] = [];
const NO_DECISIONS: readonly Decision[] = [];
const NO_ASKS: readonly Ask[] = [];

/** Decisions by the item they sit under; those whose item is not in the chat go at its end. */
function placeDecisions(decisions: readonly Decision[], items: readonly Item[]): { byItem: Map<string, Decision[]>; looseDecisions: Decision[] } {
  const byItem = new Map<string, Decision[]>();
  const looseDecisions: Decision[] = [];
  if (decisions.length === 0) return { byItem, looseDecisions };
  const ids = new Set(items.map((i) => i.id));
  for (const d of decisions) {
    if (!ids.has(d.itemId)) looseDecisions.push(d);
    else byItem.set(d.itemId, [...(byItem.get(d.itemId) ?? []), d]);
  }
  return { byItem, looseDecisions };
}

interface ChatScreenProps {
  agent: string;
  pane: string;
  conversation: Conversation;
  detail: PaneDetail | undefined;
  caps: Caps | null;
  gone: boolean;
  /** The agent cannot be reached (D-2): a note says so and what still works. */
  away: boolean;
}

function ChatScreen({ agent, pane, conversation, detail, caps, gone, away }: ChatScreenProps) {
  const phone = usePhone();
  // The composer's text is the conversation's draft: kept across reloads and restarts (P-26).
  const [text, setText] = useDraft(agent, pane);
  const [shown, setShown] = useState(WINDOW_SIZE);
  const scroller = useRef<HTMLDivElement>(null);
  // Near the top, earlier items load by themselves and the place is kept (issue 37).
  const earlierLeft = useRef(0);
  const loadEarlier = useCallback(() => {
    if (earlierLeft.current <= 0) return false;
    earlierLeft.current = 0;
    setShown((s) => s + WINDOW_SIZE);
    return true;
  }, []);
  const { onScroll, holdPosition, pin, jumpToEnd, pinned, far } = usePinnedScroll(scroller, loadEarlier);
  useNow(phone.now);
  const now = phone.now();
  const today = new Date(now).setHours(0, 0, 0, 0);

  // The newest turn the phone saw (P-23): the conversation's, or a later one a reply named.
  const [replyTurn, setReplyTurn] = useState<{ turnId: string; base: string | null } | null>(null);
  const turnId = newestTurn(conversation.turnId, replyTurn);
  const onReply = useCallback(
    (r: SendResult) => {
      if (r.kind !== "reply" || r.reply.status < 200 || r.reply.status >= 300) return;
      const t = r.reply.body.turnId;
      if (typeof t !== "string" || !t) return;
      const s = phone.store.getState();
      const c = s.conversations.get(paneKey(agent, pane)) ?? s.details.get(paneKey(agent, pane))?.conversation;
      setReplyTurn({ turnId: t, base: c?.turnId ?? null });
    },
    [phone, agent, pane],
  );

  const textBack = useCallback((back: string) => setText((prev) => (prev.trim() ? `${back}\n${prev}` : back)), []);
  const own = useOwnSends(agent, pane, textBack);

  const items = detail?.items ?? EMPTY_ITEMS;
  // When the phone first saw each item: the 30 s match of P-20 for items without a time.
  const seenAt = useRef(new Map<string, number>()).current;
  for (const i of items) if (!i.ts && !seenAt.has(i.id)) seenAt.set(i.id, now);

  const view = ownLines({ sends: own.sends, items, now, paneState: conversation.state, seenAt });
  useForgetSettled(view.replaced, view.expired);
  const { earlier, rows, loose } = arrange(items, detail?.asks ?? [], shown);
  const burstTimes = useMemo(() => burstEnds(items), [items]);
  earlierLeft.current = earlier;
  const unread = useUnread(items, pinned);
  // Answers Collie holds whose card is not shown (answer-lines.ts), each under its tool call (or at the end).
  const { decisions, heldOutcomes } = usePhoneState();
  const decisionList = decisions.get(paneKey(agent, pane)) ?? NO_DECISIONS;
  const openAsks = detail?.asks ?? NO_ASKS;
  const { byItem, looseDecisions } = useMemo(
    () => placeDecisions(answerLines(decisionList, openAsks, heldOutcomes), items), [decisionList, openAsks, heldOutcomes, items]);
  const unconfirmed = view.lines.filter((l) => l.state === "not-confirmed");

  const canSendCap = Boolean(caps?.send) && !gone;
  const typed = text.trim();
  const belt = useBelt({ agent, pane, caps, state: conversation.state, actions: conversation.actions, turnId, text, setText, onReply, away });
  // P-20: the composer says `Sent` once the agent took your newest line (a turn it starts included).
  const sentNote = view.composer === "sent" && !typed ? STRINGS.sent : null;
  // During a turn an agent without `followUp` takes no message: Collie holds one until the turn
  // ends, and the empty composer says so before you type (#34 item 6).
  const afterTurn = turnRunning(conversation.state) && caps?.followUp !== true && !away;
  const onSend = () => {
    pin();
    // Sending again retries the same request id (P-20): nothing typed, or the same text again.
    const again = typed ? unconfirmed.find((l) => l.text === typed) : unconfirmed.at(-1);
    if (again) {
      if (typed) setText("");
      void own.retry(again.requestId).then(onReply);
      return;
    }
    if (!typed) return;
    setText("");
    void own.send(typed).then(onReply);
  };

  return (
    <main className="screen chat">
      <header className="topbar chat-header">
        <BackLink agent={agent} />
        <ChatTitle title={conversationTitle(conversation)} line2={headerLine2(conversation)} />
        {!gone && <ChatMenu agent={agent} pane={pane} canClose={Boolean(caps?.close)} canRename={Boolean(caps?.rename)} title={conversation.title} />}
      </header>
      {away && !gone && <AwayNote text={AWAY_WORDS.chat} />}

      <div className="chat-body">
      {/* Focusable, so a keyboard can scroll it (axe scrollable-region-focusable, issue 32). */}
      <div className="chat-scroll" ref={scroller} onScroll={onScroll} tabIndex={0} role="region" aria-label={CHAT_WORDS.messages}>
        <div className="chat-items" role="log" aria-live="polite" aria-relevant="additions">
          {earlier > 0 && (
            <button type="button" className="show-earlier" onClick={() => { holdPosition(); setShown((s) => s + WINDOW_SIZE); }}>
              Show earlier
            </button>
          )}
          {earlier === 0 && detail?.itemsCut && <p className="items-cut muted">{WORDS.screen.earlierNotKept}</p>}
          {!detail && <p className="muted chat-loading">{WORDS.screen.loading}</p>}
          {rows.map(({ item, asks }) => {
            const decisions = byItem.get(item.id);
            // One time per burst (issue 32), at its end: under the cards of an item that has them,
            // never between a tool call and its card.
            const timed = burstTimes.has(item.id);
            const under = asks.length > 0 || decisions !== undefined;
            return (
              <div className="row-slot" key={item.id}>
                <ItemView item={item} today={today} showTime={timed && !under} />
                {asks.length > 0 && <AskSlot agent={agent} asks={asks} callAbove={item.kind === "tool" ? (item.call ?? null) : null} />}
                {decisions?.map((d) => <DecisionLine key={d.askId} decision={d} today={today} />)}
                {timed && under && <ItemTime item={item} today={today} />}
              </div>
            );
          })}
          {looseDecisions.map((d) => <DecisionLine key={d.askId} decision={d} today={today} />)}
          {loose.length > 0 && <AskSlot agent={agent} asks={loose} />}
          {view.lines.map((l) => <OwnLineView key={l.requestId} line={l} onRetry={(id) => void own.retry(id).then(onReply)} />)}
          {view.dots && !gone && !away && <WorkingDots />}
        </div>
        {gone && <ClosedNote agent={agent} />}
      </div>
      {!pinned && (unread > 0 || far) && <JumpToNewest unread={unread} onJump={jumpToEnd} />}
      </div>

      {!gone && (
        <footer className="chat-footer">
          <Belt belt={belt} />
          {/* The composer's button is always Send (one label per action: Steer is the belt's). A
              message sent while the agent is away, or during a turn it cannot take one in, is
              held by Collie and delivered when it can be (docs/decisions.md). */}
          {(caps?.send || caps?.steer) && (
            <Composer
              text={text}
              onText={setText}
              onSend={canSendCap ? onSend : null}
              canSend={typed.length > 0 || unconfirmed.length > 0}
              note={sentNote}
              {...(afterTurn ? { placeholder: WORDS.screen.messageAfterTurn } : {})}
            />
          )}
        </footer>
      )}
    </main>
  );
}
