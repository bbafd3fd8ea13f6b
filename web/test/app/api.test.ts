/**
 * The phone's client (api.ts): a reply that is not JSON. A refusal (4xx) is final whatever its body
 * (a proxy's HTML 404 or 413), so the outbox lets it go; a 5xx or 2xx that is not JSON is no reply.
 */
import { describe, expect, it } from "vitest";
import { Api, NetworkError } from "../../src/app/api.ts";
import { memoryOutboxStorage, Outbox } from "../../src/app/outbox.ts";

const html = (status: number) =>
  (async () => new Response("<html><body>Request Entity Too Large</body></html>", { status, headers: { "content-type": "text/html" } })) as unknown as typeof fetch;

describe("Api: a reply that is not JSON", () => {
  for (const status of [404, 413]) {
    it(`a ${status} is a reply with an empty body`, async () => {
      const reply = await new Api("", html(status)).send({ method: "POST", path: "/api/x", body: {} });
      expect(reply).toEqual({ status, body: {} });
    });
  }

  for (const status of [200, 502]) {
    it(`a ${status} is no reply`, async () => {
      await expect(new Api("", html(status)).send({ method: "POST", path: "/api/x", body: {} })).rejects.toBeInstanceOf(NetworkError);
    });
  }

  it("the outbox lets a refused action go instead of sending it again forever", async () => {
    const storage = memoryOutboxStorage();
    const outbox = new Outbox(new Api("", html(413)), storage);
    const r = await outbox.submit({ requestId: "h-1", kind: "send", agent: "desk", pane: "p", path: "/send", body: { requestId: "h-1", text: "x".repeat(10) } });
    expect(r.kind === "reply" && r.reply.status).toBe(413);
    expect(outbox.pending).toEqual([]);
    expect(await storage.all()).toEqual([]);
  });
});
