/** The two words `./pi` holds (S-35); everything a card or a pane says beyond them comes from options. */

/** The harness a Pi pane names: the phone shows it under the conversation's title. */
export const PI_HARNESS = "pi";

/** The host name a Pi agent gives itself: the phone shows it on the agent's line (P-2). */
export const PI_HOST_NAME = "pi-durable";
