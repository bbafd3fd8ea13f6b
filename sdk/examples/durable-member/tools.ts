/**
 * The desk's tools: what the model's tool calls do to the tickets in the store. A tool is a plain
 * function of its arguments and, when the model attached an ask, the phone's answer.
 *
 * Which tools are risky is decided here, next to the code that moves money, not by the model:
 * the runner asks for approval before a risky tool runs, with a card built from the call (S-25).
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { AskAnswer } from "@colliepwa/durable-sdk";
import type { DeskStore, TicketRecord } from "./store.ts";

export interface ToolContext {
  store: DeskStore;
  ticket: TicketRecord | undefined;
  /** The answer to the tool's ask, and for a choice the labels picked. */
  answer?: AskAnswer;
  picked?: string[];
  /** Reports a percentage while a long step runs (S-18: `42%: Uploading`). */
  progress(percent: number, label: string): void;
  signal: AbortSignal;
}

export interface Tool {
  /** A risky tool runs only after an Allow on the phone (S-25). */
  risky?: boolean;
  /** Its card also offers `Always allow` (S-27): for a tool that only reads, never for one that moves money. */
  offerAlways?: boolean;
  /** Returns the output shown under the tool call; a throw marks the call failed. */
  run(args: Record<string, unknown>, ctx: ToolContext): string | Promise<string>;
}

/** What the partner warehouses have in stock, by warehouse. */
const STOCK: Record<string, number> = { Berlin: 3, Vienna: 0 };

const COUNTRIES: Record<string, string> = { de: "Germany", at: "Austria", ch: "Switzerland", nl: "Netherlands" };

function ticketOf(ctx: ToolContext): TicketRecord {
  if (!ctx.ticket) throw new Error("this conversation has no order");
  return ctx.ticket;
}

function save(ctx: ToolContext, change: Partial<TicketRecord>): TicketRecord {
  const next = { ...ticketOf(ctx), ...change };
  ctx.store.putTicket(next);
  return next;
}

/** save_note's output when the note was left empty. */
export const NO_NOTE = "No note";

export const TOOLS: Record<string, Tool> = {
  lookup_order: {
    run: (_args, ctx) => {
      const t = ticketOf(ctx);
      return `Order ${t.order}: ${t.product}, ${t.amount} ${t.currency}, ${t.status}`;
    },
  },
  refund: {
    risky: true,
    run: (args, ctx) => {
      const t = save(ctx, { status: "refunded" });
      return `Refunded ${String(args.amount)} ${t.currency} for order ${t.order}`;
    },
  },
  check_stock: {
    // The partner's API is paid per call, so it asks first; it only reads, so `Always allow` is fine.
    risky: true,
    offerAlways: true,
    run: (args) => {
      const n = STOCK[String(args.warehouse)] ?? 0;
      return `${String(args.warehouse)}: ${n === 0 ? "none" : `${n} in stock`}`;
    },
  },
  book_slot: {
    run: (args, ctx) => {
      const slot = ctx.picked?.[0] ?? (typeof args.slot === "string" ? args.slot : "");
      if (!slot) throw new Error("no slot was picked");
      return `Booked ${slot} for order ${ticketOf(ctx).order}`;
    },
  },
  reserve_item: {
    run: (_args, ctx) => {
      const size = ctx.picked?.[0];
      if (!size) throw new Error("no size chosen");
      save(ctx, { size, status: "exchange reserved" });
      return `Reserved size ${size}`;
    },
  },
  add_extras: {
    run: (_args, ctx) => {
      const extras = ctx.picked ?? [];
      save(ctx, { extras });
      return extras.length ? `Added ${extras.join(", ")}` : "No extras";
    },
  },
  update_address: {
    run: (_args, ctx) => {
      const values = ctx.answer?.kind === "form" ? ctx.answer.values : {};
      const street = String(values.street ?? "").trim();
      if (!street) throw new Error("no street given");
      const address = { street, country: COUNTRIES[String(values.country)] ?? "Germany", leaveAtDoor: values.door === true };
      save(ctx, { address });
      return `${address.street}, ${address.country}${address.leaveAtDoor ? ", leave at door" : ""}`;
    },
  },
  save_note: {
    run: (_args, ctx) => {
      const text = ctx.answer?.kind === "text" ? ctx.answer.text.trim() : "";
      // Nothing typed is an answer: no note, and nothing failed.
      if (!text) return NO_NOTE;
      const t = ticketOf(ctx);
      save(ctx, { notes: [...t.notes, text] });
      return `Saved: ${text}`;
    },
  },
  notify_courier: {
    run: (_args, ctx) => `Courier notified for order ${ticketOf(ctx).order}`,
  },
  fetch_invoice: {
    run: (args) => {
      // The old archive never answers: the chat shows a failed call, then the retry (S-14).
      if (args.archive === "eu-old") throw new Error("the eu-old archive did not answer in 5 s");
      return `Fetched ${String(args.invoice)} from the ${String(args.archive)} archive`;
    },
  },
  upload_invoice: {
    run: async (args, ctx) => {
      for (const percent of [0, 25, 42, 75, 100]) {
        ctx.progress(percent, "Uploading corrected invoice");
        await sleep(60, undefined, { signal: ctx.signal });
      }
      save(ctx, { status: "invoice corrected" });
      return `Uploaded ${String(args.invoice)} (2 pages)`;
    },
  },
  send_invoice: {
    run: (args, ctx) => {
      const via = ctx.picked?.[0]?.toLowerCase() ?? String(args.via ?? "");
      if (!via) throw new Error("no way to send it was chosen");
      return `Sent ${String(args.invoice)} by ${via}`;
    },
  },
};
