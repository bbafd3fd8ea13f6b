/**
 * Push endpoints are not a blind SSRF (the security issue, item 4): Collie takes only https
 * endpoints on port 443 whose host is a public name resolving to public addresses, checks the
 * address again on the connection itself (DNS rebinding), and answers a refusal with a 400 that
 * names the rule. A crew lead's credential registers nothing (issue 35, item 5). Every name
 * resolves from a table: no test here needs the internet.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, afterEach, beforeEach, describe, test } from "node:test";
import { checkEndpointAddresses, checkEndpointUrl, guardedLookup, EndpointRefused, publicOnly, SubscriptionError, type Lookup } from "../../src/push/endpoints.ts";
import { PushService } from "../../src/push/push.ts";
import { postPush } from "../../src/push/sender.ts";
import { openStateDb, type StateDb } from "../../src/store/db.ts";
import { closeAllDaemons, TestDaemon } from "../helpers/daemon.ts";
import { pairedDevice } from "../helpers/paired-device.ts";
import { tableResolver, type TableResolver } from "../helpers/resolver.ts";
import { removeTempDirs } from "../helpers/wait.ts";
import { FakePushService } from "./helpers/push-service.ts";
import { makeSubscriber } from "./helpers/webpush-check.ts";

after(async () => {
  await closeAllDaemons();
  removeTempDirs();
});

/** The endpoints the attack registered (all accepted with 201 before), with the rule that refuses each. */
const ATTACK: [endpoint: string, rule: RegExp][] = [
  ["https://127.0.0.1:31999/x", /https URL on port 443, not port 31999/],
  ["https://localhost/push/1", /public name, not localhost or a local network name \(localhost\)/],
  ["https://[::1]/push/1", /name its host, not an IP address \(::1\)/],
  ["https://169.254.169.254/latest/meta-data/", /not an IP address \(169\.254\.169\.254\)/],
  ["https://10.1.2.3/push", /not an IP address \(10\.1\.2\.3\)/],
  ["https://127.0.0.1:22/", /on port 443, not port 22/],
  // Spellings the URL parser turns into an IP address.
  ["https://2130706433/x", /not an IP address \(127\.0\.0\.1\)/],
  ["https://0x7f.1/x", /not an IP address \(127\.0\.0\.1\)/],
  ["https://[::ffff:127.0.0.1]/x", /not an IP address/],
  ["https://push.example.net:8443/x", /on port 443, not port 8443/],
  ["http://push.example.net/x", /must be an https URL/],
  ["https://metadata.google.internal/computeMetadata/v1/", /public name/],
  ["https://router/x", /public name/],
  ["https://printer.local/x", /public name/],
  ["https://nas.home.arpa/x", /public name/],
  ["https://foo.localhost/x", /public name/],
];

/** Names and where they resolve: public ones, and names that point inside. */
const NAMES = {
  "fcm.googleapis.com": ["142.250.74.42", "2a00:1450:4001:82b::200a"],
  "push.example.net": ["93.184.215.14"],
  "evil-loopback.example.net": ["127.0.0.1"],
  "evil-private.example.net": ["10.0.0.5"],
  "evil-metadata.example.net": ["169.254.169.254"],
  "evil-mixed.example.net": ["93.184.215.14", "192.168.1.20"],
  "evil-ula.example.net": ["fd12:3456::1"],
  "evil-linklocal6.example.net": ["fe80::1"],
  "evil-mapped.example.net": ["::ffff:127.0.0.1"],
  "evil-tailnet.example.net": ["100.101.102.103"],
};

describe("the URL rules", () => {
  const policy = publicOnly(tableResolver(NAMES).resolve);

  test("every endpoint of the attack is refused with the rule's words", () => {
    for (const [endpoint, rule] of ATTACK) {
      assert.throws(() => checkEndpointUrl(endpoint, policy), (err: unknown) => err instanceof SubscriptionError && rule.test(err.message), endpoint);
    }
  });

  test("a push service's https name on port 443 passes, with or without the explicit :443", () => {
    for (const endpoint of ["https://fcm.googleapis.com/fcm/send/abc", "https://updates.push.services.mozilla.com:443/wpush/v2/x", "https://web.push.apple.com/QG9", "https://wns2-par02p.notify.windows.com/w/?token=x"]) {
      assert.doesNotThrow(() => checkEndpointUrl(endpoint, policy), endpoint);
    }
  });

  test("an origin named in COLLIE_PUSH_ALLOW_ORIGINS is exempt from port, name and address, not from https", async () => {
    const lan = { ...policy, allowedOrigins: new Set(["https://push.lan:8443"]) };
    assert.doesNotThrow(() => checkEndpointUrl("https://push.lan:8443/push/1", lan));
    await checkEndpointAddresses(new URL("https://push.lan:8443/push/1"), lan);
    assert.equal(guardedLookup(new URL("https://push.lan:8443/push/1"), lan), null);
    assert.throws(() => checkEndpointUrl("https://push.lan:9443/push/1", lan), /port 443/);
    assert.throws(() => checkEndpointUrl("http://push.lan:8443/push/1", lan), /https/);
  });
});

