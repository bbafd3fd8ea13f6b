/**
 * The edges attacked again, against the real `collie serve` (the security issue items 4 and 5;
 * issue 35 item 5; issue 38 items 3, 4, 8 and 11): raw HTTP and WebSocket from no credentials, a
 * paired device and a crew credential, with a durable agent (the SDK, in this process) that the
 * attack drives. Prints one JSON line per surface; docs/security.md has the figures.
 *
 *   node --conditions=collie-source --disable-warning=ExperimentalWarning bench/edge-attack.ts
 *   EDGE_ROOT=<a checkout>   the Collie to attack (default: this one)
 *
 * Offline: the one push service is a local https service the daemon is told to allow
 * (COLLIE_PUSH_ALLOW_ORIGINS); every other endpoint is judged by the real rules and resolver.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createTcp } from "node:net";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openCollie } from "@colliepwa/durable-sdk";
import { makeCert } from "../server/test/helpers/cert.ts";
import { FakePushService } from "../server/test/push/helpers/push-service.ts";
import { decryptPush, makeSubscriber } from "../server/test/push/helpers/webpush-check.ts";
import { NODE_FLAGS, ROOT, sleep } from "./lib.ts";

const root = process.env.EDGE_ROOT ?? ROOT;
const dir = mkdtempSync(join(tmpdir(), "collie-edge-"));
const state = join(dir, "state");
const FRONT = "collie.example.ts.net";

function http(port: number, method: string, path: string, opts: { body?: string; headers?: Record<string, string>; socketPath?: string } = {}): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ ...(opts.socketPath ? { socketPath: opts.socketPath } : { host: "127.0.0.1", port }), method, path, agent: false, headers: { host: `127.0.0.1:${port}`, ...(opts.body !== undefined ? { "content-type": "application/json", "content-length": String(Buffer.byteLength(opts.body)) } : {}), ...opts.headers } }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (c: string) => (text += c)).on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on("error", reject);
    req.end(opts.body);
  });
}
const admin = (path: string) => http(0, "POST", path, { socketPath: join(state, "admin.sock") }).then((r) => JSON.parse(r.text) as Record<string, string>);
const counts = (xs: (string | number)[]) => xs.reduce<Record<string, number>>((m, x) => ({ ...m, [x]: (m[x] ?? 0) + 1 }), {});

// A listener where the SSRF endpoints point (127.0.0.1:31999 in the issue): it counts connections.
let knocks = 0;
const listener = createTcp((s) => {
  knocks++;
  s.destroy();
});
await new Promise<void>((r) => listener.listen(0, "127.0.0.1", r));
const knockPort = (listener.address() as { port: number }).port;

const service = await new FakePushService(makeCert(dir)).listen();
const socket = join(dir, "desk.sock");
const agent = await openCollie({ socket, hostName: "desk", descendantCheck: false });
const tab = agent.workspace("w", { title: "Support" }).tab("t", { title: "Tickets" });
tab.pane("first", { title: "First ticket", harness: "edge" });
agent.ready();
writeFileSync(join(dir, "sources.json"), JSON.stringify({ durable: [{ name: "desk", socket }] }));

const child = spawn(process.execPath, [...NODE_FLAGS, join(root, "server/src/main.ts"), "serve", "--port", "0", "--state-dir", state, "--sources", join(dir, "sources.json"), "--allow-host", FRONT], {
  cwd: root, stdio: ["ignore", "pipe", "pipe"],
  env: { ...process.env, NODE_EXTRA_CA_CERTS: join(dir, "cert.pem"), COLLIE_PUSH_ALLOW_ORIGINS: service.origin },
});
let out = "";
child.stdout!.setEncoding("utf8").on("data", (c: string) => (out += c));
child.stderr!.setEncoding("utf8").on("data", (c: string) => (out += c));
try {
  for (let i = 0; i < 1800 && !/listening on http:\/\/127\.0\.0\.1:(\d+)/.test(out); i++) await sleep(100);
  const port = Number(/listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)![1]);
  const pair = async (name: string) => {
    const { code } = await admin("/pair-codes");
    const r = await http(port, "POST", "/api/pair", { body: JSON.stringify({ code, name }) });
    return /collie_device=([^;]+)/.exec(String(r.headers["set-cookie"]))![1]!;
  };
  const owner = await pair("owner's phone");
  const other = await pair("another device");
  const as = (token: string) => ({ authorization: `Bearer ${token}` });
  const report = (surface: string, figures: Record<string, unknown>) => console.log(JSON.stringify({ surface, ...figures }));

  // 1. Push endpoints (the security issue, item 4).
  const ssrf = [`https://127.0.0.1:${knockPort}/x`, "https://localhost/x", "https://[::1]/x", "https://169.254.169.254/latest/meta-data/", "https://10.0.0.5/x", "https://127.0.0.1:22/", `https://127.0.0.1:${knockPort}/`, "https://2130706433/x", "https://metadata.google.internal/x", "https://nas.home.arpa/x"];
  const ssrfStatus: number[] = [];
  for (const e of ssrf) ssrfStatus.push((await http(port, "POST", "/api/push/subscriptions", { body: JSON.stringify({ subscription: makeSubscriber(e).json }), headers: as(other) })).status);
  // The owner's real subscription, then an ask: does anything knock on the listener?
  const phone = makeSubscriber(service.endpoint("owner"));
  const ownerSub = (await http(port, "POST", "/api/push/subscriptions", { body: JSON.stringify({ subscription: phone.json }), headers: as(owner) })).status;
  // The pane first, the ask a moment later (an ask in its pane's first tick is surface 4).
  const ssrfPane = tab.pane("p-ssrf", { title: "Refund 5521", harness: "edge" });
  await sleep(500);
  ssrfPane.ask({ kind: "text", toolCallId: "c-ssrf", itemId: "i", title: "Which order?" }).catch(() => undefined);
  await service.waitFor((r) => r.length >= 1, "the owner's push", 20_000).catch(() => undefined);
  await sleep(2000);
  report("push endpoints", { endpoints: ssrf.length, statuses: counts(ssrfStatus), listenerConnections: knocks, ownerPushes: service.for("owner").length, ownerSubscribe: ownerSub });

  // 2. One device pushing another's subscription out (item 5).
  const flood: number[] = [];
  for (let i = 0; i < 64; i++) flood.push((await http(port, "POST", "/api/push/subscriptions", { body: JSON.stringify({ subscription: makeSubscriber(service.endpoint(`flood-${i}`)).json }), headers: as(other) })).status);
  const steal = (await http(port, "POST", "/api/push/subscriptions", { body: JSON.stringify({ subscription: makeSubscriber(phone.endpoint).json }), headers: as(other) })).status;
  const remove = JSON.parse((await http(port, "DELETE", "/api/push/subscriptions", { body: JSON.stringify({ endpoint: phone.endpoint }), headers: as(other) })).text) as { removed: boolean };
  const before = service.for("owner").length;
  const evictPane = tab.pane("p-evict", { title: "Refund 5522", harness: "edge" });
  await sleep(500);
  evictPane.ask({ kind: "text", toolCallId: "c-evict", itemId: "i", title: "Which order?" }).catch(() => undefined);
  await service.waitFor(() => service.for("owner").length > before, "the owner's second push", 20_000).catch(() => undefined);
  await sleep(1500);
  const floodPushes = new Set(service.requests.filter((r) => r.id.startsWith("flood-")).map((r) => r.id)).size;
  report("one device's subscriptions", { registered: counts(flood), ownerStillPushed: service.for("owner").length > before, floodEndpointsPushedTo: floodPushes, stealOwnersEndpoint: steal, deleteOwnersEndpoint: remove });

  // 3. A crew credential registering push endpoints on the member (issue 35, item 5).
  const { invite } = await admin("/crew-invites");
  const joined = JSON.parse((await http(port, "POST", "/api/crew/join", { body: JSON.stringify({ invite, name: "lead" }) })).text) as { token: string };
  const crew = await http(port, "POST", "/api/push/subscriptions", { body: JSON.stringify({ subscription: makeSubscriber(service.endpoint("lead")).json }), headers: as(joined.token) });
  report("crew credential", { status: crew.status, error: (JSON.parse(crew.text) as { error: string }).error });

  // 4. An ask in the same tick as its new pane (issue 38, item 4), and 5. secrets cut by the SDK (item 3).
  const token = "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef012345";
  const n0 = service.for("owner").length;
  tab.pane("p-tick", { title: `${"Refund ".repeat(34)}${token}`.slice(-(240 + token.length)), harness: "edge" })
    .ask({ kind: "text", toolCallId: "c-tick", itemId: "i", title: "Rotate?", push: { title: `${"t".repeat(45)} ${token}`, line: `Rotate ${"x".repeat(100)} ${token}` } }).catch(() => undefined);
  await service.waitFor(() => service.for("owner").length > n0, "the same-tick push", 20_000).catch(() => undefined);
  await sleep(1000);
  const pushed = service.for("owner").slice(n0).map((r) => JSON.parse(decryptPush(r.body, phone)) as { title: string; body: string });
  const snapshot = JSON.parse((await http(port, "GET", "/api/snapshot", { headers: as(owner) })).text) as { conversations: { id: string; title: string }[] };
  const listed = snapshot.conversations.find((c) => c.id === "p-tick")?.title ?? "";
  const clear = (s: string) => (/ghp_[A-Za-z0-9]*/.exec(s)?.[0] ?? "").length - 4;
  report("same-tick ask and cut secrets", { pushes: pushed.length, clearTokenCharsInPushTitle: pushed[0] ? clear(pushed[0].title) : null, clearTokenCharsInPushLine: pushed[0] ? clear(pushed[0].body) : null, clearTokenCharsInListTitle: clear(listed) });

  // 8. Guessing pairing codes and invites from the front door (issue 38, item 8).
  // Two wrong codes a second (a code and an invite) for 10 s, through the front door; 5 s in, the
  // owner makes a fresh code and invite and uses them 2 s later, while the guessing goes on.
  const guesses: number[] = [];
  const t0 = Date.now();
  const guessing = (async () => {
    for (let i = 0; Date.now() - t0 < 10_000; i++) {
      guesses.push((await http(port, "POST", "/api/pair", { body: JSON.stringify({ code: `WRNG-${i % 10}ZZZ`, name: "x" }), headers: { "x-forwarded-for": "203.0.113.9" } })).status);
      guesses.push((await http(port, "POST", "/api/crew/join", { body: JSON.stringify({ invite: `WRNG-${i % 10}ZZZ-ZZZZ`, name: "x" }), headers: { "x-forwarded-for": "203.0.113.9" } })).status);
      await sleep(1000);
    }
  })();
  await sleep(5000);
  const fresh = await admin("/pair-codes");
  const freshInvite = await admin("/crew-invites");
  await sleep(2000);
  const ownerPairs = (await http(port, "POST", "/api/pair", { body: JSON.stringify({ code: fresh.code, name: "owner" }), headers: { "x-forwarded-for": "198.51.100.20" } })).status;
  const inviteRedeems = (await http(port, "POST", "/api/crew/join", { body: JSON.stringify({ invite: freshInvite.invite, name: "lead 2" }), headers: { "x-forwarded-for": "198.51.100.21" } })).status;
  await guessing;
  report("pairing guesses", { wrongTries: guesses.length, statuses: counts(guesses), ownersFreshCode: ownerPairs, freshInvite: inviteRedeems });

  // 11. A deeply nested body, and HSTS (issue 38, item 11).
  const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
  const nested: number[] = [];
  for (const path of ["/api/agents/desk/panes/first/send", "/api/agents/desk/panes/first/stop", "/api/agents/desk/starters/s", "/api/pair", "/api/push/subscriptions"]) {
    nested.push((await http(port, "POST", path, { body: `{"requestId":"deep-${path.length}","text":"x","turnId":null,"extra":${deep(10_000)}}`, headers: as(owner) })).status);
  }
  const hsts = (await http(port, "GET", "/api/health", { headers: { host: FRONT, "x-forwarded-proto": "https" } })).headers["strict-transport-security"];
  const plain = (await http(port, "GET", "/api/health")).headers["strict-transport-security"];
  report("errors and HSTS", { deepBodies: counts(nested), hstsViaFrontDoor: hsts ?? null, hstsOnLoopback: plain ?? null });
  report("after", { health: (await http(port, "GET", "/api/health")).status, daemonAlive: child.exitCode === null });
  if (process.env.EDGE_LOG) console.log(out); // the daemon's own lines, for a figure that looks wrong
} finally {
  child.kill("SIGTERM");
  await new Promise((r) => child.once("exit", r));
  await agent.close();
  await service.close();
  listener.close();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
