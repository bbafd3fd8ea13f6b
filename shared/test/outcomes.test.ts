/**
 * The card's words after a tap (P-15): every outcome, and every wire code mapped.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { WIRE_ERRORS } from "@colliepwa/durable-sdk/wire";
import { answerOutcome, ANSWER_CODES } from "../src/outcomes.ts";
import { COLLIE_ERRORS } from "../src/api.ts";

const err = (status: number, error: string, extra: Record<string, unknown> = {}) => ({ status, body: { error, message: `m-${error}`, ...extra } });

describe("answerOutcome (P-15)", () => {
  it("closes the card when the agent took the answer, replayed or not", () => {
    assert.deepEqual(answerOutcome({ status: 200, body: { ok: true } }), { outcome: "accepted", line: null, frozen: false, retry: false });
    assert.equal(answerOutcome({ status: 200, body: { ok: true, replayed: true } }).outcome, "accepted");
  });
  it("says nothing yet for an answer Collie holds for an agent that is away (D-5)", () => {
    assert.equal(answerOutcome({ status: 202, body: { held: true } }).outcome, "held");
  });
  it("freezes the card when the agent decided first", () => {
    assert.deepEqual(answerOutcome(err(409, "ask-decided")), { outcome: "decided-in-agent", line: "Decided in the durable agent.", frozen: true, retry: false });
  });
  it("freezes the card when the ask timed out first", () => {
    assert.equal(answerOutcome(err(409, "ask-timed-out")).line, "Timed out before an answer.");
  });
  it("says another answer came first", () => {
    assert.equal(answerOutcome(err(409, "ask-answered")).line, "Already answered. This card goes away on the next refresh.");
  });
  it("says the question may come back when it is not open", () => {
    assert.equal(answerOutcome(err(409, "ask-not-open")).line, "Not taken. The question may come back in a moment.");
  });
  it("asks to read again when the ask changed", () => {
    assert.equal(answerOutcome(err(409, "ask-changed", { revision: "0123456789abcdef" })).line, "This ask changed. Read it again, then tap an answer.");
  });
  it("offers Retry when no reply came", () => {
    assert.deepEqual(answerOutcome(null), { outcome: "not-sure", line: "Not sure the answer arrived. Retry sends it again.", frozen: false, retry: true });
    assert.equal(answerOutcome(err(503, "agent-unreachable")).retry, true);
  });
  it("says it may have been applied when a retry finds the ask closed or changed", () => {
    for (const code of ["ask-decided", "ask-timed-out", "ask-answered", "ask-not-open", "ask-changed"]) {
      assert.equal(answerOutcome(err(409, code), { retry: true }).line, "May have been applied already. Check the chat.", code);
    }
  });
  it("receipt-dropped: `May have been applied already`, frozen, no futile Retry, on the first one", () => {
    // The agent says it only for a request id it saw before: the answer arrived; the same id again can only be dropped again.
    for (const retry of [false, true]) {
      assert.deepEqual(answerOutcome(err(500, "receipt-dropped"), { retry }), { outcome: "may-have-been-applied", line: "May have been applied already. Check the chat.", frozen: true, retry: false });
    }
    assert.equal(answerOutcome(err(503, "agent-unreachable"), { retry: true }).retry, true);
  });
  it("shows Collie's reason for a refusal, else the plain line", () => {
    assert.equal(answerOutcome(err(400, "invalid-answer", { message: "Street is required" })).line, "Street is required");
    assert.equal(answerOutcome(err(409, "refused", { reason: "busy" })).line, "busy");
    assert.equal(answerOutcome({ status: 400, body: {} }).line, "The answer was refused.");
  });
  it("says the machine runs an older Collie on a version mismatch", () => {
    assert.equal(answerOutcome(err(409, "agent-version-mismatch")).line, "This machine runs an older Collie and answers can't be taken here. Update it, or answer in the durable agent.");
  });
  it("maps every code of the wire's catalogue and of Collie's own", () => {
    for (const code of [...Object.keys(WIRE_ERRORS), ...Object.keys(COLLIE_ERRORS)]) {
      assert.ok((ANSWER_CODES as readonly string[]).includes(code), `${code} is listed`);
      const status = code in WIRE_ERRORS ? WIRE_ERRORS[code as keyof typeof WIRE_ERRORS].status : COLLIE_ERRORS[code as keyof typeof COLLIE_ERRORS];
      const view = answerOutcome(err(status, code));
      assert.ok(view.outcome !== "accepted" && view.outcome !== "held", `${code} is not taken for success`);
      assert.ok(view.line, `${code} has a line`);
    }
  });
});
