/**
 * The typed client and the action layer are built from the shared route table (PHONE_ROUTES and
 * PhoneContract): a body, a query or path parameters of the wrong shape do not compile. The
 * `@ts-expect-error` lines are the test: `tsc -p web` fails if any of them compiles.
 */
import { describe, expect, test } from "vitest";
import type { PhoneBody } from "@colliepwa/shared";
import type { PhoneActions } from "../../src/app/actions.ts";
import { Api, request } from "../../src/app/api.ts";
import type { Reader } from "../../src/app/reads.ts";

/** Never called: only compiled. */
function compileOnly(api: Api, actions: PhoneActions, reader: Reader): void {
  // The right shapes compile.
  void api.call("send", { agent: "desk", pane: "p1" }, { requestId: "r-1", text: "hi" });
  void api.call("history", { agent: "desk" }, { after: "c2", limit: 100 });
  void api.call("me", {});
  void api.call("pushUnsubscribe", {}, { endpoint: "https://push.example.net/1" });
  actions.answer({ agent: "desk", pane: "p1", ask: "a1" }, { revision: "0000000000000001", answer: { kind: "permission", optionId: "allow" } });
  actions.close({ agent: "desk" }, { target: { kind: "pane", id: "p1" } });
  void reader.fresh("starters", { agent: "desk" });

  // A wrong body does not.
  // @ts-expect-error `text` is missing from a send
  void api.call("send", { agent: "desk", pane: "p1" }, { requestId: "r-1" });
  // @ts-expect-error a send's text is a string
  void api.call("send", { agent: "desk", pane: "p1" }, { requestId: "r-1", text: 42 });
  // @ts-expect-error no field the route does not declare
  void api.call("send", { agent: "desk", pane: "p1" }, { requestId: "r-1", text: "hi", turnId: null });
  // @ts-expect-error a body that takes one needs it
  void api.call("steer", { agent: "desk", pane: "p1" });
  // @ts-expect-error a rename's target kind is workspace, tab or pane
  void api.call("rename", { agent: "desk" }, { requestId: "r-1", target: { kind: "window", id: "w" }, title: "t" });
  // @ts-expect-error the answer route's path names the ask
  void api.call("answer", { agent: "desk", pane: "p1" }, { requestId: "r-1", revision: "0000000000000001", answer: { kind: "permission", optionId: "allow" } });
  // @ts-expect-error a query of the wrong type
  void api.call("history", { agent: "desk" }, { limit: "100" });
  // @ts-expect-error no such route
  void request("sendAll", {}, {});

  // The action layer adds the request id and takes the route's body otherwise.
  // @ts-expect-error a send's body is its text
  actions.send({ agent: "desk", pane: "p1" }, { message: "hi" });
  // @ts-expect-error stop names the turn
  actions.stop({ agent: "desk", pane: "p1" }, {});
  // @ts-expect-error an answer is one of the wire's answers
  actions.answer({ agent: "desk", pane: "p1", ask: "a1" }, { revision: "0000000000000001", answer: { kind: "yes" } });

  // The read layer reads GET routes only.
  // @ts-expect-error `send` is an action, not a read
  void reader.fresh("send", { agent: "desk", pane: "p1" });
}

describe("the typed client (compile-time)", () => {
  test("builds each request from the table", () => {
    void compileOnly;
    const body: PhoneBody<"send"> = { requestId: "r-1", text: "hi" };
    expect(request("send", { agent: "desk", pane: "p 1" }, body)).toEqual({ route: "send", method: "POST", path: "/api/agents/desk/panes/p%201/send", body });
    expect(request("history", { agent: "desk" }, { after: "c2", limit: 100 })).toEqual({ route: "history", method: "GET", path: "/api/agents/desk/history?after=c2&limit=100" });
    expect(request("pushUnsubscribe", {}, { endpoint: "e" }).method).toBe("DELETE");
  });
});
