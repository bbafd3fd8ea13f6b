/**
 * One conversation: a pane on the phone and its record in the desk's store, kept in step.
 *
 * Every item written through `item()` goes to the pane and, once final, to the store, so history
 * serves what the phone saw (S-31) and a restart lays the conversation out again as it was
 * (S-12). The pane's own handlers (S-19) take the phone's send, steer, stop and button taps.
 */
import {
  normalizeItem, Refusal, type DecidedBy, type Item, type ItemInput, type Pane,
} from "@colliepwa/durable-sdk";
import { respond, resume, type ModelContext, type Script } from "./model.ts";
import type { ConversationRecord, DeskStore, TicketRecord } from "./store.ts";
import { runTurn, Turn } from "./turn.ts";

export interface ConversationOptions {
  store: DeskStore;
  /** How long a card with an expiry stays open. */
  askExpiryMs: number;
  /** The Archive button: the desk closes the conversation (S-30). */
  archive(conversation: Conversation): void;
}

export class Conversation {
  readonly id: string;
  readonly pane: Pane;
  readonly store: DeskStore;
  readonly #options: ConversationOptions;
  #turn: Turn | undefined;

  constructor(pane: Pane, options: ConversationOptions) {
    this.id = pane.id;
    this.pane = pane;
    this.store = options.store;
    this.#options = options;
    pane.on({
      onSend: ({ text, requestId }) => this.#onSend(text, requestId),
      onSteer: ({ text, requestId }) => this.#onSteer(text, requestId),
      onStop: () => this.#onStop(),
      onAction: ({ actionId }) => this.#onAction(actionId),
    });
  }

  get record(): ConversationRecord {
    return this.store.conversation(this.id)!;
  }

  get ticket(): TicketRecord | undefined {
    return this.store.ticket(this.record.ticketId);
  }

  get running(): boolean {
    return this.#turn !== undefined;
  }

  /**
   * Shows the stored conversation on the freshly laid out pane: items, subtitle, badge, buttons.
   * A risky call that was waiting for an Allow when the desk stopped is raised again, so its card
   * comes back with the same ask id and the turn goes on from there (S-23, D-5).
   */
  restore(): void {
    const waiting = this.record.waiting;
    for (let stored of [...this.record.items]) {
      // A turn does not outlive the process: a call that was still running when it ended never
      // finished, except the waiting call, which is raised again below.
      if (stored.kind === "tool" && stored.status === "running" && stored.id !== waiting?.callId) {
        stored = { ...stored, status: "failed", output: "The desk restarted before this finished" };
        this.#keep(stored);
      }
      const { textShortened: _cut, ...item } = stored;
      this.pane.item(item as ItemInput);
    }
    if (this.record.escalated) this.pane.state({ badge: "Escalated" });
    this.syncSubtitle();
    this.refreshActions();
    if (waiting) this.#run(new Turn(this.pane.beginTurn(waiting.turnId), waiting.idsUsed), (turn) => resume(this.#context("", turn), waiting));
  }

  /**
   * Writes an item to the pane; a final one also to the store (growing text is stored once it is
   * done). The conversation remembers what is still growing or running, so a stop can finish it.
   */
  item(input: ItemInput): string {
    const id = this.pane.item(input);
    const turn = this.#turn;
    if (input.kind === "tool") {
      if (input.status === "running") turn?.running.set(id, { ...input, id });
      else turn?.running.delete(id);
    }
    if ("partial" in input && input.partial) {
      if (input.kind === "reply" || input.kind === "thinking") turn?.growing.set(id, { kind: input.kind, text: input.text });
      return id;
    }
    turn?.growing.delete(id);
    this.#keep(normalizeItem({ ...input, id }, Date.now()));
    return id;
  }

  /**
   * Starts a turn and runs the model's script in the background: the handler returns the turn id
   * at once, so the phone hears "Sent" without waiting for the work (sdk/README.md).
   */
  startTurn(text: string): string {
    const n = this.record.turns + 1;
    this.store.patchConversation(this.id, { turns: n });
    return this.#run(new Turn(this.pane.beginTurn(`turn-${n}`)), (turn) => respond(this.#context(text, turn)));
  }

