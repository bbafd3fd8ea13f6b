/**
 * Keys and subscriptions (U-4): the VAPID pair is made on the first start, kept across restarts
 * and never replaced silently; subscriptions are checked, re-registered with the one they replace,
 * removed, bounded; logs name endpoints without their secret path.
 */
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { generateVapidKeys, loadOrCreateVapidKeys, validVapidKeys, VapidKeyError } from "../../src/push/vapid.ts";
import { createECDH } from "node:crypto";
import { checkSubscription, endpointLabel, MAX_SUBSCRIPTIONS, SubscriptionError, Subscriptions } from "../../src/push/subscriptions.ts";
import { PushService } from "../../src/push/push.ts";
import { openStateDb } from "../../src/store/db.ts";
import { removeTempDirs, tempDir } from "../helpers/wait.ts";
import { makeSubscriber } from "./helpers/webpush-check.ts";
import { pairedDevice } from "../helpers/paired-device.ts";

after(() => removeTempDirs());

describe("VAPID keys", () => {
  test("a new key pair, made with node:crypto alone, is a P-256 pair VAPID takes: the public point is the private scalar's", () => {
    for (let n = 0; n < 200; n++) {
      const keys = generateVapidKeys();
      assert.ok(validVapidKeys(keys));
      const ecdh = createECDH("prime256v1");
      ecdh.setPrivateKey(Buffer.from(keys.privateKey, "base64url"));
      assert.equal(ecdh.getPublicKey().toString("base64url"), keys.publicKey);
    }
  });

  test("made on the first start, the same after a restart", () => {
    const dir = tempDir();
    let state = openStateDb(dir);
    const first = loadOrCreateVapidKeys(state.db);
    assert.equal(first.created, true);
    assert.ok(validVapidKeys(first.keys));
    state.close();
    state = openStateDb(dir);
    const again = loadOrCreateVapidKeys(state.db);
    assert.equal(again.created, false);
    assert.deepEqual(again.keys, first.keys);
    // The service serves the same public key.
    const logs: string[] = [];
    const push = PushService.open({ db: state.db, log: (l) => logs.push(l) });
    assert.equal(push.publicKey, first.keys.publicKey);
    assert.deepEqual(logs, [], "no 'made a key pair' line on a later start");
    push.close();
    state.close();
  });

  test("damaged keys stop push with an error and are not replaced", () => {
    const state = openStateDb(":memory:");
    state.db.prepare("INSERT INTO push_vapid (id, public_key, private_key, created_at) VALUES (1, 'AAAA', 'BBBB', 0)").run();
    assert.throws(() => loadOrCreateVapidKeys(state.db), VapidKeyError);
    assert.throws(() => PushService.open({ db: state.db, log: () => undefined }), VapidKeyError);
    const row = state.db.prepare("SELECT public_key FROM push_vapid").get() as { public_key: string };
    assert.equal(row.public_key, "AAAA", "left as it was");
    state.close();
  });

  test("the first start logs that it made the pair", () => {
    const state = openStateDb(":memory:");
    const logs: string[] = [];
    const push = PushService.open({ db: state.db, log: (l) => logs.push(l) });
    assert.match(logs.join("\n"), /made this Collie's VAPID key pair/);
    assert.equal(Buffer.from(push.publicKey, "base64url").length, 65);
    assert.ok(!logs.join("\n").includes(push.publicKey), "no key in the log");
    push.close();
    state.close();
  });

  test("a subject must be mailto: or https:", () => {
    const state = openStateDb(":memory:");
    assert.throws(() => PushService.open({ db: state.db, log: () => undefined, subject: "collie@example.com" }), /mailto:/);
    state.close();
  });
});

describe("subscriptions", () => {
  const sub = (id: string) => makeSubscriber(`https://push.example.net/send/${id}`).json;

  test("checks: https (http only when allowed), a P-256 key, a 16-byte auth", () => {
    assert.doesNotThrow(() => checkSubscription(sub("a"), false));
    assert.throws(() => checkSubscription({ ...sub("a"), endpoint: "http://127.0.0.1:1/push/a" }, false), SubscriptionError);
    assert.doesNotThrow(() => checkSubscription({ ...sub("a"), endpoint: "http://127.0.0.1:1/push/a" }, true));
    assert.throws(() => checkSubscription({ ...sub("a"), endpoint: "not a url" }, false), SubscriptionError);
    assert.throws(() => checkSubscription({ ...sub("a"), endpoint: "https://u:p@push.example.net/x" }, false), SubscriptionError);
    assert.throws(() => checkSubscription({ ...sub("a"), endpoint: "ftp://push.example.net/x" }, true), SubscriptionError);
    const s = sub("a");
    assert.throws(() => checkSubscription({ ...s, keys: { ...s.keys, p256dh: Buffer.alloc(65, 1).toString("base64url") } }, false), /P-256/);
    assert.throws(() => checkSubscription({ ...s, keys: { ...s.keys, auth: Buffer.alloc(12).toString("base64url") } }, false), /16-byte/);
  });

  test("a device re-registers and names the one it replaces; remove; all", () => {
    const state = openStateDb(":memory:");
    const subs = new Subscriptions(state.db);
    const a = checkSubscription(sub("a"), false);
    const b = checkSubscription(sub("b"), false);
    const device = pairedDevice(state).id;
    assert.deepEqual(subs.upsert(a, { device }), { created: true, replaced: false, evicted: 0 });
    assert.deepEqual(subs.upsert(a, { device }), { created: false, replaced: false, evicted: 0 }, "the same again: known");
    assert.deepEqual(subs.upsert(b, { device, replaces: a.endpoint }), { created: true, replaced: true, evicted: 0 });
    assert.deepEqual(subs.all().map((s) => s.endpoint), [b.endpoint]);
    assert.equal(subs.remove(b.endpoint), true);
    assert.equal(subs.remove(b.endpoint), false);
    assert.equal(subs.size, 0);
    state.close();
  });

  test("at most 64: the one unused the longest goes", () => {
    const state = openStateDb(":memory:");
    let t = 0;
    const subs = new Subscriptions(state.db, () => ++t);
    const all = Array.from({ length: MAX_SUBSCRIPTIONS + 1 }, (_, i) => checkSubscription(sub(`s${i}`), false));
    const device = pairedDevice(state).id;
    for (const s of all.slice(0, MAX_SUBSCRIPTIONS)) subs.upsert(s, { device });
    subs.delivered(all[0]!.endpoint); // s0 was used recently: s1 is the oldest now
    assert.equal(subs.upsert(all[MAX_SUBSCRIPTIONS]!, { device }).evicted, 1);
    const left = new Set(subs.all().map((s) => s.endpoint));
    assert.equal(left.size, MAX_SUBSCRIPTIONS);
    assert.ok(left.has(all[0]!.endpoint) && !left.has(all[1]!.endpoint));
    state.close();
  });

  test("a subscription belongs to the device that made it: revoking the device removes it, and only a paired device's is pushed to", () => {
    const state = openStateDb(":memory:");
    const subs = new Subscriptions(state.db);
    const phone = pairedDevice(state, "phone");
    const tablet = pairedDevice(state, "tablet");
    const a = checkSubscription(sub("a"), false);
    const b = checkSubscription(sub("b"), false);
    subs.upsert(a, { device: phone.id });
    subs.upsert(b, { device: tablet.id });
    assert.equal(subs.size, 2);
    assert.equal(phone.devices.revoke(phone.id), true);
    assert.deepEqual(subs.all().map((s) => s.endpoint), [b.endpoint], "the revoked phone's subscription is gone");
    // A row without a paired device (written by hand, or left from before) is never pushed to.
    state.db.prepare("INSERT INTO push_subscriptions (endpoint, p256dh, auth, created_at, updated_at) VALUES (?, ?, ?, 0, 0)").run("https://push.example.net/orphan", a.keys.p256dh, a.keys.auth);
    assert.deepEqual(subs.all().map((s) => s.endpoint), [b.endpoint]);
    assert.equal(subs.size, 1);
    state.close();
  });

  test("logs name an endpoint by origin and hash, never its path", () => {
    const e = "https://fcm.googleapis.com/fcm/send/dSecretTokenPart:APA91bHsecret";
    const label = endpointLabel(e);
    assert.match(label, /^https:\/\/fcm\.googleapis\.com #[0-9a-f]{8}$/);
    assert.ok(!label.includes("Secret"));
  });
});
