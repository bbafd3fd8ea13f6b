/**
 * One durable agent's client: the wire over its Unix socket, or over https (or http on loopback)
 * with a bearer token (D-1, W-1), or, in the server's own tests, straight to an SDK `WireEndpoint`
 * in the same process (a `DurableCore`: no socket, the same requests and replies). Every request
 * has a deadline, so a stalled agent turns `unreachable` instead of hanging Collie (L-2), and every
 * reply is size-capped and parsed as JSON before anyone looks at it. The token is sent, never
 * logged or put into an error. A socket and plain http go through Collie's own HTTP/1.1 client
 * (wire-http.ts, issue 31), https through `node:https`.
 */
import type { Agent as HttpsAgentType, ClientRequest, IncomingMessage, RequestOptions } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { StringDecoder } from "node:string_decoder";
import type { WireEndpoint } from "@colliepwa/durable-sdk/core";
import { COLLIE_WIRE_HEADER } from "@colliepwa/durable-sdk/wire";
import { PLAIN_HTTP_HOSTS } from "../net/loopback.ts";
import { MalformedReply, WireHttp } from "./wire-http.ts";

/**
 * How Collie reaches an agent: its socket, or its URL and token (and a CA for a private
 * certificate), or an endpoint in this process (`memory`: tests only; sources.json cannot name one).
 */
export type Endpoint =
  | { kind: "socket"; path: string }
  | { kind: "url"; url: URL; token: string; ca?: string }
  | { kind: "memory"; core: WireEndpoint; token?: string };

/** Replies larger than this are refused (a hostile or broken agent cannot exhaust memory). */
export const MAX_REPLY_BYTES = 64 * 1024 * 1024;

export interface AgentReply {
  status: number;
  body: unknown;
}

/** A failure to reach the agent or to read its reply; `message` never holds a token. */
export class AgentUnreachable extends Error {
  override name = "AgentUnreachable";
}

export class AgentClient {
  readonly endpoint: Endpoint;
  /** Node's https client, for an agent behind TLS. */
  readonly #agent: HttpsAgentType | null;
  /** Collie's own HTTP/1.1 client (wire-http.ts), for a Unix socket or plain http. */
  readonly #wire: WireHttp | null;
  readonly #collieWire: string;
  readonly #headers: Readonly<Record<string, string>>;

  /** `headers` go with every request (a crew lead names its crew protocol, crew/protocol.ts). */
  constructor(endpoint: Endpoint, collieWire: readonly number[], headers: Readonly<Record<string, string>> = {}) {
    this.endpoint = endpoint;
    this.#collieWire = collieWire.join(", ");
    this.#headers = headers;
    const https = endpoint.kind === "url" && endpoint.url.protocol === "https:";
    this.#agent = https ? new HttpsAgent({ keepAlive: true, maxSockets: 8, ...(endpoint.ca ? { ca: endpoint.ca } : {}) }) : null;
    this.#wire = endpoint.kind === "socket"
      ? new WireHttp({ path: endpoint.path })
      : endpoint.kind === "url" && !https
        ? new WireHttp({ host: endpoint.url.hostname.replace(/^\[|\]$/g, ""), port: Number(endpoint.url.port || 80) })
        : null;
  }

  /**
   * `local` only for a socket, `http://127.0.0.1` or `http://localhost`; every other URL is
   * `remote` (D-3), https to this machine and `[::1]` included: the specification names exactly
   * these, the same two hosts sources.json accepts plain http for.
   */
  get reach(): "local" | "remote" {
    if (this.endpoint.kind !== "url") return "local";
    const { protocol, hostname } = this.endpoint.url;
    return protocol === "http:" && PLAIN_HTTP_HOSTS.has(hostname) ? "local" : "remote";
  }

  get(path: string, timeoutMs: number, signal?: AbortSignal): Promise<AgentReply> {
    return this.#request("GET", path, undefined, timeoutMs, signal);
  }

  /** `headers`: more request headers (a crew lead names the phone, crew/phone-name.ts). */
  post(path: string, body: unknown, timeoutMs: number, headers?: Record<string, string>): Promise<AgentReply> {
    return this.#request("POST", path, JSON.stringify(body), timeoutMs, undefined, headers);
  }

