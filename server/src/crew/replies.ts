/**
 * A crew member's HTTP replies as the lead's phone gets them (C-1, the security issue 38.10): the
 * member chooses none of the lead's statuses. A read's 200 is read by the contract's and the
 * wire's checkers in the lead's reading mode (cut, cleaned, masked as for its own agents, R-1) and
 * renamed to the lead's key; an action's is the wire's `WriteOk`, or the member's `202 held`. An
 * error passes on only when it is the wire's, or one of Collie's about the agent or the request,
 * at its catalog status, with the catalog's keys (`catalogErrorBody`). Anything else — a 101, a
 * 999, a body that is not what it should be, the member's own `401 unpaired` (which is about the
 * lead's credential, not the phone) — is `503 agent-unreachable` with the member's words.
 */
import { API_ERRORS, type ApiErrorCode } from "@colliepwa/shared";
import { CONVERSATIONS_PAGE_MAX } from "@colliepwa/shared/schemas";
import { readConversation, readPaneDetail } from "@colliepwa/shared/live";
import {
  cleanText, isWireErrorCode, parseErrorBody, parseHistoryItemsPage, parseHistoryPage, parseStartersPage, parseWriteOk, statusOf,
  type Parsed, type ReadOptions,
} from "@colliepwa/durable-sdk/wire";
import type { Conversation } from "@colliepwa/shared";
import { catalogErrorBody, type Outcome } from "../agents/gateway.ts";
import { maskHistoryPage } from "../push/mask.ts";
import { apiError } from "../errors.ts";

/** The lead's read routes a member answers. */
export type MemberReadRoute = "conversations" | "pane" | "history" | "historyItems" | "starters";

/** How the lead reads and shows what a member sends (as its own agents: `agentReads`, `present`, `mask`). */
export interface MemberReading {
  /** The member's name, for the words of a refusal. */
  member: string;
  reads: ReadOptions;
  present: (c: Conversation) => Conversation;
  mask: ((text: string) => string) | undefined;
  /** The agent's key on the lead (`<agent>@<member>`). */
  key: string;
}

/**
 * Collie's own codes a member's reply may carry on to the phone: about the agent or the phone's
 * request. The others (its gate's: unpaired, bad-host, bad-origin; pairing and invites) are about
 * the lead's own request to it.
 */
const PASSED_ON: ReadonlySet<ApiErrorCode> = new Set(["bad-request", "too-large", "unsupported-type", "not-found", "unknown-agent", "agent-version-mismatch", "agent-unreachable", "agent-failed"]);

const isApiErrorCode = (code: string): code is ApiErrorCode => Object.hasOwn(API_ERRORS, code);

/** A member's words, cleaned and cut as any text from outside (L-2). */
const words = (text: string): string => cleanText(text, 512, { singleLine: true }).text;

/** A member's error reply: passed on when the catalog knows it at that status, else 503 with the member's words. */
export function memberError(member: string, status: number, body: unknown): Outcome {
  const parsed = parseErrorBody(body);
  if (parsed.ok) {
    const code = parsed.value.error;
    const known = isWireErrorCode(code) ? statusOf(code) : isApiErrorCode(code) && PASSED_ON.has(code) ? API_ERRORS[code].status : null;
    if (known === status) return { status, body: catalogErrorBody(parsed.value as unknown as Record<string, unknown>) };
    return apiError("agent-unreachable", `The crew member ${member} answered ${status} ${code}: ${words(parsed.value.message)}`);
  }
  return apiError("agent-unreachable", `The crew member ${member} answered with status ${status}.`);
}

/** A member's reply to a read (`route`), as the lead's phone gets it. */
export function memberRead(route: MemberReadRoute, status: number, body: unknown, how: MemberReading): Outcome {
  if (status !== 200) return memberError(how.member, status, body);
  const read = readBody(route, body, how);
  if (!read.ok) return apiError("agent-unreachable", `The crew member ${how.member}'s reply was malformed: ${words(read.error)}`);
  return { status: 200, body: read.value };
}

/** A member's reply to an action: its agent's `WriteOk`, its own `202 held`, or an error as above. */
export function memberWrite(member: string, status: number, body: unknown): Outcome {
  if (status === 202 && (body as { held?: unknown } | null)?.held === true) return { status: 202, body: { held: true } };
  if (status !== 200) return memberError(member, status, body);
  const ok = parseWriteOk(body);
  if (!ok.ok) return apiError("agent-unreachable", `The crew member ${member}'s reply was malformed: ${words(ok.error)}`);
  return { status: 200, body: ok.value as unknown as Record<string, unknown> };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
/** A reply body the reader refuses, and why (a `Parsed` failure, not an error body). */
const malformed = (why: string): Parsed<never> => ({ ok: false, error: why });

function readBody(route: MemberReadRoute, body: unknown, how: MemberReading): Parsed<Record<string, unknown>> {
  const lead = (c: Conversation): Conversation => ({ ...how.present(c), agent: how.key });
  switch (route) {
    case "conversations": {
      if (!isRecord(body) || !Array.isArray(body.conversations)) return malformed("conversations: must be a list");
      if (body.conversations.length > CONVERSATIONS_PAGE_MAX) return malformed(`conversations: more than ${CONVERSATIONS_PAGE_MAX}`);
      if (body.next !== undefined && (typeof body.next !== "string" || !/^\d{1,16}$/.test(body.next))) return malformed("next: must be a page cursor");
      const conversations: Conversation[] = [];
      for (const [i, c] of body.conversations.entries()) {
        const r = readConversation(c, how.reads);
        if (!r.ok) return malformed(`conversations[${i}]: ${r.error}`);
        conversations.push(lead(r.value));
      }
      return { ok: true, value: body.next === undefined ? { conversations } : { conversations, next: body.next } };
    }
    case "pane": {
      const r = readPaneDetail(body, how.reads);
      return r.ok ? { ok: true, value: { ...r.value, conversation: lead(r.value.conversation) } } : r;
    }
    case "history": {
      const r = parseHistoryPage(body, how.reads);
      return r.ok ? { ok: true, value: { ...(how.mask ? maskHistoryPage(r.value, how.mask) : r.value) } } : r;
    }
    case "historyItems": {
      const r = parseHistoryItemsPage(body, how.reads);
      return r.ok ? { ok: true, value: { ...r.value } } : r;
    }
    case "starters": {
      const r = parseStartersPage(body, how.reads);
      return r.ok ? { ok: true, value: { ...r.value } } : r;
    }
  }
}
