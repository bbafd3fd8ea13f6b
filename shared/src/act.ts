/**
 * Actions on the live socket (docs/phone-api.md "Actions on the live socket"; issue 31): which
 * requests a phone may send as an `act` message instead of a POST, and the bounds both ends keep.
 * No imports, so the phone's bundle takes it as it is.
 */

/** An act's address: one of the phone API's action routes, all of which live under `/api/agents/`. */
export const ACT_PATH = "^/api/agents/[^?#\\s]+$";

export const ACT_LIMITS = Object.freeze({
  /** An act's address, as text (agent, pane and ask ids percent-encoded fit well within it). */
  pathChars: 2048,
  /**
   * An act's whole frame, in UTF-8 bytes: under the socket's 64 KiB frame limit (app.ts
   * `maxPayload`), which a bigger frame would cut the socket for. A bigger action (a long message,
   * up to the HTTP body limit of 256 KiB) goes as a POST.
   */
  frameBytes: 48 * 1024,
  /**
   * Acts one socket may have waiting for their replies. A phone sends its next one as a POST;
   * a socket that sends more is closed (1008): no phone does.
   */
  inFlight: 8,
  /**
   * How long a phone waits for an act's reply before it counts as no reply (a NetworkError: the
   * outbox keeps the action and sends it again with the same request id, D-5). Longer than any
   * wait of Collie's on the way (an agent's write: 10 s; an agent just starting: STARTING_WAIT_MS).
   */
  replyMs: 30_000,
});

const ACT_PATH_RE = new RegExp(ACT_PATH);
const ANSWER_RE = /^\/api\/agents\/[^/]+\/panes\/[^/]+\/asks\/[^/]+\/answer$/;

/** Whether a request may go as an act: a POST to an action route (every one is under `/api/agents/`). */
export function mayAct(method: string, path: string): boolean {
  return method === "POST" && path.length <= ACT_LIMITS.pathChars && ACT_PATH_RE.test(path);
}

/**
 * Whether the phone sends a request as an act: an answer to an ask, the tap a person waits on with
 * the agent paused (N-1). Collie takes any action route as an act; the phone's other actions stay
 * POSTs (a message's line already shows while it goes).
 */
export function phoneActs(method: string, path: string): boolean {
  return mayAct(method, path) && ANSWER_RE.test(path);
}
