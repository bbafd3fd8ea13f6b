/**
 * A phone, as far as Collie can tell: the `/api/live` WebSocket (snapshot, then numbered deltas;
 * `watch` for the chats on screen; a tap's answer as an `act`, as the PWA sends it while its socket
 * is open) and the phone API over keep-alive HTTP. Every message is parsed, as the PWA does.
 */
import { randomUUID } from "node:crypto";
import { Agent, request } from "node:http";
import WebSocket from "ws";
import type { LiveFrame, LiveMessage } from "@colliepwa/shared";
import type { Answer } from "@colliepwa/durable-sdk/wire";
import { nowMs } from "./lib.ts";

const USE_FETCH = process.env.BENCH_PHONE_FETCH === "1";
const USE_HTTP = process.env.BENCH_PHONE_HTTP === "1";

export class Phone {
  readonly url: string;
  readonly #token: string;
  readonly #agent = new Agent({ keepAlive: true });
  readonly #ws: WebSocket;
  readonly #listeners = new Set<(m: LiveMessage, at: number) => void>();
  readonly #acts = new Map<number, (r: { status: number; body: unknown }) => void>();
  #nextAct = 0;
  readonly counts: Record<string, number> = {};
  bytes = 0;
  messages = 0;
  seq = 0;

  private constructor(url: string, token: string, ws: WebSocket) {
    this.url = url;
    this.#token = token;
    this.#ws = ws;
    ws.on("message", (data: Buffer) => {
      const frame = JSON.parse(data.toString("utf8")) as LiveFrame;
      const at = nowMs();
      if (frame.type === "act-reply") {
        const act = this.#acts.get(frame.id);
        this.#acts.delete(frame.id);
        act?.({ status: frame.status, body: frame.body });
        return;
      }
      const m = frame;
      this.messages++;
      this.bytes += data.length;
      this.counts[m.type] = (this.counts[m.type] ?? 0) + 1;
      this.seq = m.seq;
      for (const l of this.#listeners) l(m, at);
    });
  }

  /** Connects as a paired device (its token) and waits for the snapshot. */
  static async connect(url: string, token: string): Promise<Phone> {
    const ws = new WebSocket(`${url.replace(/^http/, "ws")}/api/live`, { perMessageDeflate: false, headers: { authorization: `Bearer ${token}` } });
    const phone = new Phone(url, token, ws);
    await new Promise<void>((resolve, reject) => {
      const off = phone.on((m) => {
        if (m.type === "snapshot") {
          off();
          resolve();
        }
      });
      ws.once("error", reject);
    });
    return phone;
  }

  on(listener: (m: LiveMessage, at: number) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  watch(agent: string, pane: string): void {
    this.#ws.send(JSON.stringify({ type: "watch", agent, pane }));
  }

  /**
   * Taps an answer with a fresh request id: as the PWA does, an `act` on the live socket
   * (docs/phone-api.md "Actions on the live socket"); `BENCH_PHONE_HTTP=1` POSTs it instead.
   */
  answer(agent: string, pane: string, askId: string, revision: string, answer: Answer): Promise<{ status: number; body: unknown }> {
    const e = encodeURIComponent;
    const path = `/api/agents/${e(agent)}/panes/${e(pane)}/asks/${e(askId)}/answer`;
    const body = { requestId: randomUUID(), revision, answer };
    return USE_HTTP ? this.post(path, body) : this.act(path, body);
  }

  /** An action as an `act` on the live socket; resolves with its `act-reply`. */
  act(path: string, body: unknown): Promise<{ status: number; body: unknown }> {
    const id = this.#nextAct++;
    return new Promise((resolve) => {
      this.#acts.set(id, resolve);
      this.#ws.send(JSON.stringify({ type: "act", id, path, body }));
    });
  }

  /**
   * A POST on a keep-alive connection. `fetch` (undici) costs this process about half a
   * millisecond per request before a byte is written, more than the hop itself; a browser's fetch
   * does not, so the phone uses `node:http` (BENCH_PHONE_FETCH=1 switches to fetch).
   */
  async post(path: string, body: unknown): Promise<{ status: number; body: unknown }> {
    const payload = JSON.stringify(body);
    const headers = { "content-type": "application/json", authorization: `Bearer ${this.#token}` };
    if (USE_FETCH) {
      const res = await fetch(`${this.url}${path}`, { method: "POST", headers, body: payload });
      return { status: res.status, body: await res.json() };
    }
    return new Promise((resolve, reject) => {
      const req = request(`${this.url}${path}`, { method: "POST", agent: this.#agent, headers: { ...headers, "content-length": Buffer.byteLength(payload) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
          } catch (err) {
            reject(err as Error);
          }
        });
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(payload);
    });
  }

  close(): void {
    this.#agent.destroy();
    this.#ws.close();
  }
}
