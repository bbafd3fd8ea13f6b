/**
 * A local push service for tests: `POST /push/<id>` on 127.0.0.1, over http or (with a
 * certificate) https. It records every request (headers and encrypted body) and answers 201, or
 * whatever the test scripts for that id (404/410 to say a subscription is gone, 500/429 to fail).
 */
import { createServer as createHttp, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttps } from "node:https";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";

export interface PushRequest {
  id: string;
  /** The endpoint the request was sent to (the service's origin + path). */
  endpoint: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
  status: number;
}

export class FakePushService {
  readonly requests: PushRequest[] = [];
  readonly #server: Server;
  readonly #scheme: "http" | "https";
  /** Statuses to answer for an id, one per request (the last one repeats); default 201. */
  readonly #script = new Map<string, number[]>();
  readonly #waiters = new Set<() => void>();

  constructor(tls?: { cert: string; key: string }) {
    const handler = (req: IncomingMessage, res: ServerResponse) => this.#handle(req, res);
    this.#scheme = tls ? "https" : "http";
    this.#server = tls ? createHttps({ cert: readFileSync(tls.cert), key: readFileSync(tls.key) }, handler) : createHttp(handler);
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    return this;
  }

  get origin(): string {
    return `${this.#scheme}://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  endpoint(id: string): string {
    return `${this.origin}/push/${id}`;
  }

  /** Answers these statuses to the next requests for `id` (the last one repeats). */
  respond(id: string, ...statuses: number[]): void {
    this.#script.set(id, statuses);
  }

  for(id: string): PushRequest[] {
    return this.requests.filter((r) => r.id === id);
  }

  /** Resolves once `pred` holds for the recorded requests (checked on each new request). */
  async waitFor(pred: (reqs: PushRequest[]) => boolean, what: string, ms = 15_000): Promise<void> {
    if (pred(this.requests)) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error(`gave up waiting for: ${what} (saw ${this.requests.length} push requests)`));
      }, ms);
      const check = () => {
        if (!pred(this.requests)) return;
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve();
      };
      this.#waiters.add(check);
    });
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const m = /^\/push\/([^/?]+)$/.exec(req.url ?? "");
      const id = m?.[1] ?? "";
      const script = this.#script.get(id);
      const status = !m || req.method !== "POST" ? 404 : script && script.length > 0 ? (script.length > 1 ? script.shift()! : script[0]!) : 201;
      this.requests.push({ id, endpoint: `${this.origin}${req.url ?? ""}`, headers: req.headers, body: Buffer.concat(chunks), status });
      res.writeHead(status, { "content-type": "application/json" });
      res.end(status >= 400 ? JSON.stringify({ reason: status === 410 ? "Unregistered" : "Error" }) : "");
      for (const w of [...this.#waiters]) w();
    });
  }
}
