/**
 * The scripted model: a stand-in for an LLM so the desk runs with no network (S-36).
 *
 * `respond(context)` is a generator. It yields one step at a time (think, reply, call a tool, show
 * markdown, code or a link) and gets each step's result back, so a later step can depend on an
 * answer from the phone, as a real model's next message depends on a tool result. Everything is
 * deterministic: the same conversation and text give the same script. Which script runs depends
 * on words in the user's text; the conversation's ticket fills in names, orders and amounts.
 *
 * The model never asks the phone itself: a tool that needs a person's input carries an `ask`, and
 * a risky tool is marked risky in tools.ts, where the approval card is built from the call itself
 * (S-25), never from the model's words about it.
 */
import type { AskAnswer, AskInput, DecidedBy } from "@colliepwa/durable-sdk";
import type { TicketRecord, WaitingCall } from "./store.ts";
import { NO_NOTE } from "./tools.ts";

/** An ask as the model writes it; the runner adds `toolCallId` and `itemId`: the card sits under its tool call (P-9). */
export type AskSpec = AskInput extends infer T ? (T extends AskInput ? Omit<T, "toolCallId" | "itemId" | "signal"> : never) : never;

export type Step =
  | { kind: "thinking"; text: string }
  | { kind: "reply"; text: string }
  | { kind: "markdown"; text: string }
  | { kind: "code"; text: string; lang: string }
  | { kind: "link"; href: string; label: string }
  | {
      kind: "tool";
      name: string;
      args: Record<string, unknown>;
      /** The input the tool needs from a person, asked on the phone before it runs. */
      ask?: AskSpec;
      /** Where the tool sits in a chain: `Step 2 of 4: Add extras` (S-18, P-21). */
      step?: { current: number; total: number; label: string };
      /** Another system settles the ask after this long unless the phone answered first (S-24). */
      decideAfterMs?: number;
      /** Set when a call is raised again after a restart: it keeps its id, so its ask does too (S-23). */
      callId?: string;
    };

export type StepResult =
  | { kind: "shown" }
  | {
      kind: "tool";
      status: "done" | "failed" | "denied";
      output: string;
      /** The answer to the tool's ask, and for a choice the labels picked. */
      answer?: AskAnswer;
      picked?: string[];
      /** Who ended an ask or approval that did not go through (S-24). */
      decidedBy?: DecidedBy;
    };

export type Script = Generator<Step, void, StepResult>;

export interface ModelContext {
  /** What the user sent to start the turn. */
  text: string;
  /** The conversation's ticket, read fresh at each step (tools change it). */
  ticket(): TicketRecord | undefined;
  /** Texts steered into this turn so far (P-22): the model takes them into account as it goes. */
  steers(): readonly string[];
  /** Every ticket, for the refund check. */
  tickets(): TicketRecord[];
  /** How long a card with an expiry stays open (default 2 minutes). */
  askExpiryMs: number;
}

const SITE = "https://desk.example.com";
const firstName = (t: TicketRecord | undefined): string => t?.customer.split(" ")[0] ?? "the customer";

/** Picks the script by the user's words. */
export function respond(ctx: ModelContext): Script {
  const text = ctx.text.toLowerCase();
  const ticket = ctx.ticket();
  if (/refund|money back/.test(text)) return ticket ? refund(ctx, ticket) : refundCheck(ctx);
  if (/size|exchange|swap/.test(text) && ticket) return exchange(ctx, ticket);
  if (/courier|note/.test(text) && ticket) return courierNote(ctx, ticket);
  if (/address/.test(text) && ticket) return address(ctx, ticket);
  if (/invoice|bill/.test(text) && ticket) return invoice(ctx, ticket);
  if (/stock/.test(text) && ticket) return stock(ctx, ticket);
  if (/slot/.test(text) && ticket) return deliverySlot(ctx, ticket);
  if (/summary|wrap up/.test(text)) return summary(ctx, ticket);
  return smallTalk(ctx, ticket);
}

/** What the user steered in, for the end of a reply. */
function steered(ctx: ModelContext): string {
  const all = ctx.steers();
  return all.length === 0 ? "" : ` You also said: ${all.map((s) => `"${s}"`).join(", ")} — noted.`;
}

