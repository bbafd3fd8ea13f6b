/** The New page's pure parts (P-25): reading a starters reply and naming a failed read. */
import { STRINGS, type Starter } from "@colliepwa/shared";

/** The starters of a 200 reply, or null when the body is not a starters page. */
export function startersOf(body: unknown): Starter[] | null {
  if (typeof body !== "object" || body === null) return null;
  const list = (body as { starters?: unknown }).starters;
  if (!Array.isArray(list)) return null;
  return list.filter(
    (s): s is Starter => typeof s === "object" && s !== null && typeof (s as Starter).id === "string" && typeof (s as Starter).title === "string",
  );
}

/** The line for a starters read that brought no list. */
export function startersNote(status: number, body: unknown): string {
  const code = typeof body === "object" && body !== null ? (body as { error?: unknown }).error : undefined;
  // The agent declared the cap but takes no starters after all: the same as none (P-25).
  if (status === 409 && code === "not-supported") return STRINGS.noStarters;
  if (status === 503 || status === 504) return STRINGS.historyNoAnswer;
  return "The starters could not be loaded. Try again.";
}
