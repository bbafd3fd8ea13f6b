/**
 * What a refused tap says (issue 37: every refused tap says so in the chat, in the
 * specification's or Collie's words). A belt button, Close, Rename or Reopen that got a 4xx shows
 * one line: the agent's own reason when it gave one (`409 refused` with `reason`, as P-15 shows an
 * answer's), P-23's words for `moved-on`, otherwise Collie's words for the code. Collie's own
 * refusals (its error catalog) carry Collie's message; an agent's `message` is agent text and is
 * not shown as Collie's words.
 */
import { API_ERRORS, STRINGS } from "@colliepwa/shared";
import { WORDS } from "@colliepwa/shared/strings";

export function refusalLine(what: string, body: Record<string, unknown>): string {
  const code = typeof body.error === "string" ? body.error : "";
  if (code === "refused" && typeof body.reason === "string" && body.reason) return body.reason;
  if (code === "moved-on") return STRINGS.movedOn;
  if (code === "not-supported") return WORDS.chat.notOffered(what);
  if (code === "not-found" || code === "unknown-agent") return WORDS.chat.gone(what);
  if (Object.hasOwn(API_ERRORS, code) && typeof body.message === "string" && body.message) return WORDS.chat.collieRefused(what, body.message);
  return WORDS.chat.refused(what);
}