describe("the address rule, at registration", () => {
  const policy = publicOnly(tableResolver(NAMES).resolve);

  test("a name that resolves inside (loopback, private, link-local, unique-local, a tailnet, one bad address among good ones) is refused, naming the address", async () => {
    const cases: [string, RegExp][] = [
      ["evil-loopback.example.net", /resolves to a loopback address \(127\.0\.0\.1\)/],
      ["evil-private.example.net", /a private network address \(10\.0\.0\.5\)/],
      ["evil-metadata.example.net", /a link-local address \(169\.254\.169\.254\)/],
      ["evil-mixed.example.net", /a private network address \(192\.168\.1\.20\)/],
      ["evil-ula.example.net", /a unique-local address \(fd12:3456::1\)/],
      ["evil-linklocal6.example.net", /a link-local address \(fe80::1\)/],
      ["evil-mapped.example.net", /a loopback address \(::ffff:127\.0\.0\.1\)/],
      ["evil-tailnet.example.net", /a private network address \(100\.101\.102\.103\)/],
      ["nowhere.example.net", /could not be resolved/],
    ];
    for (const [host, rule] of cases) {
      await assert.rejects(checkEndpointAddresses(new URL(`https://${host}/push/1`), policy), (err: unknown) => err instanceof SubscriptionError && rule.test(err.message), host);
    }
    await checkEndpointAddresses(new URL("https://fcm.googleapis.com/fcm/send/abc"), policy);
  });
});

describe("the address rule, on the connection (DNS rebinding)", () => {
  let server: Server;
  let port: number;
  let connections: number;

  beforeEach(async () => {
    connections = 0;
    server = createServer((_req, res) => res.writeHead(201).end());
    server.on("connection", () => connections++);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as AddressInfo).port;
  });
  afterEach(() => new Promise<void>((r) => server.close(() => r())));

  test("the connection goes to the address the lookup checked, and a name that now points inside connects nowhere", async () => {
    const names = tableResolver({ "push.rebind.example.net": ["127.0.0.1"] });
    const endpoint = `http://push.rebind.example.net:${port}/push/1`;
    const init = { headers: {}, body: Buffer.from("x"), timeoutMs: 5000 };
    // The guarded lookup resolves the name itself and refuses: no connection is made at all.
    const lookup = guardedLookup(new URL(endpoint), publicOnly(names.resolve));
    assert.ok(lookup);
    await assert.rejects(postPush(endpoint, { ...init, lookup }), (err: unknown) => err instanceof EndpointRefused && /loopback address \(127\.0\.0\.1\) now/.test(err.message));
    assert.equal(connections, 0);
    assert.equal(names.asked.get("push.rebind.example.net"), 1, "resolved on the connection, not before it");
    // The same lookup path without the rule reaches the listener: the lookup is what decides.
    const allowAll: Lookup = (_host, options, cb) => (options.all ? cb(null, [{ address: "127.0.0.1", family: 4 }]) : cb(null, "127.0.0.1", 4));
    assert.equal((await postPush(endpoint, { ...init, lookup: allowAll })).status, 201);
    assert.equal(connections, 1);
  });
});

