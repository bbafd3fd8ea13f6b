/** Ids the SDK derives (S-23). */
import { createHash, randomBytes } from "node:crypto";

/**
 * The id of an ask: the first 32 hex characters of SHA-256 over the UTF-8 bytes of `paneId`, one
 * NUL byte, `toolCallId` (S-23). The same tool call raised again after a restart gets the same id,
 * so an answer the phone sent across the restart still lands.
 */
export function askIdFor(paneId: string, toolCallId: string): string {
  if (typeof paneId !== "string" || typeof toolCallId !== "string") {
    throw new TypeError("askIdFor(paneId, toolCallId) takes two strings");
  }
  return createHash("sha256").update(paneId, "utf8").update(Buffer.from([0])).update(toolCallId, "utf8").digest("hex").slice(0, 32);
}

/** A stable 16-hex hash of JSON-able content (the ask revision, W-4). Key order does not matter. */
export function contentHash(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex").slice(0, 16);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** A random id that follows the ID rule. */
export function randomId(prefix = ""): string {
  return `${prefix}${randomBytes(9).toString("base64url")}`;
}
