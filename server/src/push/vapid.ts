/**
 * The VAPID key pair (U-4, RFC 8292): made on the first start and kept in the state database.
 * Every phone's subscription is bound to the public key, so Collie never makes new keys on its
 * own: damaged keys stop push with a clear message instead of silently breaking every phone's
 * subscription (docs/push.md says how to start over on purpose).
 */
import { createECDH } from "node:crypto";
import type { DatabaseSync } from "node:sqlite";

export interface VapidKeys {
  /** base64url, the uncompressed P-256 point (65 bytes): what `pushManager.subscribe` takes. */
  publicKey: string;
  /** base64url, the 32-byte private scalar. */
  privateKey: string;
}

export class VapidKeyError extends Error {
  override name = "VapidKeyError";
}

/** True when the pair has the shape VAPID needs (a 65-byte 0x04 point and a 32-byte scalar). */
export function validVapidKeys(k: VapidKeys): boolean {
  const pub = Buffer.from(k.publicKey, "base64url");
  const priv = Buffer.from(k.privateKey, "base64url");
  return pub.length === 65 && pub[0] === 0x04 && priv.length === 32 && /^[A-Za-z0-9_-]+$/.test(k.publicKey) && /^[A-Za-z0-9_-]+$/.test(k.privateKey);
}

/**
 * A new P-256 key pair for VAPID, as web-push makes it (the uncompressed public point and the
 * 32-byte private scalar, base64url), with node:crypto alone: web-push itself loads on the first
 * push, not at every start.
 */
export function generateVapidKeys(): VapidKeys {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  return {
    publicKey: ecdh.getPublicKey().toString("base64url"),
    // A scalar with leading zero bytes comes back shorter: VAPID wants exactly 32 bytes.
    privateKey: Buffer.from(ecdh.getPrivateKey().toString("hex").padStart(64, "0"), "hex").toString("base64url"),
  };
}

/**
 * The kept key pair, or a new one on the very first start (`created: true`). Throws
 * VapidKeyError when the kept pair is damaged: never replaced behind the user's back.
 */
export function loadOrCreateVapidKeys(db: DatabaseSync, now: number = Date.now(), generate: () => VapidKeys = generateVapidKeys): { keys: VapidKeys; created: boolean } {
  const row = db.prepare("SELECT public_key, private_key FROM push_vapid WHERE id = 1").get() as { public_key: string; private_key: string } | undefined;
  if (row) {
    const keys = { publicKey: row.public_key, privateKey: row.private_key };
    if (!validVapidKeys(keys)) throw new VapidKeyError("the VAPID keys in the state database are damaged; push stays off until they are reset on purpose (docs/push.md)");
    return { keys, created: false };
  }
  const keys = generate();
  if (!validVapidKeys(keys)) throw new VapidKeyError("could not make a VAPID key pair");
  // INSERT, not REPLACE: two daemons starting at once keep whichever pair was written first.
  db.prepare("INSERT OR IGNORE INTO push_vapid (id, public_key, private_key, created_at) VALUES (1, ?, ?, ?)").run(keys.publicKey, keys.privateKey, now);
  const kept = db.prepare("SELECT public_key, private_key FROM push_vapid WHERE id = 1").get() as { public_key: string; private_key: string };
  return { keys: { publicKey: kept.public_key, privateKey: kept.private_key }, created: kept.public_key === keys.publicKey };
}
