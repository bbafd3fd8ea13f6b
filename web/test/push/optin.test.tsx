/**
 * The push opt-in (P-27, U-4) with a fake browser: permission, a subscription made with Collie's
 * VAPID key and registered with the daemon, a re-subscription that names the one it replaces,
 * opting out, and the words the Settings row shows for each state and failure.
 */
import { afterEach, describe, expect, test } from "vitest";
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { Api } from "../../src/app/api.ts";
import { memoryOutboxStorage } from "../../src/app/outbox.ts";
import { Phone } from "../../src/app/phone.ts";
import { PhoneContext } from "../../src/app/react.ts";
import { fromBase64Url, PUSH_WORDS, PushError, pushState, renewPush, SUBSCRIBE_TIMEOUT_MS, turnPushOff, turnPushOn, type PushEnv } from "../../src/app/push.ts";
import { PushSetting } from "../../src/features/dashboard/PushSetting.tsx";

afterEach(() => cleanup());

const KEY = `B${"A".repeat(85)}w`; // 87 base64url characters: 65 bytes
const OTHER_KEY = `B${"Q".repeat(85)}w`;

class FakeSubscription {
  unsubscribed = false;
  readonly endpoint: string;
  readonly key: Uint8Array;
  constructor(endpoint: string, key: Uint8Array) {
    this.endpoint = endpoint;
    this.key = key;
  }
  get options() {
    return { applicationServerKey: this.key.buffer as ArrayBuffer, userVisibleOnly: true };
  }
  toJSON() {
    return { endpoint: this.endpoint, expirationTime: null, keys: { p256dh: "BP256dhKeyOfTheBrowser", auth: "authSecret16bytes" } };
  }
  async unsubscribe() {
    this.unsubscribed = true;
    fake.current = null;
    return true;
  }
}

const fake = {
  current: null as FakeSubscription | null,
  subscribeCalls: [] as { userVisibleOnly?: boolean; applicationServerKey?: unknown }[],
  failSubscribe: null as Error | null,
  /** The push service never answers (a browser without a reachable one, issue 37 item 6). */
  hangSubscribe: false,
  endpointN: 0,
};

function env(opts: { permission?: NotificationPermission | null; grant?: NotificationPermission; registration?: boolean; replies?: Record<string, { status: number; body: unknown }> } = {}) {
  const calls: { method: string; path: string; body: unknown }[] = [];
  const replies: Record<string, { status: number; body: unknown }> = {
    "GET /api/push/key": { status: 200, body: { publicKey: KEY } },
    "POST /api/push/subscriptions": { status: 201, body: { ok: true, replaced: false } },
    "DELETE /api/push/subscriptions": { status: 200, body: { removed: true } },
    ...opts.replies,
  };
  const fetchImpl = async (input: RequestInfo | URL, init?: RequestInit) => {
    const method = init?.method ?? "GET";
    const path = new URL(String(input), "http://collie.test").pathname;
    calls.push({ method, path, body: typeof init?.body === "string" ? JSON.parse(init.body) : undefined });
    const r = replies[`${method} ${path}`] ?? { status: 404, body: { error: "not-found" } };
    return new Response(JSON.stringify(r.body), { status: r.status });
  };
  let permission = opts.permission === undefined ? "default" : opts.permission;
  const store = new Map<string, string>();
  const pushManager = {
    getSubscription: async () => fake.current,
    subscribe: async (o: { userVisibleOnly?: boolean; applicationServerKey?: unknown }) => {
      fake.subscribeCalls.push(o);
      if (fake.hangSubscribe) return new Promise<never>(() => {});
      if (fake.failSubscribe) throw fake.failSubscribe;
      fake.current = new FakeSubscription(`https://push.example.net/send/${++fake.endpointN}`, o.applicationServerKey as Uint8Array);
      return fake.current;
    },
  };
  const api = new Api("", fetchImpl as typeof fetch);
  // The test's clock: a wait ends only when the test says the time has passed.
  const waits: Array<{ ms: number; done: () => void }> = [];
  const elapse = (ms: number) => {
    for (const w of waits.splice(0)) {
      if (w.ms <= ms) w.done();
      else waits.push(w);
    }
  };
  const e: PushEnv = {
    registration: async () => (opts.registration === false ? undefined : ({ pushManager } as unknown as ServiceWorkerRegistration)),
    permission: () => permission,
    requestPermission: async () => (permission = opts.grant ?? "granted"),
    api,
    storage: { getItem: (k) => store.get(k) ?? null, setItem: (k, v) => void store.set(k, v), removeItem: (k) => void store.delete(k) },
    wait: (ms) => new Promise<void>((done) => waits.push({ ms, done })),
  };
  return { env: e, calls, store, api, elapse };
}

function reset() {
  fake.current = null;
  fake.subscribeCalls = [];
  fake.failSubscribe = null;
  fake.hangSubscribe = false;
}

