/**
 * Runs one turn: takes the model's steps one by one and shows each on the pane. Replies and
 * thinking stream as growing items (S-15), tools go running → done / failed / denied (S-14), a
 * tool that needs input raises its ask under its own tool item (P-9), and a risky tool waits for
 * `requireApproval` (S-25). Progress follows the chain (steps) or the upload (percent) (S-18).
 *
 * A stop aborts `turn.signal`; every wait here takes that signal, and after each await the runner
 * checks it, so a stopped turn writes nothing more: the stop handler has already tidied the pane.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { AskClosed, callSummary, requireApproval, type AskAnswer, type AskInput, type DecidedBy, type ItemInput } from "@colliepwa/durable-sdk";
import type { Conversation } from "./conversation.ts";
import type { Script, Step, StepResult } from "./model.ts";
import { TOOLS } from "./tools.ts";

/** Pauses between streamed chunks: shorter than the SDK's 250 ms window, so it coalesces them (S-15). */
const CHUNK_MS = 70;
const CHUNKS = 8;
/** How long a tool "works" before its result. */
const TOOL_MS = 120;
/** The approval card's lifetime (S-25). */
const APPROVAL_MS = 10 * 60_000;

/** One running turn: its id, its stop switch, and what a stop must tidy. */
export class Turn {
  readonly id: string;
  readonly controller = new AbortController();
  /** Texts steered into the turn (P-22), for the model to take into account. */
  readonly steers: string[] = [];
  /** Items still growing, by id: a stop writes their text so far as final (S-15). */
  readonly growing = new Map<string, { kind: "reply" | "thinking"; text: string }>();
  /** Tool calls still running, by id: a stop marks them failed. */
  readonly running = new Map<string, Extract<ItemInput, { kind: "tool" }>>();
  #n: number;

  /** `idsUsed`: a turn resumed after a restart goes on counting where it stopped. */
  constructor(id: string, idsUsed = 0) {
    this.id = id;
    this.#n = idsUsed;
  }

