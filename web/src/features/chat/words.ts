/**
 * The chat's own words where the specification leaves them to Collie (the verbatim ones are in
 * `STRINGS` of @colliepwa/shared); each is listed in docs/decisions.md.
 */
export const CHAT_WORDS = Object.freeze({
  /** Under your line while Collie holds it for an unreachable agent (D-5). */
  held: "Not delivered yet. Collie sends it when the durable agent is back.",
  /** A quiet line for an answer given from a phone: what it decided, about which tool or ask. */
  decided: (optionKind: string | undefined, what: string): string => {
    switch (optionKind) {
      case "allow": return `Allowed: ${what}`;
      case "allow-always": return `Always allowed: ${what}`;
      case "deny": return `Denied: ${what}`;
      case "cancel": return `Cancelled: ${what}`;
      default: return `Answered: ${what}`;
    }
  },
});
