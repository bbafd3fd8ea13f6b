/**
 * The phone's English strings, verbatim from the specification (P-2…P-29, U-1, U-2). The PWA and
 * the daemon's push text import them from here; nobody retypes them.
 */
export const STRINGS = Object.freeze({
  // Dashboard (P-2, P-4)
  durableAgents: "Durable agents",
  experimental: "Experimental",
  selfNameFallback: "durable",
  local: "local",
  remote: "remote",
  starting: "Starting",
  unreachable: "Unreachable",
  versionMismatch: "Version mismatch",
  showOnlyWhatNeedsYou: "Show only what needs you",
  // Conversation list (P-5…P-8)
  closed: "Closed",
  untitledConversation: "Untitled conversation",
  reopen: "Reopen",
  loadMore: "Load more",
  noHistory: "This durable agent keeps no list of its conversations.",
  historyNoAnswer: "The durable agent did not answer. Try again in a moment.",
  historyVersion: (agent: number, collie: number) =>
    `The durable agent speaks wire v${agent}, this Collie speaks v${collie}. Update Collie, or the agent's SDK.`,
  historyFailed: "The conversations could not be loaded. Try again.",
  // Version warning on the agent's home (P-17)
  versionWarning: (agent: number, collie: number) =>
    `Program speaks wire v${agent}, this Collie speaks v${collie}. Update Collie, or the durable agent's SDK.`,
  // Ask cards (P-9…P-16)
  needsYourAnswer: (agent: string) => `Needs your answer · ${agent}`,
  expiresInMin: (min: number) => `Expires in ${min} min`,
  expiresInSec: (sec: number) => `Expires in ${sec} s`,
  expired: "Expired",
  allow: "Allow",
  alwaysAllow: "Always allow",
  deny: "Deny",
  cancel: "Cancel",
  pickAny: "Pick any",
  send: "Send",
  counter: (used: number, limit: number) => `${used} of ${limit}`,
  required: "Required",
  tapAgainToAlwaysAllow: "Tap again to always allow",
  textShortened: "Text shortened",
  cannotAnswer: "This ask cannot be answered from the phone.",
  showMore: (n: number) => `Show ${n} more`,
  decidedInAgent: "Decided in the durable agent.",
  timedOut: "Timed out before an answer.",
  alreadyAnswered: "Already answered. This card goes away on the next refresh.",
  notTaken: "Not taken. The question may come back in a moment.",
  askChanged: "This ask changed. Read it again, then tap an answer.",
  notSureArrived: "Not sure the answer arrived. Retry sends it again.",
  mayHaveBeenApplied: "May have been applied already. Check the chat.",
  answerRefused: "The answer was refused.",
  olderCollie: "This machine runs an older Collie and answers can't be taken here. Update it, or answer in the durable agent.",
  timedOutLine: (title: string) => `Timed out before an answer: ${title}`,
  decidedLine: (title: string) => `Decided in the durable agent: ${title}`,
  // Chat and composer (P-19, P-20)
  stopped: "stopped",
  sent: "Sent",
  sendingNotConfirmed: "Sending, not confirmed",
  notSent: "Not sent",
  // Belt (P-22, P-23)
  steer: "Steer",
  stop: "Stop",
  movedOn: "The conversation moved on, so the action did not run.",
  closeConversation: "Close conversation",
  // New conversation (P-25)
  newConversation: "New conversation",
  noStarters: "This machine's durable agent offers no starters yet.",
  // Push (U-1, U-2)
  permissionNeededIn: (pane: string) => `Permission needed in ${pane}`,
  manyAsks: (host: string) => `A durable agent on ${host} is raising many asks`,
  // Collie's own words, where the specification gives none (docs/decisions.md)
  notShown: (shown: number, more: number) =>
    `This durable agent has ${more} more open conversations than Collie shows (${shown} at most).`,
} as const);
