/**
 * The live contract's golden fixtures (shared/test/fixtures/live) through the server's sending
 * path (D-4): each accepted message, published on a real daemon's live hub, reaches a real phone
 * WebSocket (`/api/live`) as it was, numbered, and reads by the contract (helpers/live.ts checks
 * every frame); items and views only for the chat the phone watches. An act's reply is no hub
 * message (it answers one phone's act: live-act.test.ts).
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import type { LiveMessage } from "@colliepwa/shared";
import type { Unnumbered } from "../../src/agents/live.ts";
import { closeAllDaemons, TestDaemon } from "../helpers/daemon.ts";
import { closeAllLive, LiveClient } from "../helpers/live.ts";
import { jsonCopy, loadLiveFixtures } from "../../../shared/test/fixtures/live.ts";
import { removeTempDirs, until } from "../helpers/wait.ts";

after(async () => {
  await closeAllLive();
  await closeAllDaemons();
  removeTempDirs();
});

test("every accepted fixture published on the hub reaches a phone unchanged but for its number", async () => {
  const d = await TestDaemon.inject({ sources: { fixed: [] } });
  const phone = await LiveClient.inject(d);
  const watched = new Set<string>();
  const accepted = loadLiveFixtures().filter((f) => f.expect === "accept" && f.type !== "resumed" && f.type !== "snapshot" && f.type !== "act-reply");
  for (const f of accepted) {
    const m = f.message as LiveMessage;
    if ((m.type === "item" || m.type === "view") && !watched.has(`${m.agent}\n${m.paneId}`)) {
      watched.add(`${m.agent}\n${m.paneId}`);
      phone.send({ type: "watch", agent: m.agent, pane: m.paneId });
    }
  }
  // The watches are in once the hub sends each watched chat's items: a probe item until one arrives.
  for (const key of watched) {
    const [agent, paneId] = key.split("\n") as [string, string];
    await until(() => {
      d.daemon.live.publish({ type: "item", agent, paneId, item: { kind: "notice", id: "probe", text: "probe" } });
      return phone.messages.some((m) => m.type === "item" && m.agent === agent && m.paneId === paneId);
    }, `the watch of ${key}`);
  }
  const from = phone.messages.length;
  for (const f of accepted) {
    const { seq: _seq, ...unnumbered } = jsonCopy(f.message) as LiveMessage;
    d.daemon.live.publish(unnumbered as Unnumbered);
  }
  const isProbe = (m: LiveMessage) => m.type === "item" && m.item.id === "probe";
  await until(() => phone.messages.slice(from).filter((m) => !isProbe(m)).length >= accepted.length, "every published message");
  const got = phone.messages.slice(from).filter((m) => !isProbe(m)).map((m) => {
    const { seq, ...rest } = m;
    assert.ok(Number.isSafeInteger(seq));
    return rest;
  });
  assert.deepEqual(got, accepted.map((f) => {
    const { seq: _seq, ...rest } = jsonCopy(f.message) as LiveMessage;
    return rest;
  }));
});
