/**
 * Actions on the live socket (docs/phone-api.md "Actions on the live socket"; issue 31): a phone
 * whose `/api/live` WebSocket is open sends an action as an `act` — the address and JSON body of
 * the POST it stands for — instead of a request of its own. The request's own work on both ends
 * (a connection's turn, its head, its body) was most of a tap's way to the agent.
 *
 * An act meets what that POST meets, from the same parts, in the same order and words:
 * - the gate: the upgrade's Host and Origin were checked when the socket opened and cannot change;
 *   the device's token is checked again for every act (a revoked device is refused at once);
 * - the route table: the router's own match and decoded parameters (`findRoute`), and only the
 *   action routes (`mayAct`); anything else (no such route, a parameter the router refuses) is
 *   run as the POST itself (`inject`), so it gets that POST's very answer;
 * - the body: the check Fastify's JSON parser makes (prototype keys refused, by the same library),
 *   then the route's schemas compiled by Fastify's own validator compiler, failing in the route's
 *   words (schemas.ts);
 * - the route's handler itself (routes/api.ts `actionHandlers`): the wire's checkers, the agent
 *   or the held store, the decision and the audit line.
 * Its reply is the handler's status and body. A failure of Collie's own is a 500 in the catalog's
 * words and a line in the log, as app.ts's error handler answers a POST.
 */
import { errorCodes, type FastifyInstance, type FastifyReply, type FastifySchemaValidationError } from "fastify";
import { mayAct, PHONE_ROUTES, type PhoneRouteName } from "@colliepwa/shared";
import { PHONE_SCHEMAS } from "@colliepwa/shared/schemas";
import type { WriteRouteName } from "@colliepwa/durable-sdk/wire";
import { apiError, INTERNAL_ERROR_WORDS } from "../errors.ts";
import { UNPAIRED_WORDS } from "../security/gate.ts";
import type { Device } from "../security/devices.ts";
import { schemaErrorText } from "./schemas.ts";
import { scan as scanForPrototypeKeys } from "secure-json-parse";
import type { ActionHandler } from "./api.ts";

export interface ActOutcome {
  status: number;
  body: Record<string, unknown>;
}

type Validate = ((data: unknown) => boolean) & { errors?: FastifySchemaValidationError[] | null };
type Part = "params" | "body";

/** Runs acts for one socket: its upgrade's device token and headers. */
export type ActRunner = (path: string, body: Record<string, unknown>) => Promise<ActOutcome>;

export interface ActDeps {
  handlers: Record<WriteRouteName, ActionHandler>;
  /** The gate's device check (security/devices.ts `check`). */
  checkDevice: (token: string | undefined) => Device | null;
  log?: (line: string) => void;
}

/** The action routes by their table path, as the router reports a match (`findRoute` gives no name). */
const ACTION_ROUTES = (Object.keys(PHONE_ROUTES) as PhoneRouteName[]).filter((n) => mayAct(PHONE_ROUTES[n].method, PHONE_ROUTES[n].path.replace(/:\w+/g, "x")));
const MATCHERS = ACTION_ROUTES.map((name) => ({
  name: name as WriteRouteName,
  re: new RegExp(`^${PHONE_ROUTES[name].path.replace(/:\w+/g, "[^/]+")}$`),
  params: [...PHONE_ROUTES[name].path.matchAll(/:(\w+)/g)].map((m) => m[1]!),
}));

/** The upgrade's headers the gate reads (Host, Origin, the device's cookie or token, the front door's), and JSON. */
function injectHeaders(upgrade: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  for (const name of ["host", "origin", "cookie", "authorization", "x-forwarded-proto", "x-forwarded-for"]) {
    const v = upgrade[name];
    if (typeof v === "string") out[name] = v;
  }
  return out;
}

const reply = (status: number, body: unknown): ActOutcome => ({ status, body: body !== null && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : {} });
const refusal = (code: Parameters<typeof apiError>[0], message: string): ActOutcome => {
  const e = apiError(code, message);
  return reply(e.status, e.body);
};