describe("renewing at app start", () => {
  test("push on here: the same subscription is registered again, with no permission prompt", async () => {
    reset();
    const { env: e, calls } = env({ permission: "granted" });
    fake.current = new FakeSubscription("https://push.example.net/send/kept", fromBase64Url(KEY));
    await renewPush(e);
    expect(fake.subscribeCalls).toHaveLength(0);
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(["GET /api/push/key", "POST /api/push/subscriptions"]);
  });

  test("push off or not granted: nothing is asked and nothing is sent", async () => {
    reset();
    const off = env({ permission: "granted" });
    await renewPush(off.env);
    const notAsked = env({ permission: "default" });
    await renewPush(notAsked.env);
    expect([...off.calls, ...notAsked.calls]).toEqual([]);
    expect(fake.subscribeCalls).toHaveLength(0);
  });
});

describe("turning push on", () => {
  test("asks for permission, subscribes with Collie's key and registers the subscription", async () => {
    reset();
    const { env: e, calls, store } = env();
    expect(await pushState(e)).toBe("off");
    expect(await turnPushOn(e)).toBe("on");
    expect(fake.subscribeCalls).toHaveLength(1);
    expect(fake.subscribeCalls[0]!.userVisibleOnly).toBe(true);
    expect(Array.from(fake.subscribeCalls[0]!.applicationServerKey as Uint8Array)).toEqual(Array.from(fromBase64Url(KEY)));
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(["GET /api/push/key", "POST /api/push/subscriptions"]);
    expect(calls[1]!.body).toEqual({ subscription: { endpoint: "https://push.example.net/send/1", expirationTime: null, keys: { p256dh: "BP256dhKeyOfTheBrowser", auth: "authSecret16bytes" } } });
    expect(store.get("collie.pushEndpoint")).toBe("https://push.example.net/send/1");
    expect(await pushState(e)).toBe("on");
  });

  test("subscribed with an older key: unsubscribes, subscribes again and names the one it replaces", async () => {
    reset();
    const { env: e, calls } = env({ permission: "granted" });
    fake.current = new FakeSubscription("https://push.example.net/send/old", fromBase64Url(OTHER_KEY));
    const old = fake.current;
    expect(await turnPushOn(e)).toBe("on");
    expect(old.unsubscribed).toBe(true);
    const body = calls.find((c) => c.method === "POST")!.body as { replaces?: string; subscription: { endpoint: string } };
    expect(body.replaces).toBe("https://push.example.net/send/old");
    expect(body.subscription.endpoint).not.toBe(body.replaces);
  });

  test("same key: the existing subscription is registered again; a rotated endpoint names the old one", async () => {
    reset();
    const { env: e, calls, store } = env({ permission: "granted" });
    fake.current = new FakeSubscription("https://push.example.net/send/now", fromBase64Url(KEY));
    store.set("collie.pushEndpoint", "https://push.example.net/send/before");
    expect(await turnPushOn(e)).toBe("on");
    expect(fake.subscribeCalls).toHaveLength(0);
    expect((calls.find((c) => c.method === "POST")!.body as { replaces?: string }).replaces).toBe("https://push.example.net/send/before");
    store.set("collie.pushEndpoint", "https://push.example.net/send/now");
    await turnPushOn(e);
    expect(calls.filter((c) => c.method === "POST").at(-1)!.body).not.toHaveProperty("replaces");
  });

  test("the user says no: denied, nothing subscribed", async () => {
    reset();
    const { env: e, calls } = env({ grant: "denied" });
    expect(await turnPushOn(e)).toBe("denied");
    expect(fake.subscribeCalls).toHaveLength(0);
    expect(calls).toHaveLength(0);
  });

  test("failures come back in words", async () => {
    reset();
    await expect(turnPushOn(env({ registration: false }).env)).rejects.toThrow(PUSH_WORDS.unsupported);
    await expect(turnPushOn(env({ permission: null }).env)).rejects.toThrow(PUSH_WORDS.unsupported);
    await expect(turnPushOn(env({ replies: { "GET /api/push/key": { status: 404, body: {} } } }).env)).rejects.toThrow(PUSH_WORDS.noPush);
    fake.failSubscribe = new DOMException("Registration failed - push service error", "AbortError");
    const err = await turnPushOn(env({ permission: "granted" }).env).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PushError);
    // The browser's raw text is not shown: a missing push service is said in Collie's words.
    expect((err as Error).message).toBe(PUSH_WORDS.failed(PUSH_WORDS.noService));
    fake.failSubscribe = new DOMException("Something odd at 0x1f", "InvalidStateError");
    expect(((await turnPushOn(env({ permission: "granted" }).env).catch((e: unknown) => e)) as Error).message).toBe(PUSH_WORDS.failed(PUSH_WORDS.refused));
    fake.failSubscribe = null;
    await expect(turnPushOn(env({ permission: "granted", replies: { "POST /api/push/subscriptions": { status: 400, body: { error: "bad-request", message: "The endpoint must be an https URL." } } } }).env))
      .rejects.toThrow(PUSH_WORDS.failed("The endpoint must be an https URL."));
  });
});

