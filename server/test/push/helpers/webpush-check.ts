/**
 * An independent check of what Collie pushes, written from the RFCs on `node:crypto` (it shares no
 * code with `web-push`, which encrypts and signs): a browser-side subscription (P-256 key pair and
 * auth secret), an RFC 8291 / RFC 8188 aes128gcm decryptor, and an RFC 8292 VAPID JWT verifier.
 * The e2e journey uses it too.
 */
import { createDecipheriv, createECDH, createHmac, createPublicKey, randomBytes, verify, type ECDH } from "node:crypto";

/** What a browser keeps for one push subscription: the key pair and the auth secret. */
export interface TestSubscriber {
  endpoint: string;
  ecdh: ECDH;
  /** As `PushSubscription.toJSON()` gives it. */
  json: { endpoint: string; expirationTime: null; keys: { p256dh: string; auth: string } };
}

export function makeSubscriber(endpoint: string): TestSubscriber {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  const auth = randomBytes(16);
  return {
    endpoint,
    ecdh,
    json: { endpoint, expirationTime: null, keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth: auth.toString("base64url") } },
  };
}

const hmac = (key: Buffer, data: Buffer): Buffer => createHmac("sha256", key).update(data).digest();
/** HKDF (RFC 5869) for outputs of at most one hash block. */
const hkdf = (salt: Buffer, ikm: Buffer, info: Buffer, length: number): Buffer => hmac(hmac(salt, ikm), Buffer.concat([info, Buffer.from([1])])).subarray(0, length);

/** Decrypts an `aes128gcm` Web Push body (RFC 8291 §3, RFC 8188 §2) for `sub`; throws on any flaw. */
export function decryptPush(body: Buffer, sub: TestSubscriber): string {
  if (body.length < 21) throw new Error("body shorter than the aes128gcm header");
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idlen = body[20]!;
  const asPublic = body.subarray(21, 21 + idlen);
  if (idlen !== 65 || asPublic[0] !== 0x04) throw new Error(`keyid is not the sender's P-256 key (idlen ${idlen})`);
  if (rs < 18) throw new Error(`record size ${rs} too small`);
  const uaPublic = sub.ecdh.getPublicKey();
  const auth = Buffer.from(sub.json.keys.auth, "base64url");
  const ecdhSecret = sub.ecdh.computeSecret(asPublic);
  // RFC 8291 §3.4: IKM from the ECDH secret and the auth secret, bound to both public keys.
  const keyInfo = Buffer.concat([Buffer.from("WebPush: info\0", "latin1"), uaPublic, asPublic]);
  const ikm = hkdf(auth, ecdhSecret, keyInfo, 32);
  // RFC 8188 §2.2, §2.3: content encryption key and nonce from the salt.
  const cek = hkdf(salt, ikm, Buffer.from("Content-Encoding: aes128gcm\0", "latin1"), 16);
  const nonceBase = hkdf(salt, ikm, Buffer.from("Content-Encoding: nonce\0", "latin1"), 12);
  const records = body.subarray(21 + idlen);
  const out: Buffer[] = [];
  for (let seq = 0, at = 0; at < records.length; seq++, at += rs) {
    const record = records.subarray(at, Math.min(at + rs, records.length));
    const nonce = Buffer.from(nonceBase);
    nonce.writeUInt32BE((nonce.readUInt32BE(8) ^ seq) >>> 0, 8); // seq < 2^32 here
    const decipher = createDecipheriv("aes-128-gcm", cek, nonce);
    decipher.setAuthTag(record.subarray(record.length - 16));
    const plain = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
    // Padding: the delimiter (2 = last record, 1 = another follows), then zeros.
    let end = plain.length - 1;
    while (end >= 0 && plain[end] === 0) end--;
    const last = at + rs >= records.length;
    if (end < 0 || plain[end] !== (last ? 2 : 1)) throw new Error(`record ${seq}: bad padding delimiter`);
    out.push(plain.subarray(0, end));
  }
  return Buffer.concat(out).toString("utf8");
}

export interface VapidClaims {
  aud: string;
  exp: number;
  sub: string;
}

/**
 * Verifies `Authorization: vapid t=<jwt>, k=<key>` (RFC 8292): ES256 over the JWT with the given
 * public key, `k` equal to it, `aud` the endpoint's origin, `exp` in the future and at most 24 h
 * ahead, `sub` a mailto: or https: URL. Returns the claims; throws on any flaw.
 */
export function verifyVapid(authorization: string | undefined, endpoint: string, publicKey: string, now = Date.now()): VapidClaims {
  const m = /^vapid t=([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+), k=([A-Za-z0-9_-]+)$/.exec(authorization ?? "");
  if (!m) throw new Error(`not a vapid Authorization header: ${authorization}`);
  const [, jwt, k] = m as unknown as [string, string, string];
  if (k !== publicKey) throw new Error("k is not Collie's public key");
  const [h, p, s] = jwt.split(".") as [string, string, string];
  const header = JSON.parse(Buffer.from(h, "base64url").toString()) as { alg?: string; typ?: string };
  if (header.alg !== "ES256") throw new Error(`alg ${header.alg}`);
  const raw = Buffer.from(publicKey, "base64url");
  const key = createPublicKey({ key: { kty: "EC", crv: "P-256", x: raw.subarray(1, 33).toString("base64url"), y: raw.subarray(33, 65).toString("base64url") }, format: "jwk" });
  const ok = verify("sha256", Buffer.from(`${h}.${p}`), { key, dsaEncoding: "ieee-p1363" }, Buffer.from(s, "base64url"));
  if (!ok) throw new Error("the JWT signature does not verify");
  const claims = JSON.parse(Buffer.from(p, "base64url").toString()) as VapidClaims;
  if (claims.aud !== new URL(endpoint).origin) throw new Error(`aud ${claims.aud} is not ${new URL(endpoint).origin}`);
  const nowS = Math.floor(now / 1000);
  if (!(claims.exp > nowS && claims.exp <= nowS + 24 * 3600 + 60)) throw new Error(`exp ${claims.exp} out of range`);
  if (!/^(mailto:|https:\/\/)/.test(claims.sub)) throw new Error(`sub ${claims.sub}`);
  return claims;
}