/** The act runner of the app `fastify` (ready: its validator compiler exists) for one socket. */
export function actRunner(fastify: FastifyInstance, deps: ActDeps, upgrade: { token: string | undefined; headers: Record<string, unknown> }): ActRunner {
  return async (path, body) => {
    try {
      return await run(fastify, deps, upgrade, path, body);
    } catch (err) {
      deps.log?.(`POST ${path} (on the live socket) failed: ${(err as { name?: string }).name ?? "Error"}: ${(err as Error).message}`);
      return refusal("internal-error", INTERNAL_ERROR_WORDS);
    }
  };
}

async function run(fastify: FastifyInstance, deps: ActDeps, upgrade: { token: string | undefined; headers: Record<string, unknown> }, path: string, rawBody: Record<string, unknown>): Promise<ActOutcome> {
  const matched = MATCHERS.find((m) => m.re.test(path));
  const found = matched && fastify.findRoute({ method: "POST", url: path });
  // Anything but a plain match of an action route (no such route; a parameter the router cannot
  // decode or that is too long) is answered by the app itself, as that POST: its exact words, at
  // a request's cost. No phone sends one.
  if (!matched || !found || !matched.params.every((p) => typeof (found.params as Record<string, unknown>)[p] === "string")) {
    const res = await fastify.inject({ method: "POST", url: path, headers: injectHeaders(upgrade.headers), payload: JSON.stringify(rawBody) });
    let parsed: unknown = {};
    try {
      parsed = res.body === "" ? {} : JSON.parse(res.body);
    } catch {
      // every phone route answers JSON; anything else says no more than its status
    }
    return reply(res.statusCode, parsed);
  }
  const name = matched.name;
  const device = deps.checkDevice(upgrade.token);
  if (!device) return refusal("unpaired", UNPAIRED_WORDS);
  // The body as a POST's parser takes it: the frame was JSON text read by JSON.parse, so what that
  // parser adds is its check for prototype keys, made by the library it makes it with, in its words.
  const parsed = prototypeKeysRefused(rawBody);
  if (!parsed.ok) return refusal("bad-request", parsed.message);
  const params = { ...(found.params as Record<string, string>) };
  // Fastify checks the parameters, then the body (its validation order).
  for (const [part, value] of [["params", params], ["body", parsed.body]] as const) {
    const validate = validator(fastify, name, part);
    if (validate && !validate(value)) return refusal("bad-request", schemaErrorText(name, validate.errors ?? [], part));
  }
  let sent: ActOutcome | null = null;
  const adapter = {
    code(status: number) {
      adapter.status = status;
      return adapter;
    },
    status: 200,
    header() {
      return adapter;
    },
    send(payload: unknown) {
      sent = reply(adapter.status, payload);
      return adapter;
    },
  };
  await deps.handlers[name]({ params, body: parsed.body as { requestId: string } & Record<string, unknown>, device, headers: upgrade.headers }, adapter as unknown as FastifyReply);
  if (sent === null) throw new Error(`the ${name} handler sent no reply`);
  return sent;
}

/**
 * The app's JSON parser for phone bodies (app.ts: Fastify's, prototype poisoning an error) is
 * JSON.parse and then, when the text holds a `__proto__` or `constructor` key, secure-json-parse's
 * scan. An act's body was parsed with the frame: the scan alone gives the same refusal, without
 * writing the body out as text and reading it again (issue 31: a fifth of the daemon's part of a tap).
 */
function prototypeKeysRefused(body: Record<string, unknown>): { ok: true; body: unknown } | { ok: false; message: string } {
  try {
    scanForPrototypeKeys(body, { protoAction: "error", constructorAction: "error" });
    return { ok: true, body };
  } catch {
    // The parser answers any failure with this one error of Fastify's.
    return { ok: false, message: new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY().message };
  }
}

const compiled = new WeakMap<FastifyInstance, Map<string, Validate | null>>();
/** A route part's validator, compiled once per app by its own compiler from the route's schema. */
function validator(fastify: FastifyInstance, name: WriteRouteName, part: Part): Validate | null {
  let validators = compiled.get(fastify);
  if (!validators) compiled.set(fastify, (validators = new Map()));
  const key = `${name}\n${part}`;
  if (validators.has(key)) return validators.get(key)!;
  const schema = (PHONE_SCHEMAS[name] as { params?: unknown; body?: unknown })[part];
  const v = schema === undefined ? null : (fastify.validatorCompiler!({ schema: schema as object, method: "POST", url: PHONE_ROUTES[name].path, httpPart: part }) as Validate);
  validators.set(key, v);
  return v;
}