describe("turning push off and the state", () => {
  test("unsubscribes in the browser and tells Collie to forget the endpoint", async () => {
    reset();
    const { env: e, calls, store } = env({ permission: "granted" });
    await turnPushOn(e);
    const sub = fake.current!;
    expect(await turnPushOff(e)).toBe("off");
    expect(sub.unsubscribed).toBe(true);
    expect(calls.at(-1)).toEqual({ method: "DELETE", path: "/api/push/subscriptions", body: { endpoint: sub.endpoint } });
    expect(store.has("collie.pushEndpoint")).toBe(false);
  });
  test("unsupported, denied, off, on", async () => {
    reset();
    expect(await pushState(env({ registration: false }).env)).toBe("unsupported");
    expect(await pushState(env({ permission: null }).env)).toBe("unsupported");
    expect(await pushState(env({ permission: "denied" }).env)).toBe("denied");
    expect(await pushState(env({ permission: "granted" }).env)).toBe("off");
    fake.current = new FakeSubscription("https://push.example.net/send/x", fromBase64Url(KEY));
    expect(await pushState(env({ permission: "granted" }).env)).toBe("on");
  });
});

describe("the Settings row (P-27)", () => {
  function renderRow(e: PushEnv) {
    const phone = new Phone({ api: new Api("", (async () => new Response("{}")) as typeof fetch), storage: memoryOutboxStorage() });
    return render(
      <PhoneContext.Provider value={phone}>
        <PushSetting env={e} />
      </PhoneContext.Provider>,
    );
  }

  test("off, then on after a tap", async () => {
    reset();
    const { env: e } = env();
    renderRow(e);
    await act(async () => {});
    const toggle = screen.getByRole("switch", { name: PUSH_WORDS.label }) as HTMLInputElement;
    expect(toggle.checked).toBe(false);
    expect(screen.getByRole("status").textContent).toBe(PUSH_WORDS.off);
    await act(async () => {
      fireEvent.click(toggle);
    });
    expect(toggle.checked).toBe(true);
    expect(screen.getByRole("status").textContent).toBe(PUSH_WORDS.on);
  });

  test("a browser without push: the switch is dimmed and says why", async () => {
    reset();
    renderRow(env({ registration: false }).env);
    await act(async () => {});
    expect((screen.getByRole("switch") as HTMLInputElement).disabled).toBe(true);
    expect(screen.getByRole("status").textContent).toBe(PUSH_WORDS.unsupported);
  });

  test("while it works (it can take seconds) the line says so, then where the device stands", async () => {
    reset();
    let grant!: (p: NotificationPermission) => void;
    const { env: e } = env({ permission: "default" });
    e.requestPermission = () => new Promise<NotificationPermission>((r) => (grant = r));
    renderRow(e);
    await act(async () => {});
    await act(async () => {
      fireEvent.click(screen.getByRole("switch"));
    });
    expect(screen.getByRole("status").textContent).toBe(PUSH_WORDS.turningOn);
    expect(screen.getByRole("switch").getAttribute("aria-busy")).toBe("true");
    await act(async () => grant("denied"));
    expect(screen.getByRole("status").textContent).not.toBe(PUSH_WORDS.turningOn);
  });

  test("a push service that never answers: after 10 s the line says so and the switch works again", async () => {
    reset();
    fake.hangSubscribe = true;
    const { env: e, elapse } = env({ permission: "granted" });
    renderRow(e);
    await act(async () => {});
    await act(async () => {
      fireEvent.click(screen.getByRole("switch"));
    });
    expect(screen.getByRole("status").textContent).toBe(PUSH_WORDS.turningOn);
    expect((screen.getByRole("switch") as HTMLInputElement).disabled).toBe(true);
    await act(async () => elapse(SUBSCRIBE_TIMEOUT_MS - 1));
    expect(screen.getByRole("status").textContent).toBe(PUSH_WORDS.turningOn);
    await act(async () => elapse(SUBSCRIBE_TIMEOUT_MS));
    expect(screen.getByRole("status").textContent).toBe(PUSH_WORDS.failed(PUSH_WORDS.timedOut(10)));
    expect(screen.getByRole("status").textContent).toBe("Push notifications could not be turned on: the browser's push service did not answer in 10 seconds. Try again in a moment, or another browser.");
    const toggle = screen.getByRole("switch") as HTMLInputElement;
    expect(toggle.disabled).toBe(false);
    expect(toggle.checked).toBe(false);
    expect(toggle.getAttribute("aria-busy")).toBe("false");
  });

  test("a failure is shown and the switch stays off", async () => {
    reset();
    fake.failSubscribe = new Error("no push service");
    renderRow(env({ permission: "granted" }).env);
    await act(async () => {});
    await act(async () => {
      fireEvent.click(screen.getByRole("switch"));
    });
    expect((screen.getByRole("switch") as HTMLInputElement).checked).toBe(false);
    expect(screen.getByRole("status").textContent).toBe(PUSH_WORDS.failed(PUSH_WORDS.noService));
  });
});