  /** How many ids `nextId` handed out so far. */
  get idsUsed(): number {
    return this.#n;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Item and tool call ids, unique in the pane: turn ids never repeat (store.ts keeps the count). */
  nextId(what: string): string {
    return `${this.id}.${++this.#n}-${what}`;
  }
}

export async function runTurn(conv: Conversation, turn: Turn, script: Script): Promise<void> {
  try {
    let result: StepResult = { kind: "shown" };
    for (let next = script.next(result); !next.done; next = script.next(result)) {
      result = await perform(conv, turn, next.value);
      if (turn.signal.aborted) return;
    }
  } catch (err) {
    // Stopped or closed: the handler that aborted has tidied up; anything else is a real failure.
    if (turn.signal.aborted) return;
    conv.item({ kind: "notice", text: `This turn failed: ${(err as Error).message}` });
  }
  conv.finishTurn(turn);
}

async function perform(conv: Conversation, turn: Turn, step: Step): Promise<StepResult> {
  switch (step.kind) {
    case "thinking":
    case "reply":
      await stream(conv, turn, step.kind, step.text);
      return { kind: "shown" };
    case "markdown":
      conv.item({ kind: "markdown", id: turn.nextId("md"), text: step.text });
      return { kind: "shown" };
    case "code":
      conv.item({ kind: "code", id: turn.nextId("code"), text: step.text, lang: step.lang });
      return { kind: "shown" };
    case "link":
      conv.item({ kind: "link", id: turn.nextId("link"), href: step.href, label: step.label });
      return { kind: "shown" };
    case "tool":
      return callTool(conv, turn, step);
  }
}

/** A growing item: partial chunks, then the final text without `partial` (S-15, P-19). */
async function stream(conv: Conversation, turn: Turn, kind: "reply" | "thinking", text: string): Promise<void> {
  const id = turn.nextId(kind);
  const words = text.split(/(?<= )/);
  const per = Math.max(1, Math.ceil(words.length / (kind === "reply" ? CHUNKS : CHUNKS / 2)));
  let shown = "";
  for (let i = 0; i < words.length; i += per) {
    shown += words.slice(i, i + per).join("");
    conv.item({ kind, id, text: shown, partial: true });
    await sleep(CHUNK_MS, undefined, { signal: turn.signal });
  }
  conv.item({ kind, id, text });
}

async function callTool(conv: Conversation, turn: Turn, step: Extract<Step, { kind: "tool" }>): Promise<StepResult> {
  // A call raised again after a restart keeps its id (conversation.ts, `waiting`).
  const id = step.callId ?? turn.nextId("call");
  const base = { kind: "tool" as const, id, name: step.name, call: callSummary(step.name, step.args) };
  const end = (status: "done" | "failed" | "denied", output: string, extra: Partial<StepResult> = {}): StepResult => {
    conv.item({ ...base, status, output });
    return { kind: "tool", status, output, ...extra } as StepResult;
  };
  if (step.step) conv.pane.state({ progress: { kind: "steps", ...step.step } });
  conv.item({ ...base, status: "running" });
  const tool = TOOLS[step.name];
  if (!tool) return end("failed", `No tool called ${step.name}`);

  // Input from a person: the card sits under this tool call, and its id comes from the call's id,
  // so the same call raised after a restart is the same ask (S-23). Neither this ask nor the
  // approval below takes `signal: turn.signal`: a stop aborts that signal in onStop, before the SDK
  // closes the turn's cards as stopped from the phone, and a card closed by its signal leaves
  // `Decided in the durable agent: …` in the chat, which a stop must not (P-16). The SDK's stop
  // closes the cards itself; the runner then sees the aborted signal and writes nothing more.
  let answer: AskAnswer | undefined;
  let picked: string[] | undefined;
  if (step.ask) {
    // Settled elsewhere (the courier's own system) unless the phone answers first: the ask closes
    // as decided by the agent, and the SDK leaves `Decided in the durable agent: …` (S-24, P-16).
    const elsewhere = step.decideAfterMs === undefined ? {} : { signal: AbortSignal.timeout(step.decideAfterMs) };
    try {
      answer = await conv.pane.ask({ ...step.ask, toolCallId: id, itemId: id, ...elsewhere } as AskInput);
    } catch (err) {
      if (!(err instanceof AskClosed)) throw err;
      if (turn.signal.aborted) return { kind: "shown" };
      conv.askEnded(err.askId, err.decidedBy, step.ask.title);
      // A normal outcome, not a failure. The SDK's notice already says it in the specification's
      // words (P-16); the call says only why it had no answer, so the chat does not say it twice.
      return end("done", noAnswerOutput(err.decidedBy), { decidedBy: err.decidedBy });
    }
    if (answer.kind === "choice" && step.ask.kind === "choice") {
      const options = step.ask.options;
      picked = answer.optionIds.map((o) => options.find((x) => x.id === o)?.label ?? o);
    }
  }

  // A risky tool runs only after an Allow: the card is built from the call itself (S-25). Deny,
  // timeout and a stop all come back as `approved: false`; they do not throw. A tool that only
  // reads also offers `Always allow`: after it, later calls pass without a card (S-27). The store
  // remembers the waiting call until it is decided, so a restart raises it again (S-23, D-5).
  if (tool.risky) {
    conv.store.patchConversation(conv.id, { waiting: { turnId: turn.id, callId: id, idsUsed: turn.idsUsed, tool: step.name, args: step.args } });
    let approval;
    try {
      approval = await requireApproval(step.name, step.args, {
        pane: conv.pane, toolCallId: id, itemId: id, timeoutMs: APPROVAL_MS, ...(tool.offerAlways ? { offerAlways: true } : {}),
      });
    } finally {
      if (conv.record.waiting?.callId === id) conv.store.patchConversation(conv.id, { waiting: undefined });
    }
    if (turn.signal.aborted) return { kind: "shown" };
    if (!approval.approved) {
      if (approval.decidedBy === "timeout") conv.askEnded(approval.askId, "timeout", `${step.name} wants to run`);
      return end("denied", approval.decidedBy === "timeout" ? "Not approved in time" : "Denied on the phone", { decidedBy: approval.decidedBy });
    }
  }

  await sleep(TOOL_MS, undefined, { signal: turn.signal });
  let output: string;
  let percent = false;
  try {
    output = await tool.run(step.args, {
      store: conv.store,
      ticket: conv.ticket,
      ...(answer ? { answer } : {}),
      ...(picked ? { picked } : {}),
      progress: (value, label) => {
        percent = true;
        conv.pane.state({ progress: { kind: "percent", value, label } });
      },
      signal: turn.signal,
    });
  } catch (err) {
    if (turn.signal.aborted) throw err;
    return end("failed", (err as Error).message);
  }
  // A percentage belongs to the upload alone; a chain's steps stay until its next step.
  if (percent) conv.pane.state({ progress: null });
  conv.syncSubtitle();
  return end("done", output, { ...(answer ? { answer } : {}), ...(picked ? { picked } : {}) });
}

/**
 * The output of a call whose ask ended without the phone: why it had no answer. The line
 * `Timed out before an answer: …` / `Decided in the durable agent: …` is the SDK's notice (P-16),
 * shown once in the chat.
 */
export function noAnswerOutput(decidedBy: DecidedBy): string {
  return decidedBy === "timeout" ? "No answer in time" : "Settled without an answer";
}
