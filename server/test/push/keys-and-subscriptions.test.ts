/**
 * Keys and subscriptions (U-4): the VAPID pair is made on the first start, kept across restarts
 * and never replaced silently; subscriptions are checked, re-registered with the one they replace,
 * removed, bounded; logs name endpoints without their secret path.
 */
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { generateVapidKeys, loadOrCreateVapidKeys, validVapidKeys, VapidKeyError } from "../../src/push/vapid.ts";
import { createECDH } from "node:crypto";
import { checkSubscription, endpointLabel, MAX_SUBSCRIPTIONS, MAX_SUBSCRIPTIONS_PER_DEVICE, SubscriptionError, Subscriptions } from "../../src/push/subscriptions.ts";
import { PushService } from "../../src/push/push.ts";
import { openStateDb } from "../../src/store/db.ts";
import { removeTempDirs, tempDir } from "../helpers/wait.ts";
import { makeSubscriber } from "./helpers/webpush-check.ts";
import { pairedDevice } from "../helpers/paired-device.ts";
import { publicOnly } from "../../src/push/endpoints.ts";
import { NO_NAMES } from "../helpers/resolver.ts";

/** The daemon's rules, and a test push service's exception (http, any host: `allowLocalEndpoints`). */
const PUBLIC = publicOnly(NO_NAMES);
const LOCAL = { ...PUBLIC, allowLocal: true };

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
    assert.doesNotThrow(() => checkSubscription(sub("a"), PUBLIC));
    assert.throws(() => checkSubscription({ ...sub("a"), endpoint: "http://127.0.0.1:1/push/a" }, PUBLIC), SubscriptionError);
    assert.doesNotThrow(() => checkSubscription({ ...sub("a"), endpoint: "http://127.0.0.1:1/push/a" }, LOCAL));
    assert.throws(() => checkSubscription({ ...sub("a"), endpoint: "not a url" }, PUBLIC), SubscriptionError);
    assert.throws(() => checkSubscription({ ...sub("a"), endpoint: "https://u:p@push.example.net/x" }, PUBLIC), SubscriptionError);
    assert.throws(() => checkSubscription({ ...sub("a"), endpoint: "ftp://push.example.net/x" }, LOCAL), SubscriptionError);
    const s = sub("a");
    assert.throws(() => checkSubscription({ ...s, keys: { ...s.keys, p256dh: Buffer.alloc(65, 1).toString("base64url") } }, PUBLIC), /P-256/);
    assert.throws(() => checkSubscription({ ...s, keys: { ...s.keys, auth: Buffer.alloc(12).toString("base64url") } }, PUBLIC), /16-byte/);
  });

  test("a device re-registers and names the one it replaces; remove; all", () => {
    const state = openStateDb(":memory:");
    const subs = new Subscriptions(state.db);
    const a = checkSubscription(sub("a"), PUBLIC);
    const b = checkSubscription(sub("b"), PUBLIC);
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

  test("at most 4 per device: a device's 5th lets go of its own unused the longest, never another device's", () => {
    const state = openStateDb(":memory:");
    let t = 0;
    const subs = new Subscriptions(state.db, () => ++t);
    const owner = pairedDevice(state, "owner's phone").id;
    const other = pairedDevice(state, "another device").id;
    const ownerSub = checkSubscription(sub("owner"), PUBLIC);
    subs.upsert(ownerSub, { device: owner });
    // The other device registers far more than its share (the security issue, item 5: 64 used to
    // push the owner's phone out of the global list).
    const flood = Array.from({ length: 70 }, (_, i) => checkSubscription(sub(`flood-${i}`), PUBLIC));
    let evicted = 0;
    for (const s of flood.slice(0, MAX_SUBSCRIPTIONS_PER_DEVICE)) evicted += subs.upsert(s, { device: other }).evicted;
    assert.equal(evicted, 0);
    subs.delivered(flood[0]!.endpoint); // flood-0 was used recently: flood-1 is that device's oldest now
    assert.equal(subs.upsert(flood[MAX_SUBSCRIPTIONS_PER_DEVICE]!, { device: other }).evicted, 1);
    const endpoints = () => new Set(subs.all().map((s) => s.endpoint));
    assert.ok(endpoints().has(flood[0]!.endpoint) && !endpoints().has(flood[1]!.endpoint));
    for (const s of flood.slice(MAX_SUBSCRIPTIONS_PER_DEVICE + 1)) subs.upsert(s, { device: other });
    const left = endpoints();
    assert.ok(left.has(ownerSub.endpoint), "the owner's phone keeps its subscription");
    assert.equal(left.size, 1 + MAX_SUBSCRIPTIONS_PER_DEVICE);
    state.close();
  });

  test(`past ${MAX_SUBSCRIPTIONS} in all a new subscription is refused, and nothing is evicted`, () => {
    const state = openStateDb(":memory:");
    const subs = new Subscriptions(state.db);
    const devices = Array.from({ length: MAX_SUBSCRIPTIONS / MAX_SUBSCRIPTIONS_PER_DEVICE + 1 }, (_, i) => pairedDevice(state, `d${i}`).id);
    for (const [d, device] of devices.slice(0, -1).entries()) {
      for (let i = 0; i < MAX_SUBSCRIPTIONS_PER_DEVICE; i++) subs.upsert(checkSubscription(sub(`d${d}-${i}`), PUBLIC), { device });
    }
    const before = subs.all().map((s) => s.endpoint).sort();
    assert.equal(before.length, MAX_SUBSCRIPTIONS);
    assert.throws(() => subs.upsert(checkSubscription(sub("one-too-many"), PUBLIC), { device: devices.at(-1)! }), /at most 64 push subscriptions/);
    assert.deepEqual(subs.all().map((s) => s.endpoint).sort(), before);
    // A device that has one already refreshes it.
    assert.equal(subs.upsert(checkSubscription(sub("d0-0"), PUBLIC), { device: devices[0]! }).created, false);
    state.close();
  });

  test("only the owning device replaces or deletes its subscription; the same browser paired again takes its own back", () => {
    const state = openStateDb(":memory:");
    const subs = new Subscriptions(state.db);
    const owner = pairedDevice(state, "owner").id;
    const other = pairedDevice(state, "other").id;
    const mine = checkSubscription(sub("mine"), PUBLIC);
    subs.upsert(mine, { device: owner });
    // Another device naming the owner's endpoint with its own keys: refused, the row unchanged.
    const theirs = checkSubscription(makeSubscriber(mine.endpoint).json, PUBLIC);
    assert.throws(() => subs.upsert(theirs, { device: other }), /another paired device's subscription/);
    // … or as the one it replaces, or to remove it: nothing happens to it.
    assert.deepEqual(subs.upsert(checkSubscription(sub("theirs"), PUBLIC), { device: other, replaces: mine.endpoint }), { created: true, replaced: false, evicted: 0 });
    assert.equal(subs.remove(mine.endpoint, { device: other }), false);
    const row = () => ({ ...(state.db.prepare("SELECT device_id, p256dh FROM push_subscriptions WHERE endpoint = ?").get(mine.endpoint) as { device_id: string; p256dh: string }) });
    assert.deepEqual(row(), { device_id: owner, p256dh: mine.keys.p256dh });
    // The same browser, paired again (its cookie lost: a new device), names the same endpoint
    // with the same keys, which only that browser holds: it is that browser's subscription.
    const again = pairedDevice(state, "owner, paired again").id;
    assert.equal(subs.upsert(mine, { device: again }).created, false);
    assert.equal(row().device_id, again);
    assert.equal(subs.remove(mine.endpoint, { device: owner }), false, "the old device no longer owns it");
    assert.equal(subs.remove(mine.endpoint, { device: again }), true);
    state.close();
  });

  test("a subscription belongs to the device that made it: revoking the device removes it, and only a paired device's is pushed to", () => {
    const state = openStateDb(":memory:");
    const subs = new Subscriptions(state.db);
    const phone = pairedDevice(state, "phone");
    const tablet = pairedDevice(state, "tablet");
    const a = checkSubscription(sub("a"), PUBLIC);
    const b = checkSubscription(sub("b"), PUBLIC);
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