function* refund(ctx: ModelContext, t: TicketRecord): Script {
  yield { kind: "thinking", text: `${firstName(t)} asks for a refund on order ${t.order}. Look the order up first, and only then move money.` };
  const lookup = yield { kind: "tool", name: "lookup_order", args: { order: t.order } };
  if (lookup.kind === "tool" && lookup.status !== "done") {
    yield { kind: "reply", text: `I could not read order ${t.order}, so I did not refund anything.` };
    return;
  }
  yield* refundCall(ctx, t);
}

/**
 * The refund call and what follows it. refund is risky (tools.ts): the runner asks for approval
 * before it runs (S-25). After a restart the script goes on from here, with the waiting call.
 */
function* refundCall(ctx: ModelContext, t: TicketRecord, waiting?: WaitingCall): Script {
  const refunded = yield { kind: "tool", name: "refund", args: waiting?.args ?? { order: t.order, amount: t.amount }, ...(waiting ? { callId: waiting.callId } : {}) };
  if (refunded.kind !== "tool") return;
  if (refunded.status === "done") {
    yield { kind: "reply", text: `Done: I refunded ${t.amount} ${t.currency} for order ${t.order}. ${firstName(t)} will see it on the original payment within three to five working days.${steered(ctx)}` };
    yield { kind: "link", href: `${SITE}/orders/${t.order}/refund`, label: `Refund receipt for order ${t.order}` };
  } else if (refunded.decidedBy === "timeout") {
    yield { kind: "reply", text: `The approval card expired, so nothing was refunded. Ask me again when you have a moment.` };
  } else {
    yield { kind: "reply", text: `Understood, no refund for order ${t.order}. I can offer a replacement parcel instead.${steered(ctx)}` };
  }
}

/** The exchange uses every kind of input: a choice, a multiple choice, a form and a text (S-21). */
function* exchange(ctx: ModelContext, t: TicketRecord): Script {
  yield { kind: "thinking", text: `${firstName(t)} got the wrong size of ${t.product}. Reserve the right one, then check the delivery details.` };
  const total = 4;
  const size = yield {
    kind: "tool", name: "reserve_item", args: { order: t.order, product: t.product },
    step: { current: 1, total, label: "Reserve size" },
    ask: {
      kind: "choice", title: "Which size should replace it?", reason: `${firstName(t)} ordered size ${t.size ?? "M"}.`,
      options: [{ id: "s", label: "S" }, { id: "m", label: "M" }, { id: "l", label: "L" }, { id: "xl", label: "XL", description: "Only two left" }],
    },
  };
  if (size.kind !== "tool" || size.status !== "done") {
    yield { kind: "reply", text: `No size was chosen, so I left order ${t.order} as it is.` };
    return;
  }
  const extras = yield {
    kind: "tool", name: "add_extras", args: { order: t.order },
    step: { current: 2, total, label: "Add extras" },
    ask: {
      kind: "choice", multiple: true, title: "Anything to add to the exchange?",
      options: [{ id: "gift", label: "Gift wrap" }, { id: "express", label: "Express shipping" }, { id: "label", label: "Return label by email" }],
    },
  };
  const where = yield {
    kind: "tool", name: "update_address", args: { order: t.order },
    step: { current: 3, total, label: "Save address" },
    ask: {
      kind: "form", title: "Where should the replacement go?",
      fields: [
        { id: "street", type: "text", label: "Street and number", required: true, placeholder: "Hauptstraße 5", limit: 120 },
        { id: "country", type: "select", label: "Country", options: [{ id: "de", label: "Germany" }, { id: "at", label: "Austria" }, { id: "ch", label: "Switzerland" }, { id: "nl", label: "Netherlands" }] },
        { id: "door", type: "toggle", label: "Leave at door" },
      ],
    },
  };
  const note = yield {
    kind: "tool", name: "save_note", args: { order: t.order },
    step: { current: 4, total, label: "Save note" },
    ask: { kind: "text", title: "A note for the courier?", limit: 200, placeholder: "e.g. ring twice" },
  };
  const ticket = ctx.ticket() ?? t;
  const picked = (r: StepResult) => (r.kind === "tool" && r.status === "done" && r.picked?.length ? r.picked.join(", ") : "none");
  yield { kind: "reply", text: `All set: size ${ticket.size} is reserved for ${firstName(t)} and ships today.${steered(ctx)}` };
  const lines = [
    `**Exchange for order ${t.order}**`,
    "",
    `- New size: **${ticket.size}**`,
    `- Extras: ${picked(extras)}`,
    `- Ship to: ${where.kind === "tool" && where.status === "done" && ticket.address ? `${ticket.address.street}, ${ticket.address.country}${ticket.address.leaveAtDoor ? " (leave at door)" : ""}` : "the address on file"}`,
    `- Courier note: ${note.kind === "tool" && note.status === "done" && note.output !== NO_NOTE ? (ticket.notes.at(-1) ?? "none") : "none"}`,
    "",
    `[Track the exchange](${SITE}/orders/${t.order})`,
  ];
  yield { kind: "markdown", text: lines.join("\n") };
}

