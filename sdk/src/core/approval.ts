/**
 * `requireApproval` (S-25): a card built from the tool call itself, never from the model's words
 * about it, and the two renderers it uses (S-26).
 */
import type { DecidedBy } from "../wire/types.ts";
import { AskClosed, type Pane } from "./layout.ts";

/** One JSON value on one line; cycles, bigints and functions cannot break it. */
function jsonValue(value: unknown): string {
  const seen = new WeakSet<object>();
  try {
    const out = JSON.stringify(value, (_key, v: unknown) => {
      if (typeof v === "bigint") return v.toString();
      if (typeof v === "function" || typeof v === "symbol") return undefined;
      if (v !== null && typeof v === "object") {
        if (seen.has(v)) return "[Circular]";
        seen.add(v);
      }
      return v;
    });
    return out ?? "null";
  } catch {
    return JSON.stringify(String(value));
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * The arguments as `key: value` pairs, each value as JSON (S-26): `{order: "5521", amount: 40}` →
 * `['order: "5521"', "amount: 40"]`. Arguments that are not an object are one `value: …` pair.
 */
export function argumentsView(args: unknown): string[] {
  if (args === undefined) return [];
  if (!isRecord(args)) return [`value: ${jsonValue(args)}`];
  return Object.entries(args).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}: ${jsonValue(v)}`);
}

/** The call on one line (S-26): `refund(order: "5521", amount: 40)`. */
export function callSummary(name: string, args: unknown): string {
  if (typeof name !== "string" || name.length === 0) throw new TypeError("callSummary needs the tool's name");
  return `${name}(${argumentsView(args).join(", ")})`;
}

export interface ApprovalOptions {
  pane: Pane;
  toolCallId: string;
  /** How long the card waits; then it closes as `timeout` and the call is not approved. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** The tool item the card sits under; default the tool call id. */
  itemId?: string;
  /** Also offer `Always allow` (only where the core allows it, S-27). */
  offerAlways?: boolean;
  /**
   * Where `Always allow` is remembered; default the core's set, shared by every pane. A caller
   * that keeps it per conversation (`./pi` does) passes its own set.
   */
  alwaysAllowed?: Set<string>;
  /** The card's words, when the caller has its own (S-35: `./pi` takes them as options); default as S-25. */
  title?: string;
  reason?: string;
  push?: { title?: string; line?: string };
}

/** What `requireApproval` returns; it never throws for deny, timeout, stop or abort (S-25). */
export interface Approval {
  approved: boolean;
  decidedBy: DecidedBy;
  decidedAt: string;
  askId: string;
  /** True when an earlier `Always allow` for this tool let the call through without a card (S-27). */
  alwaysAllowed?: true;
  /** True when this answer was `Always allow`: later calls of the tool pass without a card. */
  allowAlways?: true;
}

/**
 * Asks the phone whether `toolName` may run with `args` (S-25). The card reads `<tool> wants to
 * run`, shows the call on one line and each argument as JSON, pushes `<tool> needs a yes`, and
 * offers Allow and Deny.
 */
export async function requireApproval(toolName: string, args: unknown, opts: ApprovalOptions): Promise<Approval> {
  if (typeof toolName !== "string" || toolName.length === 0) throw new TypeError("requireApproval needs the tool's name");
  const { pane, toolCallId, timeoutMs } = opts ?? ({} as ApprovalOptions);
  if (!pane || typeof pane.ask !== "function") throw new TypeError("requireApproval needs a pane");
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new RangeError(`timeoutMs ${timeoutMs} must be a positive number of milliseconds`);
  const host = pane.host;
  const alwaysAllowed = opts.alwaysAllowed ?? host.alwaysAllowed;
  const askIdOf = () => pane.askIdFor(toolCallId);
  if (alwaysAllowed.has(toolName)) {
    return { approved: true, decidedBy: "program", decidedAt: new Date(host.clock.now()).toISOString(), askId: askIdOf(), alwaysAllowed: true };
  }
  const view = argumentsView(args);
  const options: { kind: "allow" | "allow-always" | "deny" }[] = [{ kind: "allow" }];
  if (opts.offerAlways && host.allowAlways) options.push({ kind: "allow-always" });
  options.push({ kind: "deny" });
  try {
    const answer = await pane.ask({
      kind: "permission",
      toolCallId,
      itemId: opts.itemId ?? toolCallId,
      title: opts.title ?? `${toolName} wants to run`,
      tool: { name: toolName, call: callSummary(toolName, args) },
      ...(opts.reason !== undefined ? { reason: opts.reason } : view.length > 0 ? { reason: view.join("\n") } : {}),
      push: opts.push ?? { line: `${toolName} needs a yes` },
      expiresAt: new Date(host.clock.now() + timeoutMs),
      options,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    const decidedAt = new Date(host.clock.now()).toISOString();
    const kind = answer.kind === "permission" ? answer.optionKind : "deny";
    if (kind === "allow-always") {
      alwaysAllowed.add(toolName);
      return { approved: true, decidedBy: "phone", decidedAt, askId: askIdOf(), allowAlways: true };
    }
    return { approved: kind === "allow", decidedBy: "phone", decidedAt, askId: askIdOf() };
  } catch (err) {
    if (err instanceof AskClosed) {
      return { approved: false, decidedBy: err.decidedBy, decidedAt: new Date(host.clock.now()).toISOString(), askId: err.askId };
    }
    throw err;
  }
}