  #run(turn: Turn, script: (turn: Turn) => Script): string {
    this.#turn = turn;
    this.refreshActions();
    // runTurn catches what a turn throws; this only keeps a bug from becoming an unhandled rejection.
    runTurn(this, turn, script(turn)).catch((err: unknown) => console.error(`desk: turn ${turn.id} of ${this.id} failed:`, err));
    return turn.id;
  }

  #context(text: string, turn: Turn): ModelContext {
    return {
      text,
      ticket: () => this.ticket,
      steers: () => turn.steers,
      tickets: () => this.store.tickets(),
      askExpiryMs: this.#options.askExpiryMs,
    };
  }

  /** The script ran to its end: progress goes, buttons wake up, the pane goes idle (S-15: pending text is written first). */
  finishTurn(turn: Turn): void {
    if (this.#turn !== turn) return;
    this.#turn = undefined;
    this.pane.state({ progress: null });
    this.refreshActions();
    this.pane.endTurn();
  }

  /**
   * Ends the running turn early (a stop, or the conversation closing): the script is aborted, text
   * still growing is written as final, running tool calls are marked failed. Nothing else writes
   * for this turn afterwards: the runner checks the signal after every await.
   */
  abortTurn(why: string): void {
    const turn = this.#turn;
    if (!turn) return;
    this.#turn = undefined;
    turn.controller.abort();
    for (const [id, grown] of turn.growing) this.item({ kind: grown.kind, id, text: grown.text });
    for (const tool of turn.running.values()) this.item({ ...tool, status: "failed", output: why });
    this.pane.state({ progress: null });
    this.refreshActions();
  }

  /**
   * The SDK writes a line when an ask ends without the phone, e.g. `Timed out before an answer:
   * <title>` (S-24, P-16); the store keeps the same line so history shows it too.
   */
  askEnded(askId: string, decidedBy: DecidedBy, title: string): void {
    if (decidedBy === "phone") return;
    this.#keep(normalizeItem({ kind: "notice", id: `ask-closed-${askId}`, text: askEndedLine(decidedBy, title) }, Date.now()));
  }

  /** The subtitle says where the order stands (S-18), or that the ticket is resolved. */
  syncSubtitle(): void {
    const t = this.ticket;
    const subtitle = this.record.resolved ? "Resolved" : t ? `Order ${t.order} · ${t.status}` : undefined;
    if (subtitle !== this.record.subtitle) this.store.patchConversation(this.id, { subtitle });
    this.pane.state({ subtitle: subtitle ?? null });
  }

  /**
   * The agent's own buttons (S-18, P-22): Resolve is busy while a turn runs, Escalate is disabled
   * once escalated, Archive is disabled until the ticket is resolved.
   */
  refreshActions(): void {
    const r = this.record;
    this.pane.state({ actions: [
      { id: "escalate", label: "Escalate", icon: "flag", disabled: r.escalated === true },
      { id: "resolve", label: "Resolve", icon: "check", busy: this.running, disabled: r.resolved === true },
      { id: "archive", label: "Archive", icon: "archive", disabled: r.resolved !== true },
    ] });
  }

  #onSend(text: string, requestId: string): { turnId: string } {
    // One turn at a time: a refusal keeps no receipt, so the phone may send the same line again later (S-29).
    if (this.#turn) throw new Refusal("A turn is running: steer it or stop it first.");
    this.#keepUserLine(text, requestId);
    return { turnId: this.startTurn(text) };
  }

  #onSteer(text: string, requestId: string): { turnId: string } {
    // The SDK already answered `moved-on` for another turn or an idle pane (S-20).
    const turn = this.#turn;
    if (!turn) throw new Refusal("Nothing is running to steer.");
    this.#keepUserLine(text, requestId, true);
    turn.steers.push(text);
    return { turnId: turn.id };
  }

  #onStop(): void {
    const turn = this.#turn;
    if (!turn) throw new Refusal("Nothing is running.");
    this.abortTurn("Stopped before it finished");
    // After this handler the SDK closes the turn's asks without a chat line (P-16) and writes the
    // `stopped` note (P-19) as item `stopped-<turn>`; the store keeps the same note.
    this.#keep(normalizeItem({ kind: "notice", id: `stopped-${turn.id}`, text: "stopped", stopped: true }, Date.now()));
  }

  #onAction(actionId: string): void {
    // The SDK has checked the turn id (S-20) and that the button is neither busy nor disabled.
    switch (actionId) {
      case "escalate":
        this.store.patchConversation(this.id, { escalated: true });
        this.pane.state({ badge: "Escalated" });
        this.item({ kind: "notice", text: "Escalated to the team lead." });
        break;
      case "resolve":
        this.store.patchConversation(this.id, { resolved: true });
        this.item({ kind: "notice", text: "Marked as resolved." });
        this.syncSubtitle();
        break;
      case "archive":
        this.item({ kind: "notice", text: "Archived." });
        this.#options.archive(this);
        return;
    }
    this.refreshActions();
  }

  /**
   * The SDK echoes the phone's line itself (P-20), as item `user-<requestId>`; the store keeps the
   * same line under the same id so history and a restart show it.
   */
  #keepUserLine(text: string, requestId: string, steered = false): void {
    this.#keep(normalizeItem({ kind: "user", id: `user-${requestId}`, text, requestId, ...(steered ? { steered: true } : {}) }, Date.now()));
  }

  #keep(item: Item): void {
    this.store.putItem(this.id, item);
  }
}

/** The line an ask that ended without the phone leaves (P-16): `Timed out before an answer: <title>` or `Decided in the durable agent: <title>`. */
export function askEndedLine(decidedBy: DecidedBy, title: string): string {
  return `${decidedBy === "timeout" ? "Timed out before an answer" : "Decided in the durable agent"}: ${title}`;
}
