/**
 * A member's decisions on the lead (C-1, issue #37): the member's live stream is JSON nothing else
 * checks, so a decision is rebuilt field by field before the lead passes it on to its phones.
 */
import type { Decision } from "@colliepwa/shared";
import { parseWith, WRITE_BODY_CHECKERS } from "@colliepwa/durable-sdk/wire";

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const TEXT_MAX = 4096;
const text = (v: unknown): v is string => typeof v === "string" && v.length > 0 && v.length <= TEXT_MAX;

/**
 * A decision from a member's live stream, rebuilt field by field (the member's JSON is checked
 * nowhere else); null when a required field is missing or not text.
 */
export function checkDecision(d: unknown): Decision | null {
  if (!isRecord(d)) return null;
  if (!text(d.askId) || !text(d.paneId) || !text(d.itemId) || !text(d.kind) || typeof d.title !== "string" || !text(d.device) || !text(d.at)) return null;
  const out: Decision = { askId: d.askId, paneId: d.paneId, itemId: d.itemId, kind: d.kind as Decision["kind"], title: d.title.slice(0, TEXT_MAX), device: d.device, at: d.at };
  if (text(d.tool)) out.tool = d.tool;
  if (text(d.optionKind)) out.optionKind = d.optionKind;
  if (d.held === true) out.held = true;
  if (text(d.requestId)) out.requestId = d.requestId;
  if (d.answer !== undefined) {
    // The wire's own checker of an answer: what a phone could have sent, nothing else.
    const parsed = parseWith(WRITE_BODY_CHECKERS.answer, { requestId: "r", revision: "0000000000000000", answer: d.answer });
    if (parsed.ok) out.answer = parsed.value.answer;
  }
  return out;
}
