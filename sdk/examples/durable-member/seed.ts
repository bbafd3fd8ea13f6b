/**
 * What a first start puts in an empty store: the desk's workspaces and tabs, and a few customers
 * waiting with their tickets, so the phone has something to show at once.
 */
import { normalizeItem } from "@colliepwa/durable-sdk";
import type { DeskStore, TicketRecord } from "./store.ts";

/** Workspaces and their tabs, in the order the phone lists them (S-9). */
export const LAYOUT = [
  { id: "support", title: "Support", tabs: [{ id: "tickets", title: "Tickets" }, { id: "vip", title: "VIP" }] },
  { id: "billing", title: "Billing", tabs: [{ id: "refunds", title: "Refunds" }] },
] as const;

/** The starters on the phone's New page (P-25): each opens a new conversation in its tab. */
export const STARTERS = [
  { id: "new-ticket", title: "New ticket", subtitle: "A customer wrote in", icon: "note", tabId: "support:tickets", intro: "New ticket. Tell me what the customer needs." },
  { id: "refund-check", title: "Refund check", subtitle: "List the refunds made so far", icon: "search", tabId: "billing:refunds", intro: "Refund check: listing every refund the desk made." },
] as const;

interface Seed {
  id: string;
  tabId: string;
  ticket: TicketRecord;
  intro: string;
}

const SEEDS: Seed[] = [
  {
    id: "ticket-5521",
    tabId: "support:tickets",
    ticket: { id: "5521", customer: "Maria Lopez", order: "5521", product: "Running shoes", amount: 40, currency: "EUR", status: "lost in transit", notes: [] },
    intro: "Ticket opened: the parcel for order 5521 never arrived.",
  },
  {
    id: "ticket-5530",
    tabId: "support:tickets",
    ticket: { id: "5530", customer: "Jonas Weber", order: "5530", product: "Trail jacket", size: "M", amount: 120, currency: "EUR", status: "delivered", notes: [] },
    intro: "Ticket opened: the trail jacket from order 5530 is the wrong size.",
  },
  {
    id: "vip-7781",
    tabId: "support:vip",
    ticket: { id: "7781", customer: "Sofia Rossi", order: "7781", product: "Espresso machine", amount: 649, currency: "EUR", status: "in transit", notes: [] },
    intro: "VIP: Sofia Rossi needs her espresso machine before Friday.",
  },
  {
    id: "inv-2207",
    tabId: "billing:refunds",
    ticket: { id: "6012", customer: "Aiko Tanaka", order: "6012", product: "Desk lamp", amount: 89.9, currency: "EUR", status: "delivered", notes: [], invoice: "INV-2207" },
    intro: "Aiko Tanaka asks why invoice INV-2207 shows the wrong VAT rate.",
  },
];

/** Fills an empty store. Start times are an hour apart, so history lists them in a fixed order. */
export function seed(store: DeskStore, now = Date.now()): void {
  SEEDS.forEach((s, i) => {
    store.putTicket(s.ticket);
    const startedAt = new Date(now - (SEEDS.length - i) * 3_600_000).toISOString();
    store.addConversation({
      id: s.id,
      title: s.ticket.customer,
      workspaceId: s.tabId.split(":")[0]!,
      tabId: s.tabId,
      startedAt,
      state: "open",
      items: [normalizeItem({ kind: "notice", id: "intro", text: s.intro, ts: startedAt }, now)],
      ticketId: s.ticket.id,
      turns: 0,
    });
  });
}
