/**
 * sources.json's shape is one TypeBox schema (`SourcesFile`, issue 33, item 7), and each thing it
 * refuses is said in the same one line as before the schema: the file, the list, the entry (with
 * its name once that is valid), the field, why.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseConfig, SourcesError } from "../../src/sources/sources.ts";

const PATH = "/x/sources.json";
const says = (json: unknown) => {
  try {
    parseConfig(json, PATH, { T: "agent-token-0123456789" });
  } catch (err) {
    assert.ok(err instanceof SourcesError, String(err));
    assert.ok(!err.message.includes("\n"), "one line");
    return err.message.slice(PATH.length + 2);
  }
  return "accepted";
};

describe("sources.json's shape, in its own words", () => {
  test("the file, its lists and their entries", () => {
    assert.equal(says([]), 'top level: must be an object like {"durable": [...]}');
    assert.equal(says("durable"), 'top level: must be an object like {"durable": [...]}');
    assert.equal(says({ durables: [] }), 'durables: is not a field of sources.json (expected "durable" or "crew")');
    assert.equal(says({ durable: {} }), "durable: must be an array of agents");
    assert.equal(says({ crew: "all" }), "crew: must be an array of member machines");
    assert.equal(says({ durable: [null] }), "durable[0]: must be an object");
    assert.equal(says({ crew: [[]] }), "crew[0]: must be an object");
    assert.equal(says({ $schema: "./sources.schema.json", durable: [], crew: [] }), "accepted");
  });

  test("an entry's fields", () => {
    const name = "must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit";
    assert.equal(says({ durable: [{ socket: "/s" }] }), `durable[0].name: ${name}`);
    assert.equal(says({ durable: [{ name: "a b", socket: "/s" }] }), `durable[0].name: ${name}`);
    assert.equal(says({ durable: [{ name: 5, socket: "/s" }] }), `durable[0].name: ${name}`);
    // An unknown field is said first, then the name.
    assert.equal(says({ durable: [{ name: "a b", colour: "red" }] }), "durable[0].colour: is not a field of a durable agent (name, socket, url, token, ca)");
    assert.equal(says({ crew: [{ name: "w", url: "https://w.example", token: "env:T", via: 1 }] }), "crew[0].via: is not a field of a crew member (name, url, token, ca)");
    assert.equal(says({ durable: [{ name: "a", socket: "" }] }), "durable[0] (a).socket: must be a path");
    assert.equal(says({ durable: [{ name: "a", socket: 7 }] }), "durable[0] (a).socket: must be a path");
    assert.equal(says({ durable: [{ name: "a", url: 7, token: "env:T" }] }), "durable[0] (a).url: must be a URL");
    assert.equal(says({ durable: [{ name: "a", url: "https://a.example", token: "" }] }), "durable[0] (a).token: must be a string (inline, env:NAME or file:PATH)");
    assert.equal(says({ durable: [{ name: "a", url: "https://a.example", token: ["x"] }] }), "durable[0] (a).token: must be a string (inline, env:NAME or file:PATH)");
    assert.equal(says({ durable: [{ name: "a", url: "https://a.example", token: "env:T", ca: "/ca.pem" }] }), "durable[0] (a).ca: must be file:PATH to a PEM certificate");
    assert.equal(says({ crew: [{ name: "w", token: "env:T" }] }), "crew[0] (w).url: must be a URL");
    assert.equal(says({ crew: [{ name: "w", url: "https://w.example" }] }), "crew[0] (w).token: is required: the crew credential `collie crew join` stored (inline, env:NAME or file:PATH)");
  });

  test("what the schema cannot say, after it", () => {
    assert.equal(says({ durable: [{ name: "a", socket: "/s" }, { name: "a", socket: "/t" }] }), "durable[1] (a).name: is used by an earlier entry");
    assert.equal(says({ durable: [{ name: "a", socket: "/s", url: "https://a.example" }] }), 'durable[0] (a): needs exactly one of "socket" or "url"');
    assert.equal(says({ durable: [{ name: "a" }] }), 'durable[0] (a): needs exactly one of "socket" or "url"');
    assert.equal(says({ durable: [{ name: "a", socket: "/s", token: "env:T" }] }), "durable[0] (a).token: is only for url entries: a socket is private to its owner");
    assert.equal(says({ durable: [{ name: "a", url: "not a url", token: "env:T" }] }), "durable[0] (a).url: is not a valid URL");
    assert.equal(says({ durable: [{ name: "a", url: "https://a.example" }] }), "durable[0] (a).token: is required for a url entry (inline, env:NAME or file:PATH)");
    assert.equal(says({ durable: [{ name: "a", url: "https://a.example", token: "env:T" }] }), "accepted");
  });
});