function* courierNote(ctx: ModelContext, t: TicketRecord): Script {
  yield { kind: "thinking", text: `A note for the courier on order ${t.order}: ask what it should say, save it, then tell the courier.` };
  const note = yield {
    kind: "tool", name: "save_note", args: { order: t.order },
    step: { current: 1, total: 2, label: "Save note" },
    ask: { kind: "text", title: "A note for the courier?", limit: 200, placeholder: "e.g. ring twice" },
  };
  if (note.kind !== "tool" || note.status !== "done" || note.output === NO_NOTE) {
    yield { kind: "reply", text: "No note, so the courier gets none." };
    return;
  }
  yield { kind: "tool", name: "notify_courier", args: { order: t.order }, step: { current: 2, total: 2, label: "Notify courier" } };
  yield { kind: "reply", text: `The courier has the note for order ${t.order}.${steered(ctx)}` };
}

function* address(ctx: ModelContext, t: TicketRecord): Script {
  yield { kind: "thinking", text: `Correct the delivery address of order ${t.order}.` };
  const where = yield {
    kind: "tool", name: "update_address", args: { order: t.order },
    ask: {
      kind: "form", title: "Correct the delivery address",
      fields: [
        { id: "street", type: "text", label: "Street and number", required: true, limit: 120 },
        { id: "country", type: "select", label: "Country", options: [{ id: "de", label: "Germany" }, { id: "at", label: "Austria" }, { id: "ch", label: "Switzerland" }, { id: "nl", label: "Netherlands" }] },
        { id: "door", type: "toggle", label: "Leave at door" },
      ],
    },
  };
  yield { kind: "reply", text: where.kind === "tool" && where.status === "done" ? `Saved: ${where.output}.${steered(ctx)}` : "The address stays as it was." };
}

/**
 * The invoice shows a failed tool (an archive that does not answer), code, a percentage while a
 * file uploads, and a card with an expiry that has a sensible default when nobody answers (S-24).
 */
function* invoice(ctx: ModelContext, t: TicketRecord): Script {
  const number = t.invoice ?? `INV-${t.order}`;
  yield { kind: "thinking", text: `${firstName(t)} has a question about invoice ${number}. Fetch it, correct the VAT line and send it again.` };
  const first = yield { kind: "tool", name: "fetch_invoice", args: { invoice: number, archive: "eu-old" } };
  if (first.kind === "tool" && first.status === "failed") {
    yield { kind: "tool", name: "fetch_invoice", args: { invoice: number, archive: "eu" } };
  }
  yield { kind: "code", lang: "json", text: JSON.stringify({ invoice: number, order: t.order, net: +(t.amount / 1.19).toFixed(2), vat: "19%", total: t.amount, currency: t.currency }, null, 2) };
  yield { kind: "tool", name: "upload_invoice", args: { invoice: number } };
  const send = yield {
    kind: "tool", name: "send_invoice", args: { invoice: number },
    ask: {
      kind: "choice", title: "How should the corrected invoice go out?",
      options: [{ id: "email", label: "Email" }, { id: "post", label: "Post" }],
      // Past this the card closes as `timeout` (S-24) and the invoice goes by email, the default.
      expiresAt: new Date(Date.now() + ctx.askExpiryMs),
    },
  };
  if (send.kind === "tool" && send.decidedBy === "timeout") {
    yield { kind: "tool", name: "send_invoice", args: { invoice: number, via: "email" } };
    yield { kind: "reply", text: `Nobody picked a way in time, so I emailed the corrected invoice ${number} (the default).${steered(ctx)}` };
  } else {
    yield { kind: "reply", text: `The corrected invoice ${number} is on its way.${steered(ctx)}` };
  }
  yield { kind: "link", href: `${SITE}/invoices/${number}`, label: `Invoice ${number}` };
}

/**
 * A stock check in two warehouses. check_stock reads a partner's paid API, so it asks first; it
 * only reads, so the card also offers `Always allow`, after which the second call (and every later
 * one) runs without a card (S-27).
 */
