/**
 * The spellings of one route path that an attacker sends to find a gate that reads the URL text
 * while the router reads something else (the security issue's critical hole): every letter of the
 * path percent-encoded one at a time and all at once (lower- and upper-case hex), mixed case, `//`,
 * `/./`, `/x/../`, a trailing `/` or `.`, `;params`, `%2f` for a slash, and the absolute form of a
 * request target (`http://host/path`). Each is sent as the raw request target, over a raw socket,
 * so no client normalizes it first.
 */
import { connect } from "node:net";

const hex = (ch: string, upper: boolean) => {
  const h = ch.charCodeAt(0).toString(16).padStart(2, "0");
  return `%${upper ? h.toUpperCase() : h}`;
};

/** Every odd spelling of `path` (which starts with `/`), without the plain one. */
export function oddForms(path: string, origin: string): string[] {
  const out = new Set<string>();
  const letters = [...path].map((ch, i) => ({ ch, i })).filter(({ ch }) => /[a-z]/i.test(ch));
  for (const { i } of letters) {
    for (const upper of [false, true]) out.add(path.slice(0, i) + hex(path[i]!, upper) + path.slice(i + 1));
  }
  out.add([...path].map((ch) => (/[a-z]/i.test(ch) ? hex(ch, false) : ch)).join(""));
  out.add(path.toUpperCase());
  out.add(path.replace(/^\/api/, "/Api"));
  out.add(path.replace(/^\/api/, "/aPI"));
  out.add(`/${path}`);
  out.add(path.replace(/\//g, "//"));
  out.add(`/.${path}`);
  out.add(path.replace(/^\/api\//, "/api/./"));
  out.add(`/x/..${path}`);
  out.add(path.replace(/^\/api\//, "/api/x/../"));
  out.add(`${path}/`);
  out.add(`${path}.`);
  out.add(path.replace(/^\/api/, "/api."));
  out.add(path.replace(/^\/api/, "/api;x=1"));
  out.add(`${path};x=1`);
  out.add(path.replace(/^\/api\//, "/api%2f"));
  out.add(path.replace(/^\/api\//, "/api%2F"));
  out.add(`/${path.slice(1).replace(/\//g, "%2f")}`);
  out.add(path.replace(/^\/api/, "/%61pi"));
  out.add(`${origin}${path}`);
  out.add(`${origin}${path.replace(/^\/api/, "/%61pi")}`);
  out.add(`${origin}/${path}`);
  out.delete(path);
  return [...out];
}

export interface RawReply {
  status: number;
  /** True when Collie closed the connection after answering. */
  closed: boolean;
}

/**
 * One raw HTTP/1.1 request with an exact request target, `Connection: close`; resolves with the
 * status line's code once the answer is read. An upgrade request sets the WebSocket headers.
 */
export function rawTarget(port: number, method: string, target: string, opts: { upgrade?: boolean; headers?: Record<string, string>; body?: string } = {}): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    let text = "";
    let status = 0;
    const timer = setTimeout(() => {
      socket.destroy();
      if (status) resolve({ status, closed: false });
      else reject(new Error(`no answer to ${method} ${target}`));
    }, 5000);
    const headers: Record<string, string> = {
      host: `127.0.0.1:${port}`,
      ...(opts.upgrade
        ? { connection: "Upgrade", upgrade: "websocket", "sec-websocket-version": "13", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==" }
        : { connection: "close" }),
      ...(opts.body !== undefined ? { "content-type": "application/json", "content-length": String(Buffer.byteLength(opts.body)) } : {}),
      ...opts.headers,
    };
    socket.on("connect", () => {
      socket.write(`${method} ${target} HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join("\r\n")}\r\n\r\n${opts.body ?? ""}`);
    });
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => {
      text += chunk;
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (m) status = Number(m[1]);
      // A 101 keeps the connection open by design: the caller learns it at once.
      if (status === 101) {
        clearTimeout(timer);
        socket.destroy();
        resolve({ status, closed: false });
      }
    });
    socket.on("close", () => {
      clearTimeout(timer);
      if (status) resolve({ status, closed: true });
      else reject(new Error(`connection closed without an answer to ${method} ${target}`));
    });
    socket.on("error", () => {});
  });
}
