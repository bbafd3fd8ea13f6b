/**
 * `@colliepwa/durable-sdk/pi` (S-2, S-35): a Pi conversation on the phone. Its conversation is a
 * pane, its risky tool calls are cards, its saved sessions are history.
 *
 *   const { session } = await createAgentSession({ sessionManager: SessionManager.continueRecent(cwd) });
 *   const collie = await openCollie({ hostName: PI_HOST_NAME });
 *   const tab = collie.workspace("pi", { title: "Pi" }).tab("sessions", { title: "Sessions" });
 *   piPane(tab, session, { id: session.sessionId, risky: (call) => call.toolName === "bash" });
 *   collie.history(piHistory({ cwd }));
 *   collie.ready();
 *
 * Needs the optional peers `@mariozechner/pi-agent-core`, `@mariozechner/pi-ai` and (for sessions
 * and history) `@mariozechner/pi-coding-agent`; the other entry points need none of them (S-3).
 * The `pi` CLI's own extension is `./extension.ts` here (docs/pi.md).
 */
export { PI_HARNESS, PI_HOST_NAME } from "./constants.ts";
export { piPane, type PiCardWords, type PiPaneOptions, type PiToolCall } from "./pane.ts";
export { piHistory, type PiHistoryOptions } from "./history.ts";
