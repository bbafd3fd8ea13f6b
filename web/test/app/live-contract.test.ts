/**
 * The live contract's golden fixtures (D-4, shared/test/fixtures/live) on the phone: the schema its
 * types come from (`@colliepwa/shared/live`, a test import: the app's bundle carries no schema)
 * reads every accept fixture and refuses every reject one, and the phone's store applies every
 * message the contract accepts and draws it.
 */
import { describe, expect, it } from "vitest";
import type { LiveMessage } from "@colliepwa/shared";
import { readLiveText } from "@colliepwa/shared/live";
import { paneKey, PhoneStore } from "../../src/app/store.ts";
import { frameOf, loadLiveFixtures } from "../../../shared/test/fixtures/live.ts";

const fixtures = loadLiveFixtures();
const accepted = fixtures.filter((f) => f.expect === "accept");

describe("the live contract's fixtures on the phone", () => {
  it("reads every accept fixture and refuses every reject fixture", () => {
    for (const f of fixtures) {
      const r = readLiveText(frameOf(f));
      if (f.expect === "accept") expect(r.ok, `${f.id}: ${r.ok ? "" : r.error}`).toBe(true);
      else {
        expect(r.ok, `${f.id} should be refused`).toBe(false);
        if (!r.ok) expect(r.error).toContain(f.error);
      }
    }
  });

  it("applies every accepted message to the store and draws it", () => {
    const store = new PhoneStore();
    // A snapshot first, then the chat's view, so items and asks have a chat to land in.
    const order = (m: LiveMessage) => (m.type === "snapshot" ? 0 : m.type === "view" ? 1 : 2);
    const messages = accepted.map((f) => {
      const r = readLiveText(frameOf(f));
      if (!r.ok) throw new Error(`${f.id}: ${r.error}`);
      return r.value;
    // An act's reply is the live connection's (it settles the act), never the store's: live.test.ts.
    }).filter((m): m is LiveMessage => m.type !== "act-reply").sort((a, b) => order(a) - order(b));
    const snapshot = messages.find((m) => m.type === "snapshot" && m.snapshot.agents.length > 0);
    for (const m of messages) {
      if (m.type === "snapshot" && m !== snapshot) continue; // the empty one would clear the others
      expect(() => store.apply(m)).not.toThrow();
      const s = store.getState();
      switch (m.type) {
        case "snapshot":
          expect(s.agents.size).toBe(m.snapshot.agents.length);
          expect([...s.conversations.keys()]).toEqual(m.snapshot.conversations.map((c) => paneKey(c.agent, c.id)));
          break;
        case "agent":
          expect(s.agents.get(m.agent.name)).toEqual(m.agent);
          break;
        case "agent-removed":
          expect(s.agents.has(m.name)).toBe(false);
          break;
        case "conversation":
          expect(s.conversations.get(paneKey(m.conversation.agent, m.conversation.id))).toEqual(m.conversation);
          break;
        case "conversation-removed":
          expect(s.conversations.has(paneKey(m.agent, m.id))).toBe(false);
          break;
        case "view":
          expect(s.details.get(paneKey(m.agent, m.paneId))).toEqual(m.detail);
          break;
        case "item":
          expect(s.details.get(paneKey(m.agent, m.paneId))?.items.find((i) => i.id === m.item.id)).toEqual(m.item);
          break;
        case "ask":
          expect(s.details.get(paneKey(m.agent, m.paneId))?.asks.find((a) => a.id === m.ask.id)).toEqual(m.ask);
          break;
        case "ask-closed":
          expect(s.details.get(paneKey(m.agent, m.paneId))?.asks.some((a) => a.id === m.askId)).toBe(false);
          break;
        case "held-outcome":
          expect(s.heldOutcomes.get(m.requestId)).toEqual({ status: m.status, body: m.body });
          break;
        case "decision":
          expect(s.decisions.get(paneKey(m.agent, m.decision.paneId))?.at(-1)).toEqual(m.decision);
          break;
        case "resumed":
          break;
      }
    }
  });
});
