/** Ids the SDK derives (S-23). */
import * as crypto from "node:crypto";
import { createHash, randomBytes } from "node:crypto";

type OneShotHash = (algorithm: string, data: string, outputEncoding: "hex" | "buffer") => string | Buffer;
/** Node's one-call hash (22+): no Hash object per call. A runtime without it builds one. */
const oneShot = (crypto as unknown as { hash?: OneShotHash }).hash;

/** SHA-256 of the UTF-8 bytes of `text` (a lone surrogate counts as U+FFFD, as `update` reads it). */
export function sha256(text: string, encoding: "hex"): string;
export function sha256(text: string, encoding: "buffer"): Buffer;
export function sha256(text: string, encoding: "hex" | "buffer"): string | Buffer {
  if (oneShot) return oneShot("sha256", text, encoding);
  const h = createHash("sha256").update(text, "utf8");
  return encoding === "hex" ? h.digest("hex") : h.digest();
}

/**
 * The id of an ask: the first 32 hex characters of SHA-256 over the UTF-8 bytes of `paneId`, one
 * NUL byte, `toolCallId` (S-23). The same tool call raised again after a restart gets the same id,
 * so an answer the phone sent across the restart still lands.
 */
export function askIdFor(paneId: string, toolCallId: string): string {
  if (typeof paneId !== "string" || typeof toolCallId !== "string") {
    throw new TypeError("askIdFor(paneId, toolCallId) takes two strings");
  }
  return sha256(`${paneId}\0${toolCallId}`, "hex").slice(0, 32);
}

/** A stable 16-hex hash of JSON-able content (the ask revision, W-4). Key order does not matter. */
export function contentHash(value: unknown): string {
  return sha256(canonicalJson(value), "hex").slice(0, 16);
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
