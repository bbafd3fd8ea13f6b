/**
 * The crew protocol check runs both ways (C-1): a lead names its version on every request to a
 * member (`Collie-Crew`), and a member that does not speak it refuses the request, invite
 * redemption included, with `409 agent-version-mismatch`, the words and the version it speaks; a
 * lead refused so draws the member Version mismatch with the same words. A real member daemon; a
 * fake member for the lead's side.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import WebSocket from "ws";
import { adminRequest } from "../../src/security/admin.ts";
import { CREW_HEADER, CREW_JOIN_PATH, CREW_PROTOCOL_VERSION } from "../../src/crew/protocol.ts";
import { closeAllDaemons, TestDaemon, writeSources } from "../helpers/daemon.ts";
import { FakeMember, memberRow, memberSnapshot } from "../helpers/fake-member.ts";
import { authHeaders } from "../helpers/tokens.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";

const members: FakeMember[] = [];
after(async () => {
  await closeAllDaemons();
  await Promise.all(members.map((m) => m.close()));
  removeTempDirs();
});

const OTHER = String(CREW_PROTOCOL_VERSION + 1);

describe("a member refuses a lead whose crew protocol it does not speak (C-1)", () => {
  let member: TestDaemon;
  let state: string;
  let token: string;
  const call = (path: string, crew: string | undefined, init: RequestInit = {}) =>
    fetch(`${member.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...(crew === undefined ? {} : { [CREW_HEADER]: crew }), ...(init.headers as Record<string, string> | undefined) } });
  const join = async (crew: string, invite: string) =>
    fetch(`${member.url}${CREW_JOIN_PATH}`, { method: "POST", headers: { "content-type": "application/json", [CREW_HEADER]: crew }, body: JSON.stringify({ invite, name: "lead" }) });

  before(async () => {
    state = tempDir();
    member = await TestDaemon.start({ sources: { fixed: [] }, stateDir: state });
  });

  test("an invite redeemed by a lead on another protocol is refused with the words, and is not spent", async () => {
    const invite = String((await adminRequest(state, "POST", "/crew-invites")).body.invite);
    const refused = await join(OTHER, invite);
    assert.equal(refused.status, 409);
    const body = (await refused.json()) as { error: string; message: string; speaks: number[] };
    assert.equal(body.error, "agent-version-mismatch");
    assert.equal(body.message, `the member speaks crew protocol ${CREW_PROTOCOL_VERSION}, the lead speaks ${OTHER}; update the older Collie.`);
    assert.deepEqual(body.speaks, [CREW_PROTOCOL_VERSION]);
    const joined = await join(String(CREW_PROTOCOL_VERSION), invite);
    assert.equal(joined.status, 200, "the same invite still works");
    token = ((await joined.json()) as { token: string }).token;
  });

  test("every request of that lead names its protocol: another one is refused, its own or none (an older lead) is taken", async () => {
    for (const path of ["/api/crew/hello", "/api/snapshot", "/api/agents"]) {
      const r = await call(path, OTHER);
      assert.equal(r.status, 409, path);
      assert.match(((await r.json()) as { message: string }).message, /the member speaks crew protocol \d+, the lead speaks \d+/);
      assert.equal((await call(path, String(CREW_PROTOCOL_VERSION))).status, 200, path);
      assert.equal((await call(path, undefined)).status, 200, path);
    }
    assert.equal((await call("/api/snapshot", "x, y")).status, 409, "a header no Collie writes");
    const ws = new WebSocket(`${member.wsUrl}/api/live`, { headers: { authorization: `Bearer ${token}`, [CREW_HEADER]: OTHER } });
    const refused = await new Promise<string>((resolve) => {
      ws.on("unexpected-response", (_req, res) => resolve(String(res.statusCode)));
      ws.on("open", () => resolve("open"));
      ws.on("error", () => {});
    });
    ws.terminate();
    assert.equal(refused, "409");
  });

  test("a phone is not a lead: the header means nothing on its requests", async () => {
    const phone = await fetch(`${member.url}/api/snapshot`, { headers: { ...authHeaders(member.url), [CREW_HEADER]: OTHER } });
    assert.equal(phone.status, 200);
  });
});

describe("a lead refused by its member for its crew protocol (C-1)", () => {
  test("draws the member Version mismatch with the words; every request it made named its protocol", async () => {
    const member = await FakeMember.start({
      hello: () => ({ status: 409, body: { error: "agent-version-mismatch", message: "the member speaks crew protocol 7, the lead speaks 1; update the older Collie.", speaks: [7] } }),
      onLive: (socket) => socket.send(memberSnapshot([memberRow("desk")])),
    });
    members.push(member);
    const dir = tempDir();
    const sources = join(dir, "sources.json");
    writeSources(sources, { crew: [{ name: "box", url: member.url, token: "crew-credential-0123456789" }] });
    const lead = await TestDaemon.start({ sources: { path: sources }, stateDir: join(dir, "lead") });
    const row = await lead.waitAgent("box@box", (a) => a.state === "version-mismatch", "version mismatch");
    assert.equal(row.problem, `the member speaks crew protocol 7, the lead speaks ${CREW_PROTOCOL_VERSION} (the member refused this lead)`);
    assert.ok(member.requests.length > 0);
    for (const r of member.requests) assert.equal(r.crew, String(CREW_PROTOCOL_VERSION), r.url);
    // Taken again once the member speaks it: the live connection names it too.
    member.set({ hello: () => ({ status: 200, body: { crew: CREW_PROTOCOL_VERSION, collie: "9.0.0" } }) });
    lead.daemon.crew.member("box")!.retryNow();
    await lead.waitAgent("desk@box", (a) => a.state === "ready", "the member's agent ready");
    await until(() => member.connections > 0, "the live connection");
  });
});
