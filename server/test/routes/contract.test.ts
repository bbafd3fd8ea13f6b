/**
 * The phone API's one route table (shared/src/phone-routes.ts): what the server registers is
 * exactly the table, method and path, so a route added on one end only fails here; and the phone's
 * addresses built from it match the registered patterns.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { PHONE_ROUTES, phonePath } from "@colliepwa/shared";
import { closeAllDaemons, TestDaemon } from "../helpers/daemon.ts";

after(() => closeAllDaemons());

test("the server registers exactly the phone route table", async () => {
  const d = await TestDaemon.inject({ sources: { fixed: [] } });
  const registered = new Set(d.daemon.app.collieRoutes.filter((r) => r.url.startsWith("/api/") && r.method !== "HEAD").map((r) => `${r.method} ${r.url}`));
  const table = new Set(Object.values(PHONE_ROUTES).map((r) => `${r.method} ${r.path}`));
  assert.deepEqual([...registered].filter((r) => !table.has(r)), [], "registered but not in the table");
  assert.deepEqual([...table].filter((r) => !registered.has(r)), [], "in the table but not registered");
});

test("an address built from the table encodes its parameters and its query", () => {
  assert.equal(phonePath("send", { agent: "desk", pane: "ticket 5521/é" }), "/api/agents/desk/panes/ticket%205521%2F%C3%A9/send");
  assert.equal(phonePath("history", { agent: "desk" }, { after: "c1", limit: 5, nothing: undefined }), "/api/agents/desk/history?after=c1&limit=5");
  assert.equal(phonePath("snapshot", {}), "/api/snapshot");
});