describe("through the push service", () => {
  let state: StateDb;
  let names: TableResolver;
  let push: PushService;
  let logs: string[];
  let service: FakePushService;

  beforeEach(async () => {
    state = openStateDb(":memory:");
    names = tableResolver(NAMES);
    logs = [];
    service = await new FakePushService().listen();
    push = PushService.open({ db: state.db, log: (l) => logs.push(l), resolve: names.resolve, retryDelaysMs: [5, 5] });
  });
  afterEach(async () => {
    await push.idle();
    push.close();
    state.close();
    await service.close();
  });

  const ctx = (id: string) => ({ agent: "desk", machine: null, paneId: "p1", paneTitle: "Refunds", ask: { id, title: "refund wants to run" } });

  test("a name that resolved to a public address when registered and to loopback at the push is refused at the connect, not retried", async () => {
    names.answers.set("push.rebind.example.net", ["93.184.215.14"]);
    const sub = makeSubscriber("https://push.rebind.example.net/push/1");
    await push.register(sub.json, { device: pairedDevice(state).id });
    names.answers.set("push.rebind.example.net", ["127.0.0.1"]);
    const before = names.asked.get("push.rebind.example.net");
    assert.equal(push.ask(ctx("a1")), "pushed");
    await push.idle();
    assert.equal(names.asked.get("push.rebind.example.net"), before! + 1, "checked again at send time, once");
    assert.match(push.subscriptions.health(sub.endpoint)?.lastError ?? "", /refused: push\.rebind\.example\.net resolves to a loopback address \(127\.0\.0\.1\) now/);
    assert.match(logs.join("\n"), /failed after 1 attempt\(s\): refused/);
  });

  test("a subscription kept from before the rules (a loopback endpoint) is dropped at the next push, and the listener there hears nothing", async () => {
    const device = pairedDevice(state).id;
    const stale = makeSubscriber(service.endpoint("stale"));
    state.db.prepare("INSERT INTO push_subscriptions (endpoint, p256dh, auth, created_at, updated_at, device_id) VALUES (?, ?, ?, 0, 0, ?)").run(stale.endpoint, stale.json.keys.p256dh, stale.json.keys.auth, device);
    assert.equal(push.ask(ctx("a2")), "pushed");
    await push.idle();
    assert.equal(service.requests.length, 0);
    assert.equal(push.subscriptions.size, 0);
    assert.match(logs.join("\n"), /dropped the subscription http:\/\/127\.0\.0\.1:\d+ #[0-9a-f]{8}: The endpoint must be an https URL/);
  });
});

describe("the phone API", () => {
  let d: TestDaemon;
  let names: TableResolver;
  const post = (token: string, body: unknown, method = "POST") =>
    fetch(`${d.url}/api/push/subscriptions`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(body) });

  beforeEach(async () => {
    names = tableResolver(NAMES);
    d = await TestDaemon.start({ sources: { fixed: [] }, push: { resolve: names.resolve } });
  });
  afterEach(() => d.close());

  test("each endpoint of the attack is a 400 bad-request naming its rule, and nothing is kept", async () => {
    const refused = [...ATTACK.map(([e, r]) => [e, r] as const), ["https://evil-loopback.example.net/x", /loopback address \(127\.0\.0\.1\)/] as const, ["https://evil-metadata.example.net/x", /link-local address/] as const];
    for (const [endpoint, rule] of refused) {
      const res = await post(d.token, { subscription: makeSubscriber(endpoint).json });
      const body = (await res.json()) as { error: string; message: string };
      assert.equal(res.status, 400, endpoint);
      assert.equal(body.error, "bad-request");
      assert.match(body.message, rule, endpoint);
    }
    assert.equal(d.daemon.push!.subscriptions.size, 0);
    const ok = await post(d.token, { subscription: makeSubscriber("https://fcm.googleapis.com/fcm/send/abc").json });
    assert.equal(ok.status, 201);
  });

  test("a crew lead's credential registers and removes no push subscription on the member: 403 not-for-crew (issue 35, item 5)", async () => {
    const lead = d.daemon.devices.issue("lead box", "crew-lead");
    const sub = makeSubscriber("https://fcm.googleapis.com/fcm/send/lead");
    const res = await post(lead.token, { subscription: sub.json });
    assert.equal(res.status, 403);
    assert.equal(((await res.json()) as { error: string }).error, "not-for-crew");
    assert.equal(d.daemon.push!.subscriptions.size, 0);
    // The owner's phone subscribes; the lead cannot remove it either.
    assert.equal((await post(d.token, { subscription: sub.json })).status, 201);
    const del = await post(lead.token, { endpoint: sub.endpoint }, "DELETE");
    assert.equal(del.status, 403);
    assert.equal(d.daemon.push!.subscriptions.size, 1);
  });

  test("another paired phone cannot take over or remove the owner's subscription", async () => {
    const other = d.daemon.devices.issue("other phone", "phone");
    const mine = makeSubscriber("https://fcm.googleapis.com/fcm/send/owner");
    assert.equal((await post(d.token, { subscription: mine.json })).status, 201);
    const stolen = makeSubscriber(mine.endpoint);
    const res = await post(other.token, { subscription: stolen.json });
    assert.equal(res.status, 400);
    assert.match(((await res.json()) as { message: string }).message, /another paired device's subscription/);
    const del = await post(other.token, { endpoint: mine.endpoint }, "DELETE");
    assert.deepEqual(await del.json(), { removed: false });
    assert.equal(d.daemon.push!.subscriptions.size, 1);
  });
});
