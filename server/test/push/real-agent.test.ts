/**
 * Push from a real SDK agent on a real socket, through the real daemon, to a local push service
 * whose every push is decrypted:
 * - every ask pushes once, whenever its pane appeared (issue 38, item 4): an ask raised in the same
 *   tick as its new pane reaches Collie inside the pane's view, not as an event, and used to stay
 *   open and waiting with no push;
 * - a secret the SDK cut short is still masked (issue 38, item 3): the SDK cuts a push line to 120
 *   characters, a push title to 60 and a pane title to 256 bytes before Collie sees them, and the
 *   rest of a key across the cut is too short for the whole-key rules.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { openCollie, type Collie } from "@colliepwa/durable-sdk";
import type { PushAskPayload } from "@colliepwa/shared";
import { MASK } from "../../src/push/mask.ts";
import { Daemon } from "../../src/daemon.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";
import { FakePushService } from "./helpers/push-service.ts";
import { decryptPush, makeSubscriber, type TestSubscriber } from "./helpers/webpush-check.ts";

let collie: Collie;
let phone: TestSubscriber;
let daemon: Daemon;
let service: FakePushService;

before(async () => {
  const dir = tempDir();
  const socket = join(dir, "agent.sock");
  collie = await openCollie({ socket, hostName: "desk", descendantCheck: false });
  collie.workspace("w", { title: "Support" }).tab("t", { title: "Tickets" }).pane("first", { title: "First ticket", harness: "test" });
  collie.ready();
  service = await new FakePushService().listen();
  daemon = await Daemon.create({
    sources: { fixed: [{ name: "desk", endpoint: { kind: "socket", path: socket }, key: "desk" }] },
    stateDir: join(dir, "state"),
    log: () => undefined,
    tuning: { waitMs: 2000, retryDelaysMs: [50, 100] },
    push: { allowLocalEndpoints: true, retryDelaysMs: [5], host: "studio" },
  });
  await daemon.app.listen({ host: "127.0.0.1", port: 0 });
  const device = daemon.devices.pair(daemon.devices.createCode().code, "phone", "test");
  if (!device.ok) throw new Error("pairing failed");
  phone = makeSubscriber(service.endpoint("phone"));
  await daemon.push!.register(phone.json, { device: device.device.id });
  await until(() => daemon.agents.get("desk")?.state === "ready" || undefined, "the agent is ready");
});

after(async () => {
  await daemon.push?.idle();
  await daemon.close();
  await collie.close();
  await service.close();
  removeTempDirs();
});

test("an ask raised in the same tick as its new pane pushes once", async () => {
  // The daemon's long-poll is parked on the agent's events; pane and ask come in one tick.
  const pane = collie.workspace("w", { title: "Support" }).tab("t", { title: "Tickets" }).pane("refund-5521", { title: "Refund 5521", harness: "test" });
  const answer = pane.ask({ kind: "text", toolCallId: "call-1", itemId: "item-1", title: "Which order should be refunded?" });
  answer.catch(() => undefined);
  await service.waitFor((reqs) => reqs.length >= 1, "the ask's push");
  await daemon.push!.idle();
  const pushes = service.requests.map((r) => JSON.parse(decryptPush(r.body, phone)) as PushAskPayload);
  assert.equal(pushes.length, 1);
  assert.equal(pushes[0]!.type, "ask");
  assert.equal(pushes[0]!.paneId, "refund-5521");
  assert.equal(pushes[0]!.title, "Permission needed in Refund 5521");
  // The ask is on the phone too, waiting.
  assert.equal(daemon.agents.get("desk")!.mirror.detail("refund-5521")?.asks.length, 1);
});

test("a secret the SDK cut at its limits is masked on the lock screen and in the list", async () => {
  const token = "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef012345"; // GitHub's shape: ghp_ and 36 more
  // The SDK cuts each of these inside the token: the pane title at 256 bytes, the push title at
  // 60 characters and the push line at 120.
  const paneTitle = `${"Refund ".repeat(34)}${token}`.slice(-(240 + token.length));
  const pane = collie.workspace("w", { title: "Support" }).tab("t", { title: "Tickets" }).pane("cut-1", { title: paneTitle, harness: "test" });
  const before = service.requests.length;
  pane.ask({
    kind: "text", toolCallId: "call-cut", itemId: "item-cut", title: "Rotate the key?",
    push: { title: `${"t".repeat(45)} ${token}`, line: `Rotate ${"x".repeat(100)} ${token}` },
  }).catch(() => undefined);
  await service.waitFor((reqs) => reqs.length > before, "the ask's push");
  await daemon.push!.idle();
  const push = JSON.parse(decryptPush(service.requests.at(-1)!.body, phone)) as PushAskPayload;
  const shown = daemon.agents.get("desk")!.mirror.detail("cut-1")!.conversation.title;
  for (const [what, text] of [["push title", push.title], ["push line", push.body], ["pane title", shown]] as const) {
    // The SDK's cut leaves ghp_ and part of the key; at most ghp_ and one character show.
    const at = text.indexOf("ghp_");
    assert.ok(at >= 0, `${what}: ${text}`);
    assert.match(text.slice(at), new RegExp(`^ghp_A${MASK}+…?$`), `${what}: ${text}`);
  }
});
