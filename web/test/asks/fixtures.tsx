/**
 * Asks for the card tests, and the chat opened on them through the chat harness: a Phone with a
 * fake Api (Collie's replies faked at the fetch boundary), the memory outbox and a fake WebSocket.
 */
import { act, fireEvent, waitFor, within } from "@testing-library/react";
import type { Ask, ChoiceAsk, FormAsk, Item, PermissionAsk, TextAsk } from "@colliepwa/durable-sdk/wire";
import type { OutboxStorage } from "../../src/app/outbox.ts";
import type { NotificationAnswerStorage } from "../../src/app/notification-answers.ts";
import { Chat } from "../../src/features/chat/Chat.tsx";
import { detail, on, renderWith, startPhone, T0, type Call, type FakeReply, type Harness, type Route } from "../chat/harness.tsx";

export { T0 };
export const PANE = "/api/agents/desk/panes/p1";
export const answerPath = (ask: string): string => `${PANE}/asks/${ask}/answer`;
export const OK: FakeReply = { status: 200, body: { ok: true, decidedAt: new Date(T0).toISOString() } };
export const rev = (n: number): string => n.toString(16).padStart(16, "0");
export const ISO = new Date(T0 - 5_000).toISOString();

export const ITEMS: Item[] = [
  { kind: "user", id: "item-39", text: "Please refund order 5521, it arrived broken.", ts: new Date(T0 - 120_000).toISOString() },
  { kind: "tool", id: "item-41", name: "refund", status: "running", call: 'refund(order: "5521", amount: 40)' },
];

const base = (id: string) => ({
  id, revision: rev(1), paneId: "p1", toolCallId: `call-${id}`, itemId: "item-41", title: "refund wants to run", createdAt: ISO,
});

export function permissionAsk(over: Partial<PermissionAsk> = {}): PermissionAsk {
  return {
    ...base("a1"), kind: "permission",
    reason: "The customer reports a broken item; policy allows a full refund.",
    tool: { name: "refund", call: 'refund(order: "5521", amount: 40)' },
    options: [
      { id: "allow", kind: "allow", label: "Allow" },
      { id: "allow-always", kind: "allow-always", label: "Always allow refunds" },
      { id: "deny", kind: "deny", label: "Deny" },
    ],
    ...over,
  };
}

export function choiceAsk(over: Partial<ChoiceAsk> = {}): ChoiceAsk {
  return {
    ...base("c1"), kind: "choice", title: "How should the refund be paid?",
    options: [
      { id: "card", label: "Original card", description: "3 to 5 business days" },
      { id: "credit", label: "Store credit" },
      { id: "voucher", label: "Voucher by email" },
    ],
    ...over,
  };
}

export function textAsk(over: Partial<TextAsk> = {}): TextAsk {
  return { ...base("t1"), kind: "text", title: "What should I tell the customer?", limit: 500, placeholder: "A short reply", ...over };
}

export function formAsk(over: Partial<FormAsk> = {}): FormAsk {
  return {
    ...base("f1"), kind: "form", title: "Escalate to a manager",
    fields: [
      { id: "note", type: "text", label: "Note for the manager", required: true, placeholder: "What happened?", limit: 200 },
      { id: "priority", type: "select", label: "Priority", required: true, options: [{ id: "low", label: "Low" }, { id: "high", label: "High" }] },
      { id: "notify", type: "toggle", label: "Tell the customer" },
    ],
    ...over,
  };
}

export interface Opened extends Harness {
  /** Bodies posted to an ask's answer route. */
  answers(ask: string): Record<string, unknown>[];
}

/** Starts a phone whose chat p1 holds these asks (and items), and opens the chat. */
export async function openChat(asks: Ask[], opts: { routes?: Route[]; items?: Item[]; storage?: OutboxStorage; notificationAnswers?: NotificationAnswerStorage } = {}): Promise<Opened> {
  const h = await startPhone({
    storage: opts.storage,
    ...(opts.notificationAnswers ? { notificationAnswers: opts.notificationAnswers } : {}),
    routes: [...(opts.routes ?? []), on("GET", PANE, { status: 200, body: detail(opts.items ?? ITEMS, { asks }) })],
  });
  renderWith(h.phone, <Chat agent="desk" pane="p1" />);
  await act(async () => {});
  return {
    ...h,
    answers: (ask) => h.calls.filter((c: Call) => c.method === "POST" && c.path === answerPath(ask)).map((c) => c.body!),
  };
}

export function card(id: string): HTMLElement {
  const el = document.querySelector<HTMLElement>(`[data-ask-id="${id}"]`);
  if (!el) throw new Error(`no card ${id}`);
  return el;
}

export const cardOrNull = (id: string): HTMLElement | null => document.querySelector<HTMLElement>(`[data-ask-id="${id}"]`);

export function option(cardEl: HTMLElement, id: string): HTMLButtonElement {
  const el = cardEl.querySelector<HTMLButtonElement>(`[data-option="${id}"]`);
  if (!el) throw new Error(`no option ${id}`);
  return el;
}

export const sendButton = (cardEl: HTMLElement): HTMLButtonElement => within(cardEl).getByRole("button", { name: "Send" }) as HTMLButtonElement;

/** Taps and lets the outbox and the fake fetch run. */
export async function tap(el: HTMLElement): Promise<void> {
  await act(async () => {
    fireEvent.click(el);
  });
  await act(async () => {
    await new Promise((r) => setTimeout(r, 0));
  });
}

export async function until(check: () => void): Promise<void> {
  await waitFor(check);
}

export function line(cardEl: HTMLElement): string | null {
  return cardEl.querySelector(".ask-line")?.textContent ?? null;
}
