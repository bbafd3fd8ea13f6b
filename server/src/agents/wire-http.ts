/**
 * A small HTTP/1.1 client for Collie's requests to its agents over a Unix socket or plain http on
 * loopback (D-1, W-1; issue 31). Node's `http.request` builds a ClientRequest, an IncomingMessage
 * and their streams for every request, and on a daemon that sleeps between taps that machinery
 * runs cold: a request and its reply took 190–210 µs of the caller's time where this client's take
 * 65–80 (both sent every 5 ms over a Unix socket on the bench machine). The events long-poll
 * makes one request per page, so this is on every ask's way to the phone and every answer's way
 * to the agent; the daemon's CPU per events page under load fell by a third with it.
 *
 * Every byte of a reply comes from outside and is read by `ReplyReader` before anything looks at
 * it: a status line and header lines of the shapes HTTP/1.1 allows, a body framed by one
 * Content-Length or by chunked encoding or by the connection's end, each within its size cap. A
 * reply that is anything else is refused (`MalformedReply`) and its connection closed, never
 * used again. Header values Collie sends are checked too: a token with a character HTTP cannot
 * carry fails the request (ERR_INVALID_CHAR), as it did with `http.request`.
 *
 * https stays with `node:https` (client.ts): TLS is not this module's job.
 */
import { connect, type Socket } from "node:net";
import { StringDecoder } from "node:string_decoder";

/** A reply head (status line and headers) larger than this is refused. */
export const MAX_HEAD_BYTES = 64 * 1024;
/** A chunk-size line or the trailer section larger than this is refused. */
const MAX_CHUNK_LINE = 1024;
/** Interim (1xx) replies before the reply itself; an agent sending them without end is refused. */
export const MAX_INTERIM = 8;

/** A reply that is not HTTP/1.1 as Collie reads it. */
export class MalformedReply extends Error {
  override name = "MalformedReply";
}

/** A kept connection that closed before any byte of a reply came back. */
class NoReply extends Error {
  readonly code = "ECONNRESET";
  constructor() {
    super("the connection closed before the reply started");
  }
}

/** A header value or path this client refuses to send (`code` as Node's http names it). */
export class InvalidRequest extends Error {
  readonly code = "ERR_INVALID_CHAR";
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*$/;
const STATUS_LINE = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: [^\r\n]*)?$/;
const VALUE = /^[\t\x20-\x7e]*$/;
const PATH = /^\/[\x21-\x7e]*$/;

type Framing = { kind: "length"; left: number } | { kind: "chunked" } | { kind: "close" };

/**
 * Reads one HTTP/1.1 reply from the bytes fed to it. `feed` returns true once the reply is whole;
 * `end` says the connection closed (which completes a body framed by the connection's end). Any
 * violation throws MalformedReply. Interim replies (1xx) are skipped.
 */
export class ReplyReader {
  status = 0;
  /** Whether the connection may carry another request after this reply. */
  keepAlive = true;
  readonly #maxBody: number;
  readonly #decoder = new StringDecoder("utf8");
  #text = "";
  #bodyBytes = 0;
  /**
   * The head read so far, as latin1 text (one character per byte, so its length is its size in
   * bytes), or null once the final head was read. Text, not a Buffer grown chunk by chunk: a head
   * trickled in a byte at a time would copy itself once per byte (64 KB × 64 KB).
   */
  #head: string | null = "";
  #framing: Framing | null = null;
  /** Chunked state: reading a size line, the chunk's bytes, the CRLF after them, or the trailer. */
  #chunk: { state: "size" | "data" | "crlf" | "trailer"; left: number; line: string; trailer: number } = { state: "size", left: 0, line: "", trailer: 0 };
  #done = false;
  #interim = 0;

  constructor(maxBody: number) {
    this.#maxBody = maxBody;
  }

  get text(): string {
    return this.#text;
  }

  get done(): boolean {
    return this.#done;
  }

