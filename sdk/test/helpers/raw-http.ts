/**
 * HTTP/1.1 as bytes, for the fuzz and fault suites: a request is written exactly as given (invalid
 * UTF-8, wrong lengths, hostile headers and all) over a Unix socket or loopback TCP, and the reply
 * is read until the server closes. Every request has a deadline: a server that does not answer in
 * time is a `hang`, never a stuck test.
 */
import { connect, type Socket } from "node:net";

export type Where = { socket: string } | { port: number; host?: string };

export interface RawReply {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The body as UTF-8 text. */
  text: string;
}

export class RawHang extends Error {
  override name = "RawHang";
}

/** The server closed (or reset) the connection without a complete HTTP reply. */
export class RawNoReply extends Error {
  override name = "RawNoReply";
}

/** Builds request bytes: a request line, headers (`Connection: close` unless given) and a body. */
export function requestBytes(method: string, path: string | Buffer, headers: Record<string, string | Buffer> = {}, body?: Buffer | string): Buffer {
  const b = body === undefined ? undefined : typeof body === "string" ? Buffer.from(body, "utf8") : body;
  const lower = new Set(Object.keys(headers).map((h) => h.toLowerCase()));
  const all: [string, string | Buffer][] = [...(lower.has("host") ? [] : [["Host", "collie.test"] as [string, string]]), ...Object.entries(headers)];
  if (!lower.has("connection")) all.push(["Connection", "close"]);
  if (b !== undefined && !lower.has("content-length") && !lower.has("transfer-encoding")) all.push(["Content-Length", String(b.length)]);
  const parts: Buffer[] = [Buffer.from(`${method} `), typeof path === "string" ? Buffer.from(path, "utf8") : path, Buffer.from(" HTTP/1.1\r\n")];
  for (const [k, v] of all) parts.push(Buffer.from(`${k}: `), typeof v === "string" ? Buffer.from(v, "utf8") : v, Buffer.from("\r\n"));
  parts.push(Buffer.from("\r\n"));
  if (b !== undefined) parts.push(b);
  return Buffer.concat(parts);
}

function open(where: Where): Socket {
  return "socket" in where ? connect({ path: where.socket }) : connect({ port: where.port, host: where.host ?? "127.0.0.1" });
}

/**
 * Sends raw request bytes and reads the reply until the server closes the connection (the request
 * says `Connection: close`). Rejects with RawHang after `deadlineMs`, and with the socket's error
 * when the server resets the connection before any reply.
 */
export function rawRequest(where: Where, bytes: Buffer, deadlineMs = 5000, opts: { halfClose?: boolean } = {}): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const socket = open(where);
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (err: Error | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      if (err) return reject(err instanceof RawHang ? err : new RawNoReply(`${(err as { code?: string }).code ?? err.message} before any reply`));
      try {
        resolve(parseReply(Buffer.concat(chunks)));
      } catch (e) {
        reject(new RawNoReply((e as Error).message));
      }
    };
    const timer = setTimeout(() => finish(new RawHang(`no complete reply within ${deadlineMs} ms (${Buffer.concat(chunks).length} bytes so far)`)), deadlineMs);
    socket.on("data", (c: Buffer) => {
      chunks.push(c);
      // A complete reply with a Content-Length is enough; the server may keep the socket a moment.
      const got = Buffer.concat(chunks);
      const end = got.indexOf("\r\n\r\n");
      if (end < 0) return;
      const m = /\r\ncontent-length:\s*(\d+)/i.exec(got.subarray(0, end).toString("latin1"));
      if (m && got.length >= end + 4 + Number(m[1])) finish(null);
    });
    socket.on("end", () => finish(null));
    socket.on("close", () => finish(null));
    socket.on("error", (err) => {
      if (chunks.length > 0) finish(null);
      else finish(err);
    });
    // `halfClose` ends the sending side after the request: a body shorter than its Content-Length
    // then ends there instead of keeping the server waiting for bytes that never come. (node:http
    // treats a half-close as the caller going away, so a long-poll must not use it.)
    if (opts.halfClose) socket.end(bytes);
    else socket.write(bytes);
  });
}

/** Parses `HTTP/1.1 <status> …` headers and a body (Content-Length, chunked, or until close). */
export function parseReply(raw: Buffer): RawReply {
  const end = raw.indexOf("\r\n\r\n");
  if (end < 0) throw new Error(`no HTTP reply (${raw.length} bytes): ${JSON.stringify(raw.subarray(0, 120).toString("latin1"))}`);
  const head = raw.subarray(0, end).toString("latin1").split("\r\n");
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? "");
  if (!m) throw new Error(`not an HTTP status line: ${JSON.stringify(head[0])}`);
  const headers: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const i = line.indexOf(":");
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  let body = raw.subarray(end + 4);
  if (headers["content-length"] !== undefined) body = body.subarray(0, Number(headers["content-length"]));
  else if (/chunked/i.test(headers["transfer-encoding"] ?? "")) body = dechunk(body);
  return { status: Number(m[1]), headers, body, text: body.toString("utf8") };
}

function dechunk(buf: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = buf.indexOf("\r\n", at);
    if (eol < 0) break;
    const size = parseInt(buf.subarray(at, eol).toString("latin1"), 16);
    if (!Number.isFinite(size) || size === 0) break;
    out.push(buf.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(out);
}

/**
 * Sends a request and drops the connection at a chosen moment, the way a phone on a flaky network
 * loses it: `"before-end"` writes only part of the request, `"after-write"` destroys the socket as
 * soon as the request is written (the server handles it, the reply is lost), `"after-ms"` waits
 * `ms` first. Resolves once the socket is gone; the reply, if any came, is ignored.
 */
export function dropRequest(where: Where, bytes: Buffer, how: { at: "before-end" } | { at: "after-write" } | { at: "after-ms"; ms: number }): Promise<void> {
  return new Promise((resolve) => {
    const socket = open(where);
    socket.on("error", () => {});
    socket.on("close", () => resolve());
    socket.once("connect", () => {
      if (how.at === "before-end") {
        socket.write(bytes.subarray(0, Math.max(1, Math.floor(bytes.length / 2))), () => socket.destroy());
        return;
      }
      socket.write(bytes, () => {
        if (how.at === "after-write") socket.destroy();
        else setTimeout(() => socket.destroy(), how.ms);
      });
    });
  });
}

/** Runs `fn` over `items` with at most `limit` running at once. */
export async function pool<T>(items: Iterable<T>, limit: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  const it = items[Symbol.iterator]();
  let index = 0;
  const worker = async () => {
    for (;;) {
      const next = it.next();
      if (next.done) return;
      await fn(next.value, index++);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
}