  close(): void {
    this.#agent?.destroy();
    this.#wire?.close();
  }

  #request(method: string, path: string, payload: string | undefined, timeoutMs: number, signal?: AbortSignal, more?: Record<string, string>): Promise<AgentReply> {
    const headers: Record<string, string> = { ...this.#headers, ...more, [COLLIE_WIRE_HEADER]: this.#collieWire, accept: "application/json" };
    if (this.endpoint.kind === "memory") return this.#inMemory(this.endpoint, method, path, headers, payload, timeoutMs, signal);
    if (this.endpoint.kind === "url") headers.authorization = `Bearer ${this.endpoint.token}`;
    if (payload !== undefined) headers["content-type"] = "application/json";
    if (this.#wire) return this.#viaWire(this.#wire, method, path, headers, payload, timeoutMs, signal);
    if (payload !== undefined) headers["content-length"] = String(Buffer.byteLength(payload));
    // No socket `timeout`: the deadline below ends the request first in every case (an idle
    // socket's timeout of the same length cannot), and setting one costs listeners and a timer on
    // every request's socket, the events long-poll's included (issue 31).
    // Only an https URL comes here (the constructor gave the others Collie's own client).
    const url = (this.endpoint as { url: URL }).url;
    const opts: RequestOptions = { method, path, headers, agent: this.#agent!, hostname: url.hostname.replace(/^\[|\]$/g, ""), port: url.port || 443 };
    return new Promise<AgentReply>((resolve, reject) => {
      let settled = false;
      // Declared before anything that can fail: `http.request` itself throws synchronously for a
      // header it cannot send (a token with a character outside ASCII, ERR_INVALID_CHAR), and the
      // deadline or an abort may fire before there is a request to destroy.
      let req: ClientRequest | undefined;
      // Whatever ends the request lets go of the timer and of the caller's signal: the signal can
      // be long-lived (a connection's stop), and a failure after the reply started (too large, cut
      // off) gets no request error to clean up after it.
      const fail = (why: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        signal?.removeEventListener("abort", onAbort);
        req?.destroy();
        reject(new AgentUnreachable(why));
      };
      const deadline = setTimeout(() => fail(`no reply within ${timeoutMs} ms`), timeoutMs);
      const onAbort = () => fail("cancelled");
      signal?.addEventListener("abort", onAbort, { once: true });
      try {
        req = httpsRequest(opts, (res: IncomingMessage) => {
          // Each chunk becomes text as it arrives (a decoder keeps a character split between two
          // chunks whole): no copy of the whole reply outside V8's heap, which a whole view (hundreds
          // of KB) would be, malloc'd and held until a GC (docs/performance.md, where memory goes).
          const decoder = new StringDecoder("utf8");
          let text = "";
          let size = 0;
          res.on("data", (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_REPLY_BYTES) fail(`reply larger than ${MAX_REPLY_BYTES} bytes`);
            else text += decoder.write(chunk);
          });
          res.on("error", (err) => fail(describe(err)));
          res.on("end", () => {
            if (settled) return;
            clearTimeout(deadline);
            signal?.removeEventListener("abort", onAbort);
            settled = true;
            text += decoder.end();
            try {
              resolve({ status: res.statusCode ?? 0, body: text.length === 0 ? {} : JSON.parse(text) });
            } catch {
              reject(new AgentUnreachable(`reply ${res.statusCode} is not JSON`));
            }
          });
        });
      } catch (err) {
        // A request that cannot even be made is an unreachable agent, never a throw out of here.
        return fail(describe(err));
      }
      req.on("error", (err) => fail(describe(err)));
      req.on("close", () => clearTimeout(deadline));
      req.end(payload);
    });
  }

  /**
   * The request through Collie's own client (wire-http.ts), with the same deadline, cancel, size
   * cap and errors as Node's: every failure is an AgentUnreachable whose words hold no token.
   */
  async #viaWire(wire: WireHttp, method: string, path: string, headers: Record<string, string>, payload: string | undefined, timeoutMs: number, signal?: AbortSignal): Promise<AgentReply> {
    const ended = new AbortController();
    let why = "cancelled";
    const deadline = setTimeout(() => {
      why = `no reply within ${timeoutMs} ms`;
      ended.abort();
    }, timeoutMs);
    const onAbort = () => ended.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      if (signal?.aborted) throw new AgentUnreachable("cancelled");
      const reply = await wire.request({ method, path, headers, ...(payload !== undefined ? { body: payload } : {}), maxBody: MAX_REPLY_BYTES, signal: ended.signal });
      try {
        return { status: reply.status, body: reply.text.length === 0 ? {} : JSON.parse(reply.text) };
      } catch {
        throw new AgentUnreachable(`reply ${reply.status} is not JSON`);
      }
    } catch (err) {
      if (err instanceof AgentUnreachable) throw err;
      if (ended.signal.aborted) throw new AgentUnreachable(why);
      throw new AgentUnreachable(err instanceof MalformedReply ? err.message : describe(err));
    } finally {
      clearTimeout(deadline);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /**
   * The same request to an endpoint in this process, with everything a socket would give it: the
   * header names in lower case, the body as text, the deadline and the cancel, and the reply
   * serialized and parsed again (the caller never shares an object with the agent) under the
   * same size cap.
   */
  async #inMemory(endpoint: { core: WireEndpoint; token?: string }, method: string, path: string, headers: Record<string, string>, payload: string | undefined, timeoutMs: number, signal?: AbortSignal): Promise<AgentReply> {
    const lower: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) lower[name.toLowerCase()] = value;
    if (endpoint.token !== undefined) lower.authorization = `Bearer ${endpoint.token}`;
    const gone = new AbortController();
    let deadline: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => gone.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    const ended = new Promise<never>((_, reject) => {
      // The deadline's own reason first: aborting the request then rejects too, and is ignored.
      deadline = setTimeout(() => { reject(new AgentUnreachable(`no reply within ${timeoutMs} ms`)); gone.abort(); }, timeoutMs);
      gone.signal.addEventListener("abort", () => reject(new AgentUnreachable("cancelled")), { once: true });
    });
    ended.catch(() => {});
    try {
      if (signal?.aborted) throw new AgentUnreachable("cancelled");
      const reply = await Promise.race([
        endpoint.core.request({ method, path, headers: lower, ...(payload !== undefined ? { body: payload } : {}), signal: gone.signal }),
        ended,
      ]);
      // As a socket reads it: an empty body is `{}`, a body that is not JSON is an unreachable agent.
      const text = JSON.stringify(reply.body) ?? "{}";
      if (Buffer.byteLength(text) > MAX_REPLY_BYTES) throw new AgentUnreachable(`reply larger than ${MAX_REPLY_BYTES} bytes`);
      return { status: reply.status, body: JSON.parse(text) as unknown };
    } catch (err) {
      throw err instanceof AgentUnreachable ? err : new AgentUnreachable("the agent failed while handling the request");
    } finally {
      clearTimeout(deadline);
      signal?.removeEventListener("abort", onAbort);
    }
  }
}

/** A network error in words, without addresses that could carry credentials. */
function describe(err: unknown): string {
  const code = (err as { code?: string }).code;
  switch (code) {
    case "ENOENT": return "the socket does not exist (is the agent running?)";
    case "ECONNREFUSED": return "connection refused (is the agent running?)";
    case "EACCES": return "permission denied on the socket";
    case "ECONNRESET": return "the connection was reset";
    case "ETIMEDOUT": return "the connection timed out";
    case "ERR_INVALID_CHAR": return "the request could not be made (a header, such as the token, holds a character HTTP cannot carry)";
    case "DEPTH_ZERO_SELF_SIGNED_CERT":
    case "SELF_SIGNED_CERT_IN_CHAIN":
    case "UNABLE_TO_VERIFY_LEAF_SIGNATURE":
    case "CERT_HAS_EXPIRED":
    case "ERR_TLS_CERT_ALTNAME_INVALID":
      return `the agent's TLS certificate was refused (${code})`;
    default:
      return code ? `network error ${code}` : "network error";
  }
}