  feed(chunk: Buffer): boolean {
    if (this.#done) {
      // Bytes after the reply: nothing was asked for them; this connection is not used again.
      if (chunk.length > 0) this.keepAlive = false;
      return true;
    }
    let rest: Buffer = chunk;
    while (this.#head !== null) {
      const before = this.#head.length;
      // Only as much as a head may still take is read as text (a first chunk may hold a large body).
      this.#head += rest.toString("latin1", 0, Math.min(rest.length, MAX_HEAD_BYTES + 4 - before));
      const end = this.#head.indexOf("\r\n\r\n", Math.max(0, before - 3));
      if (end < 0) {
        if (this.#head.length > MAX_HEAD_BYTES) throw new MalformedReply(`reply head larger than ${MAX_HEAD_BYTES} bytes`);
        return false;
      }
      if (end > MAX_HEAD_BYTES) throw new MalformedReply(`reply head larger than ${MAX_HEAD_BYTES} bytes`);
      // The terminator was not in what came before (`before - 3` on), so it ends in this chunk.
      rest = rest.subarray(end + 4 - before);
      const interim = this.#readHead(this.#head.slice(0, end));
      this.#head = interim ? "" : null;
      if (interim && rest.length === 0) return false;
    }
    if (rest.length > 0) {
      if (this.#done) this.keepAlive = false; // bytes after a reply without a body
      else this.#body(rest);
    }
    return this.#done;
  }

  /** The connection ended: a body read to its end is whole; anything else was cut off. */
  end(): void {
    if (this.#done) return;
    if (this.#head === null && this.#framing?.kind === "close") {
      this.#text += this.#decoder.end();
      this.#done = true;
      return;
    }
    throw new MalformedReply("the connection closed before the reply was whole");
  }

  /** Reads a head; true when it was an interim (1xx) reply and another head follows. */
  #readHead(head: string): boolean {
    const lines = head.split("\r\n");
    const status = STATUS_LINE.exec(lines[0]!);
    if (!status) throw new MalformedReply("the reply does not start with an HTTP/1.x status line");
    const code = Number(status[2]);
    if (code === 101) throw new MalformedReply("the agent switched protocols");
    if (code < 200) {
      if (++this.#interim > MAX_INTERIM) throw new MalformedReply(`more than ${MAX_INTERIM} interim replies`);
      return true;
    }
    let length: number | null = null;
    let chunked = false;
    let keepAlive = status[1] === "1";
    for (let i = 1; i < lines.length; i++) {
      const m = HEADER_LINE.exec(lines[i]!);
      if (!m) throw new MalformedReply("a reply header line is malformed");
      const name = m[1]!.toLowerCase();
      const value = m[2]!;
      if (name === "content-length") {
        if (!/^\d{1,15}$/.test(value)) throw new MalformedReply("the reply's Content-Length is not a length");
        const n = Number(value);
        if (length !== null && length !== n) throw new MalformedReply("the reply has two different Content-Lengths");
        length = n;
      } else if (name === "transfer-encoding") {
        if (value.toLowerCase() !== "chunked" || chunked) throw new MalformedReply("the reply's Transfer-Encoding is not chunked");
        chunked = true;
      } else if (name === "connection") {
        const tokens = value.toLowerCase().split(",").map((t) => t.trim());
        if (tokens.includes("close")) keepAlive = false;
        else if (tokens.includes("keep-alive")) keepAlive = true;
      }
    }
    if (chunked && length !== null) throw new MalformedReply("the reply has both a Content-Length and chunked encoding");
    this.status = code;
    this.keepAlive = keepAlive;
    if (code === 204 || code === 304 || length === 0) {
      this.#done = true;
    } else if (length !== null) {
      if (length > this.#maxBody) throw new MalformedReply(`reply larger than ${this.#maxBody} bytes`);
      this.#framing = { kind: "length", left: length };
    } else if (chunked) {
      this.#framing = { kind: "chunked" };
    } else {
      this.#framing = { kind: "close" };
      this.keepAlive = false;
    }
    return false;
  }

  #take(bytes: Buffer): void {
    this.#bodyBytes += bytes.length;
    if (this.#bodyBytes > this.#maxBody) throw new MalformedReply(`reply larger than ${this.#maxBody} bytes`);
    this.#text += this.#decoder.write(bytes);
  }

  #finish(rest: Buffer): void {
    this.#text += this.#decoder.end();
    this.#done = true;
    if (rest.length > 0) this.keepAlive = false;
  }

  #body(bytes: Buffer): void {
    const framing = this.#framing!;
    if (framing.kind === "close") return this.#take(bytes);
    if (framing.kind === "length") {
      const part = bytes.subarray(0, framing.left);
      framing.left -= part.length;
      this.#take(part);
      if (framing.left === 0) this.#finish(bytes.subarray(part.length));
      return;
    }
    this.#chunked(bytes);
  }

  #chunked(bytes: Buffer): void {
    const c = this.#chunk;
    let i = 0;
    while (i < bytes.length && !this.#done) {
      if (c.state === "data") {
        const part = bytes.subarray(i, i + c.left);
        this.#take(part);
        c.left -= part.length;
        i += part.length;
        if (c.left === 0) {
          c.state = "crlf";
          c.line = "";
        }
        continue;
      }
      // A line: the chunk size, the CRLF after a chunk, or one line of the trailer.
      const nl = bytes.indexOf(10, i);
      const piece = bytes.toString("latin1", i, nl < 0 ? bytes.length : nl + 1);
      i = nl < 0 ? bytes.length : nl + 1;
      c.line += piece;
      if (c.line.length > MAX_CHUNK_LINE) throw new MalformedReply("a chunk line of the reply is too long");
      if (nl < 0) return;
      if (!c.line.endsWith("\r\n")) throw new MalformedReply("a chunk line of the reply does not end with CRLF");
      const line = c.line.slice(0, -2);
      c.line = "";
      if (c.state === "crlf") {
        if (line !== "") throw new MalformedReply("a chunk of the reply is longer than its size");
        c.state = "size";
      } else if (c.state === "size") {
        const m = /^([0-9a-fA-F]{1,15})(?:[ \t]*;.*)?$/.exec(line);
        if (!m) throw new MalformedReply("a chunk size of the reply is malformed");
        const size = parseInt(m[1]!, 16);
        if (size === 0) c.state = "trailer";
        else {
          if (this.#bodyBytes + size > this.#maxBody) throw new MalformedReply(`reply larger than ${this.#maxBody} bytes`);
          c.state = "data";
          c.left = size;
        }
      } else {
        // The trailer's fields are not read; an empty line ends the reply.
        if (line === "") this.#finish(bytes.subarray(i));
        else {
          c.trailer += line.length;
          if (c.trailer > MAX_HEAD_BYTES || !HEADER_LINE.test(line)) throw new MalformedReply("the reply's trailer is malformed");
        }
      }
    }
  }
}

/** Where the agent listens: its Unix socket, or a host and port of plain http. */
export type WireTarget = { path: string } | { host: string; port: number };

export interface WireRequestOptions {
  method: string;
  path: string;
  headers: Readonly<Record<string, string>>;
  body?: string;
  maxBody: number;
  /** Ends the request (its connection is closed): a deadline or a cancel. */
  signal: AbortSignal;
}

/**
 * Keep-alive connections to one agent, at most `maxSockets` at once (the long-poll, an action,
 * a view read …); a request beyond them waits for one, in order. A connection is used again only
 * after a whole reply that allowed it; an idle one does not keep the daemon's process alive.
 */
export class WireHttp {
  readonly #target: WireTarget;
  readonly #host: string;
  readonly #maxSockets: number;
  readonly #idle: Socket[] = [];
  #open = 0;
  readonly #waiting: (() => void)[] = [];
  /** A connection's error, kept for a request that starts after it came. */
  readonly #failed = new WeakMap<Socket, Error>();
  /** Connections carrying a request now: closing the client ends them too. */
  readonly #busy = new Set<Socket>();
  /** How each idle connection's watch is taken off when it is used again. */
  readonly #idleWatch = new Map<Socket, () => void>();
  #closed = false;

  constructor(target: WireTarget, maxSockets = 8) {
    this.#target = target;
    this.#host = "path" in target ? "localhost" : target.host.includes(":") ? `[${target.host}]:${target.port}` : `${target.host}:${target.port}`;
    this.#maxSockets = maxSockets;
  }

  /**
   * The reply's status and body text; rejects with the socket's error, MalformedReply,
   * InvalidRequest or the signal's reason. A kept connection the agent closed just as the request
   * went out (no byte of a reply came back) is replaced once by a new one: a request to an agent is
   * safe to repeat (reads; writes carry the phone's request id, which the agent's receipts answer
   * as a replay, S-28).
   */
  async request(opts: WireRequestOptions): Promise<{ status: number; text: string }> {
    const head = this.#head(opts);
    if (opts.signal.aborted) throw opts.signal.reason;
    const { socket, reused } = await this.#socket(opts.signal);
    try {
      return await this.#exchange(socket, reused, head, opts);
    } catch (err) {
      if (!reused || !(err instanceof NoReply) || opts.signal.aborted) throw err;
      const fresh = await this.#socket(opts.signal, true);
      return this.#exchange(fresh.socket, false, head, opts);
    }
  }

  #exchange(socket: Socket, reused: boolean, head: string, opts: WireRequestOptions): Promise<{ status: number; text: string }> {
    // Ended while a connection was found (the signal fires once, and may have fired already): a
    // kept connection goes back unused, a new one is closed.
    if (opts.signal.aborted) {
      this.#release(socket, reused);
      return Promise.reject(opts.signal.reason);
    }
    // A new connection that failed before its request was on it.
    if (socket.destroyed) {
      this.#release(socket, false);
      return Promise.reject(this.#failed.get(socket) ?? new NoReply());
    }
    return new Promise((resolve, reject) => {
      let received = false;
      const reader = new ReplyReader(opts.maxBody);
      let settled = false;
      const finish = (err: unknown, reusable: boolean) => {
        if (settled) return;
        settled = true;
        socket.removeListener("data", onData);
        socket.removeListener("end", onEnd);
        socket.removeListener("error", onError);
        socket.removeListener("close", onClose);
        opts.signal.removeEventListener("abort", onAbort);
        this.#busy.delete(socket);
        if (err === null) resolve({ status: reader.status, text: reader.text });
        else reject(err);
        this.#release(socket, reusable);
      };
      const onData = (chunk: Buffer) => {
        received = true;
        try {
          if (reader.feed(chunk)) finish(null, reader.keepAlive);
        } catch (err) {
          finish(err, false);
        }
      };
      const onEnd = () => {
        if (!received) return finish(this.#failed.get(socket) ?? new NoReply(), false);
        try {
          reader.end();
          finish(null, false);
        } catch (err) {
          finish(err, false);
        }
      };
      const onError = (err: Error & { code?: string }) => finish(!received && (err.code === "ECONNRESET" || err.code === "EPIPE") ? new NoReply() : err, false);
      const onClose = () => onEnd();
      const onAbort = () => finish(opts.signal.reason, false);
      socket.on("data", onData);
      socket.on("end", onEnd);
      socket.on("error", onError);
      socket.on("close", onClose);
      opts.signal.addEventListener("abort", onAbort, { once: true });
      this.#busy.add(socket);
      socket.ref();
      socket.write(opts.body === undefined ? head : head + opts.body);
    });
  }

  /** Closes every connection; requests still running fail, and so do those waiting for one. */
  close(): void {
    this.#closed = true;
    for (const s of this.#idle.splice(0)) {
      this.#idleWatch.get(s)?.();
      s.destroy();
    }
    for (const s of this.#busy) s.destroy(new Error("the client is closed"));
    for (const go of this.#waiting.splice(0)) go();
  }

  #head(opts: WireRequestOptions): string {
    if (!PATH.test(opts.path)) throw new InvalidRequest("the request path holds a character HTTP cannot carry");
    let head = `${opts.method} ${opts.path} HTTP/1.1\r\nhost: ${this.#host}\r\n`;
    for (const [name, value] of Object.entries(opts.headers)) {
      if (!TOKEN.test(name) || !VALUE.test(value)) throw new InvalidRequest("a header holds a character HTTP cannot carry");
      head += `${name}: ${value}\r\n`;
    }
    if (opts.body !== undefined) head += `content-length: ${Buffer.byteLength(opts.body)}\r\n`;
    return `${head}connection: keep-alive\r\n\r\n`;
  }

  /** A connection for one request: a kept one (`reused`) unless `fresh`, or a new one. */
  async #socket(signal: AbortSignal, fresh = false): Promise<{ socket: Socket; reused: boolean }> {
    for (;;) {
      if (this.#closed) throw new Error("the client is closed");
      const idle = fresh ? undefined : this.#idle.pop();
      if (idle) {
        this.#idleWatch.get(idle)?.();
        return { socket: idle, reused: true };
      }
      if (this.#open < this.#maxSockets) {
        this.#open++;
        return { socket: this.#connect(), reused: false };
      }
      if (fresh && this.#idle.length > 0) {
        // At the cap with kept ones idle: one of those makes room for the new connection.
        this.#idle.shift()!.destroy();
      }
      // All connections busy: wait for one to come back or close (or for the signal).
      await new Promise<void>((go) => {
        const onAbort = () => {
          const i = this.#waiting.indexOf(wake);
          if (i >= 0) this.#waiting.splice(i, 1);
          go();
        };
        const wake = () => {
          signal.removeEventListener("abort", onAbort);
          go();
        };
        this.#waiting.push(wake);
        signal.addEventListener("abort", onAbort, { once: true });
      });
      if (signal.aborted) throw signal.reason;
    }
  }

  #connect(): Socket {
    const socket = "path" in this.#target ? connect(this.#target.path) : connect(this.#target.port, this.#target.host);
    socket.setNoDelay(true);
    // Listened to from the first moment: a failure to connect may come before the request's own
    // listener is on (an unheard `error` would end the daemon); the request reads it from here.
    socket.on("error", (err) => this.#failed.set(socket, err));
    // Counted open until it closes, whoever closes it.
    socket.once("close", () => {
      this.#open--;
      this.#waiting.shift()?.();
    });
    return socket;
  }

  /** A connection whose request ended: kept for the next one, or closed. */
  #release(socket: Socket, reusable: boolean): void {
    if (!reusable || this.#closed || socket.destroyed) {
      socket.destroy();
      return;
    }
    // Idle: it does not hold the daemon's process open, and one the agent closes meanwhile, or
    // sends bytes on unasked, goes.
    socket.unref();
    const gone = () => {
      unwatch();
      const i = this.#idle.indexOf(socket);
      if (i >= 0) this.#idle.splice(i, 1);
      socket.destroy();
    };
    const unwatch = () => {
      this.#idleWatch.delete(socket);
      socket.removeListener("close", gone).removeListener("error", gone).removeListener("data", gone).removeListener("end", gone);
    };
    socket.on("close", gone).on("error", gone).on("data", gone).on("end", gone);
    this.#idleWatch.set(socket, unwatch);
    this.#idle.push(socket);
    this.#waiting.shift()?.();
  }
}
