/**
 * The card's own words where the specification leaves them to Collie (the verbatim ones are in
 * `STRINGS` of @colliepwa/shared).
 */
export const WORDS = Object.freeze({
  /** A held answer (202): Collie keeps it until the durable agent is back (D-5); it names the answer. */
  held: (answer: string) => `Sent: ${answer}. Collie delivers it when the durable agent is back.`,
  retry: "Retry",
  sending: "Sending…",
  showMoreReason: "Show more",
  showLessReason: "Show less",
  /** Under a form field that did not pass the check before sending. */
  fieldRequired: "Fill this in to send.",
  toggleRequired: "Turn this on to send.",
  fieldTooLong: (limit: number) => `Keep it to ${limit} characters.`,
  fieldUnknownOption: "Pick one of the options.",
  /** A select list with nothing chosen yet. */
  choose: "Choose…",
});