function* stock(ctx: ModelContext, t: TicketRecord): Script {
  yield { kind: "thinking", text: `Is the ${t.product} still in stock? Ask both warehouses.` };
  const found: string[] = [];
  for (const warehouse of ["Berlin", "Vienna"]) {
    const r = yield { kind: "tool", name: "check_stock", args: { product: t.product, warehouse } };
    if (r.kind === "tool" && r.status === "done") found.push(r.output);
  }
  yield {
    kind: "reply",
    text: found.length === 0 ? `I did not check the stock, so I cannot promise a ${t.product}.${steered(ctx)}` : `Stock of the ${t.product}: ${found.join("; ")}.${steered(ctx)}`,
  };
}

/** How long the courier's own system waits before it books the first free slot itself. */
const SLOT_SETTLES_MS = 5_000;

/**
 * A delivery slot the courier's system books itself when nobody picks one within a few seconds:
 * the ask is decided in the agent while the card may still be open (S-24, P-16).
 */
function* deliverySlot(ctx: ModelContext, t: TicketRecord): Script {
  yield { kind: "thinking", text: `Book a delivery slot for order ${t.order}. If nobody picks one, the courier books the first free slot.` };
  const slot = yield {
    kind: "tool", name: "book_slot", args: { order: t.order },
    ask: { kind: "choice", title: "Which delivery slot should the courier book?", options: [{ id: "thu", label: "Thursday morning" }, { id: "fri", label: "Friday morning" }] },
    decideAfterMs: SLOT_SETTLES_MS,
  };
  if (slot.kind === "tool" && slot.status === "done" && !slot.decidedBy) {
    yield { kind: "reply", text: `${slot.output}. ${firstName(t)} gets a text the evening before.${steered(ctx)}` };
    return;
  }
  const first = yield { kind: "tool", name: "book_slot", args: { order: t.order, slot: "Thursday morning" } };
  const booked = first.kind === "tool" && first.status === "done" ? `${first.output}.` : "Nothing is booked yet.";
  yield { kind: "reply", text: `Nobody picked a slot, so the courier's system took the first free one. ${booked}${steered(ctx)}` };
}

/**
 * After a restart: the risky call that was waiting for an Allow is raised again with its own id,
 * and the script goes on from there as it would have (conversation.ts `restore`).
 */
export function resume(ctx: ModelContext, waiting: WaitingCall): Script {
  const ticket = ctx.ticket();
  if (waiting.tool === "refund" && ticket) return refundCall(ctx, ticket, waiting);
  return (function* (): Script {
    const r = yield { kind: "tool", name: waiting.tool, args: waiting.args, callId: waiting.callId };
    yield { kind: "reply", text: r.kind === "tool" && r.status === "done" ? `Done: ${r.output}.` : `${waiting.tool} did not run.` };
  })();
}

function* refundCheck(ctx: ModelContext): Script {
  yield { kind: "thinking", text: "List every refund the desk made." };
  const refunds = ctx.tickets().filter((t) => t.status === "refunded");
  yield {
    kind: "markdown",
    text: refunds.length === 0
      ? "**No refunds yet.**"
      : ["**Refunds so far**", "", ...refunds.map((t) => `- Order ${t.order}: ${t.amount} ${t.currency} to ${t.customer}`), "", `[All orders](${SITE}/orders)`].join("\n"),
  };
}

function* summary(ctx: ModelContext, t: TicketRecord | undefined): Script {
  const lines = t
    ? [`**${t.customer}, order ${t.order}**`, "", `- Product: ${t.product}`, `- Status: ${t.status}`, `- Notes: ${t.notes.length}`, "", `[Open the order](${SITE}/orders/${t.order})`]
    : ["**Nothing to sum up yet.**", "", `- Try *refund*, *exchange*, *address*, *courier note* or *invoice*.`, "", `[Desk handbook](${SITE}/handbook)`];
  yield { kind: "markdown", text: lines.join("\n") };
  yield { kind: "reply", text: `That is where things stand.${steered(ctx)}` };
}

function* smallTalk(ctx: ModelContext, t: TicketRecord | undefined): Script {
  yield { kind: "thinking", text: "No tool needed; answer and offer what I can do." };
  const about = t ? ` for ${t.customer} (order ${t.order})` : "";
  yield { kind: "reply", text: `Got it: "${ctx.text}". I can refund, exchange a size, correct the address, pass a note to the courier or fix an invoice${about}. Just say which.${steered(ctx)}` };
}
