/**
 * Every word the phone shows, in one module: `STRINGS`, verbatim from the specification (P-2…P-29,
 * U-1, U-2), and `WORDS`, Collie's own words where the specification gives none (each listed in
 * docs/decisions.md). The PWA and the daemon's push text import them from here; nobody retypes
 * them. This module imports nothing, so `@colliepwa/shared/strings` brings no schema along.
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
} as const);

/** Collie's own words, where the specification gives none (docs/decisions.md), by screen. */
export const WORDS = Object.freeze({
  screen: Object.freeze({
    collie: "Collie",
    back: "Back",
    backToDashboard: "Back to the dashboard",
    connecting: "Connecting to Collie…",
    loading: "Loading…",
    tryAgain: "Try again",
    /** A screen whose code could not be loaded, or that failed while drawing (ui/screen.tsx). */
    screenFailed: "This screen could not be loaded. Check the connection and try again.",
    settings: "Settings",
    spaces: "Spaces",
    noAgents: "No durable agents are attached. Add one to sources.json.",
    /** A crew member's section (C-1): a Durable agents section, with the machine's name. */
    durableAgentsOn: (machine: string) => `${STRINGS.durableAgents} on ${machine}`,
    /** A crew member that cannot be reached, on its section (issue #37). */
    machineOffline: (machine: string) => `${machine} is offline`,
    openConversations: "Open conversations",
    alwaysAllowed: "Always allowed",
    /** How the agent home's `Always allowed` opens its explanation (issue #32). */
    alwaysAllowedWhat: "What this means",
    /** What `Always allowed` means and how it ends (issue #32, #37). */
    alwaysAllowedMeans:
      "You tapped Always allow for these tools, so the durable agent runs them without asking you. It lasts while the agent remembers it; a restart usually ends it. A tool leaves this list when the agent asks about it again.",
    starters: "Starters",
    earlierNotKept: "Earlier messages are not kept here.",
    steered: "Steered",
    thinking: "Thinking",
    sending: "Sending",
    working: "Working",
    belt: "Belt",
    menu: "Menu",
    message: "Message",
    /** The composer's hint during a turn the agent takes no message in: Collie holds it until then. */
    messageAfterTurn: "Message · sent when this turn ends",
    notShown: (shown: number, more: number) =>
      `This durable agent has ${more} more open conversations than Collie shows (${shown} at most).`,
  }),
  pair: Object.freeze({
    title: "Pair this phone",
    intro: "Collie answers your durable agents' questions from this phone. Pair it to continue.",
    notPaired: "This phone is not paired with Collie.",
    onTheMachine: "On the machine that runs Collie, run ",
    code: "Pairing code",
    codeExample: "K7F3-Q2ZP",
    name: "Name of this phone",
  }),
  away: Object.freeze({
    chat: "The durable agent cannot be reached right now. Answers and messages wait in Collie and reach it when it is back; Stop and the agent's buttons work again then.",
    home: "The durable agent cannot be reached right now. Its conversations show as it last left them; answers and messages wait in Collie until it is back.",
    /** A tool call that was running when the agent went away. */
    toolLastSeen: "Last seen running",
  }),
  banner: Object.freeze({
    /** The phone's own network is down (the browser says it is offline): Collie is not the one away. */
    phoneOffline: "This phone is offline. It reconnects by itself.",
    offline: "Collie cannot be reached. Reconnecting…",
    reconnecting: "Reconnecting…",
    /** What is drawn came from the phone's saved copy. */
    saved: (time: string) => `Showing what this phone saved at ${time}. It may not be current.`,
  }),
  push: Object.freeze({
    label: "Push notifications",
    off: "Get a notification when a durable agent needs your answer.",
    on: "Asks that need you reach this device, even when Collie is closed.",
    denied: "Notifications are blocked for Collie in this browser's settings.",
    unsupported: "This browser cannot get push notifications here. On an iPhone, add Collie to the home screen first.",
    noPush: "This Collie does not send push notifications.",
    failed: (why: string) => `Push notifications could not be turned on: ${why}`,
    /** The browser has no push service to subscribe with (e.g. a Chromium build without one). */
    noService: "this browser has no push service, so it cannot get notifications. Try another browser, or Collie from the home screen.",
    /** The browser's push service did not answer the subscription in time (issue 37, item 6). */
    timedOut: (seconds: number) => `the browser's push service did not answer in ${seconds} seconds. Try again in a moment, or another browser.`,
    /** The browser refused for a reason of its own: its raw text is not shown (it reads like a stack). */
    refused: "the browser refused. Try again in a moment.",
    /** While the switch works (asking the browser, subscribing, telling Collie): it can take seconds. */
    turningOn: "Turning push notifications on…",
    turningOff: "Turning push notifications off…",
    /** The one-time offer after pairing (push was buried in Settings). */
    offer: "Get a notification on this phone when a durable agent needs your answer?",
    offerYes: "Turn on",
    offerNo: "Not now",
    offFailed: (why: string) => `Push notifications could not be turned off: ${why}`,
    /** The switch for the Allow and Deny buttons on an ask's notification (issue 30). */
    answerLabel: "Answer from notifications",
    /** Its one line: what the buttons mean on a locked phone. */
    answerLocked: "Allow and Deny show on the notification. On a locked phone, anyone holding it can tap them.",
    /** An answer from a notification that got no reply (no network, Collie down): the outbox keeps it (P-26). */
    answerOffline: (answer: string) => `No connection to Collie. ${answer} waits on this phone and is sent once the connection is back.`,
  }),
  chat: Object.freeze({
    /** Under your line while Collie holds it for an unreachable agent (D-5). */
    held: "Not delivered yet. Collie sends it when the durable agent is back.",
    /** After a held answer's line (issue #34): it waits in Collie. */
    heldAnswer: "Collie delivers it when the durable agent is back.",
    /** Under your line while Collie holds it for a running turn the agent takes no message in. */
    heldForTurn: "Not delivered yet. Collie sends it when the running turn ends.",
    /**
     * A tap that did not run, when the agent gave no reason of its own (issue 37: every refused
     * tap says so). `what` is the control's label (`Stop`, `Escalate`, `Close`).
     */
    notOffered: (what: string) => `${what} did not run: the durable agent does not offer it here.`,
    gone: (what: string) => `${what} did not run: the durable agent no longer has it.`,
    refused: (what: string) => `${what} did not run: the durable agent refused it.`,
    /** Collie itself refused; `why` is Collie's own message from its error catalog. */
    collieRefused: (what: string, why: string) => `${what} did not run. ${why}`,
    /** The pill that takes a reader who scrolled up back to the newest line (issue 37). */
    newest: "Newest",
    newCount: (n: number) => `${n} new`,
    jumpToNewest: (n: number) => (n > 0 ? `Jump to the newest message, ${n} new` : "Jump to the newest message"),
    /** The chat's scroll area, named for a keyboard or a screen reader that lands on it. */
    messages: "Messages",
    /** A code block's copy button (issue 37), and what it says after a tap. */
    copy: "Copy",
    copyCode: "Copy the code",
    copied: "Copied",
    /** The browser did not let the page copy: the code is selected for the phone's own Copy. */
    copyFailed: "Selected: copy it from the menu",
    /** Under a `Not sent` line Collie refused to hold (`429 held-full`): it keeps no more for this agent now. */
    heldFull: "Collie is already keeping as many messages as it holds for this durable agent. Your text is back in the box: send it again once the agent is back.",
    /** A quiet line for an answer Collie holds: what it decided, about which tool or ask. */
    decided: (optionKind: string | undefined, what: string): string => {
      switch (optionKind) {
        case "allow": return `Allowed: ${what}`;
        case "allow-always": return `Always allowed: ${what}`;
        case "deny": return `Denied: ${what}`;
        case "cancel": return `Cancelled: ${what}`;
        default: return `Answered: ${what}`;
      }
    },
  }),
  menu: Object.freeze({
    rename: "Rename",
    save: "Save",
    keepOpen: "Keep open",
    closeQuestion: "Close this conversation?",
    close: "Close",
    title: "Title",
  }),
  asks: Object.freeze({
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
  }),
  filter: Object.freeze({
    nothing: (hidden: number) =>
      `Nothing needs you right now. ${STRINGS.showOnlyWhatNeedsYou} hides ${hidden === 1 ? "1 durable agent" : `${hidden} durable agents`}.`,
    settings: "Change it in Settings",
  }),
} as const);
