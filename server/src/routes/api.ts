/**
 * The phone API (D-4): a snapshot, a pane's content, history and starters read through from the
 * agent, and every phone action forwarded with its request id (D-5). Every route is registered
 * with its schemas from the one table (`@colliepwa/shared/schemas`, routes/schemas.ts): params,
 * query and body are validated and typed by them (the TypeBox type provider), replies serialized.
 */
import type { FastifyInstance, FastifyReply } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { AnswerRequest, Snapshot } from "@colliepwa/shared";
import { CONVERSATIONS_PAGE_MAX, PHONE_SCHEMA_MESSAGES, SNAPSHOT_CONVERSATIONS_PER_AGENT } from "@colliepwa/shared/schemas";
import { parseWith, WRITE_BODY_CHECKERS, type WriteRouteName } from "@colliepwa/durable-sdk/wire";
import type { LiveHub } from "../agents/live.ts";
import type { Upstreams } from "../agents/upstream.ts";
import { COLLIE_VERSION, COLLIE_WIRE_VERSION } from "../version.ts";
import type { AuditLog } from "../security/audit.ts";
import { DEVICE, PUBLIC } from "../security/access.ts";
import { auditName, type Device } from "../security/devices.ts";
import { answeredBy, PHONE_NAME_HEADER } from "../crew/phone-name.ts";
import { STARTING_WAIT_MS } from "../agents/gateway.ts";
import { draftDecision, type Decisions, type DecisionDraft } from "../store/decisions.ts";
import { sendError } from "../errors.ts";
import { PHONE_ROUTES } from "@colliepwa/shared";
import { phoneSchema } from "./schemas.ts";

export interface ApiDeps {
  /**
   * Whatever answers for an agent (agents/upstream.ts): this machine's agents' connections and the
   * crew members (C-1, keyed `<agent>@<member>`). The routes never ask which kind.
   */
  upstreams: Upstreams;
  live: LiveHub;
  /** The daemon's log: what went wrong where no phone waits for an answer. */
  log?: (line: string) => void;
  /** One line per phone write (action, agent, pane, request id, device, outcome). */
  audit?: AuditLog;
  /** Answers given from a phone (the chat's quiet lines, the tools always allowed). */
  decisions?: Decisions;
}


/**
 * How many of an agent's open conversations the snapshot carries (its first page, in the home's
 * order); the rest are read page by page (`/conversations`, at most CONVERSATIONS_PAGE_MAX a page).
 * A phone never downloads every pane of every agent (the security issue, item 4). Both are the
 * schema table's, which checks the page size.
 */
export { CONVERSATIONS_PAGE_MAX, SNAPSHOT_CONVERSATIONS_PER_AGENT };
const PAGE_WORDS = PHONE_SCHEMA_MESSAGES.conversations!.querystring!;

export function snapshot(deps: ApiDeps): Snapshot {
  const upstreams = [...deps.upstreams.all()];
  return {
    seq: deps.live.seq,
    collie: { version: COLLIE_VERSION, wire: COLLIE_WIRE_VERSION },
    // Every agent's row: this machine's, then its crew members' (C-1).
    agents: upstreams.flatMap((u) => u.summaries()),
    conversations: upstreams.flatMap((u) => u.firstPages(SNAPSHOT_CONVERSATIONS_PER_AGENT)),
  };
}

export async function apiRoutes(fastify: FastifyInstance, deps: ApiDeps, actions: Record<WriteRouteName, ActionHandler>): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(PHONE_ROUTES.health.path, { ...PUBLIC, ...phoneSchema("health") }, async () => ({ ok: true as const }));
  app.get(PHONE_ROUTES.snapshot.path, { ...DEVICE, ...phoneSchema("snapshot") }, async () => snapshot(deps));
  app.get(PHONE_ROUTES.agents.path, { ...DEVICE, ...phoneSchema("agents") }, async () => ({ agents: deps.upstreams.summaries() }));

  // What the agent (or the member) answered, its status and the body its checkers rebuilt (reply
  // schema: the envelope).
  const send = (reply: FastifyReply, r: { status: number; body: unknown }) => reply.code(r.status).send(r.body);
  const unknownAgent = (reply: FastifyReply) => sendError(reply, "unknown-agent", "No such durable agent.");

  // The page's cursor and size are checked by the schema, with the words the phone knows.
  app.get(PHONE_ROUTES.conversations.path, { ...DEVICE, ...phoneSchema("conversations") }, async (req, reply) => {
    const offset = req.query.after === undefined || req.query.after === "" ? 0 : req.query.after;
    const limit = req.query.limit ?? SNAPSHOT_CONVERSATIONS_PER_AGENT;
    // A number too large to write ("1e400") passes Ajv's integer check unbounded: it stays refused here, in the same words.
    if (!Number.isSafeInteger(offset)) return sendError(reply, "bad-request", PAGE_WORDS.after!);
    if (!Number.isSafeInteger(limit)) return sendError(reply, "bad-request", PAGE_WORDS.limit!);
    const upstream = deps.upstreams.find(req.params.agent);
    if (!upstream) return unknownAgent(reply);
    return send(reply, await upstream.conversationsPage(req.params.agent, offset, limit));
  });

  app.get(PHONE_ROUTES.pane.path, { ...DEVICE, ...phoneSchema("pane") }, async (req, reply) => {
    const { agent, pane } = req.params;
    const upstream = deps.upstreams.find(agent);
    if (!upstream) return unknownAgent(reply);
    const r = await upstream.pane(agent, pane);
    // The answers this Collie holds for the chat (issue #34): its record of them until they are
    // delivered. A crew member's chat carries its own (it holds them).
    if (r.status === 200 && deps.decisions && r.body.decisions === undefined) return send(reply, { status: 200, body: { ...r.body, decisions: deps.decisions.heldForPane(agent, pane) } });
    return send(reply, r);
  });

  app.get(PHONE_ROUTES.alwaysAllowed.path, { ...DEVICE, ...phoneSchema("alwaysAllowed") }, async (req, reply) => {
    if (!deps.upstreams.find(req.params.agent)) return unknownAgent(reply);
    return { tools: deps.decisions?.alwaysAllowed(req.params.agent) ?? [] };
  });

  // History, closed conversations and starters are read from the agent when the phone asks (P-7),
  // never on a timer, through its upstream (its checkers: agents/gateway.ts, crew/replies.ts).
  // The agent's page query goes on as it came (a key given twice, as its values joined by commas).
  const pageQuery = (q: { after?: string | string[]; limit?: string | string[] }) => {
    const s = new URLSearchParams();
    if (q.after?.length) s.set("after", String(q.after));
    if (q.limit?.length) s.set("limit", String(q.limit));
    return s.size ? `?${s}` : "";
  };
  app.get(PHONE_ROUTES.history.path, { ...DEVICE, ...phoneSchema("history") }, async (req, reply) => {
    const upstream = deps.upstreams.find(req.params.agent);
    if (!upstream) return unknownAgent(reply);
    return send(reply, await upstream.read(req.params.agent, "history", {}, pageQuery(req.query)));
  });
  app.get(PHONE_ROUTES.historyItems.path, { ...DEVICE, ...phoneSchema("historyItems") }, async (req, reply) => {
    const upstream = deps.upstreams.find(req.params.agent);
    if (!upstream) return unknownAgent(reply);
    return send(reply, await upstream.read(req.params.agent, "historyItems", { session: req.params.session }, pageQuery(req.query)));
  });
  app.get(PHONE_ROUTES.starters.path, { ...DEVICE, ...phoneSchema("starters") }, async (req, reply) => {
    const upstream = deps.upstreams.find(req.params.agent);
    if (!upstream) return unknownAgent(reply);
    return send(reply, await upstream.read(req.params.agent, "starters", {}, ""));
  });

  app.post(PHONE_ROUTES.answer.path, { ...DEVICE, ...phoneSchema("answer") }, actions.answer);
  app.post(PHONE_ROUTES.send.path, { ...DEVICE, ...phoneSchema("send") }, actions.send);
  app.post(PHONE_ROUTES.steer.path, { ...DEVICE, ...phoneSchema("steer") }, actions.steer);
  app.post(PHONE_ROUTES.stop.path, { ...DEVICE, ...phoneSchema("stop") }, actions.stop);
  app.post(PHONE_ROUTES.action.path, { ...DEVICE, ...phoneSchema("action") }, actions.action);
  app.post(PHONE_ROUTES.rename.path, { ...DEVICE, ...phoneSchema("rename") }, actions.rename);
  app.post(PHONE_ROUTES.close.path, { ...DEVICE, ...phoneSchema("close") }, actions.close);
  app.post(PHONE_ROUTES.reopen.path, { ...DEVICE, ...phoneSchema("reopen") }, actions.reopen);
  app.post(PHONE_ROUTES.starter.path, { ...DEVICE, ...phoneSchema("starter") }, actions.starter);
}

/** What an action's handler reads of its request: what a POST's gate, router and schemas made of it. */
export interface ActionRequest {
  params: Record<string, string>;
  body: { requestId: string } & Record<string, unknown>;
  device?: Device;
  headers: Record<string, unknown>;
}
/** Sends its reply on `reply` (a POST's, or an act's stand-in) and resolves once it has. */
export type ActionHandler = (req: ActionRequest, reply: FastifyReply) => Promise<void>;

/**
 * The handlers of the action routes (D-5), by route: a POST's (above) and an act's on the live
 * socket (act.ts) are these very functions. The phone's request id goes to the agent unchanged.
 */
export function actionHandlers(deps: ApiDeps): Record<WriteRouteName, ActionHandler> {
  const send = (reply: FastifyReply, r: { status: number; body: unknown }) => reply.code(r.status).send(r.body);
  const forward = (route: WriteRouteName, params: (p: Record<string, string>) => Record<string, string>): ActionHandler =>
    async (req, reply) => {
      await handle(route, params, req, reply);
    };
  const handle = async (route: WriteRouteName, params: (p: Record<string, string>) => Record<string, string>, req: ActionRequest, reply: FastifyReply) => {
    const p = req.params;
    const body = req.body;
    // The wire's own checker, as the agent runs it: what the agent would refuse (a 16 KiB text
    // limit counted in bytes, an id against the ID rule …) is refused here with its words.
    const wire = parseWith(WRITE_BODY_CHECKERS[route], body);
    if (!wire.ok) return sendError(reply, "bad-request", wire.error);
    const agent = p.agent!;
    const upstream = deps.upstreams.find(agent);
    if (!upstream) return sendError(reply, "unknown-agent", `No durable agent named ${agent}.`);
    // An answer the agent takes leaves a decision (the ask as it was when tapped), where this
    // Collie keeps the ask (a crew member keeps its own decisions).
    let draft: DecisionDraft | null = null;
    if (route === "answer" && deps.decisions) {
      let ask = upstream.openAsk(agent, p.pane!, p.ask!);
      // Collie (or its link to the agent) just started: the agent's asks are not known yet. The
      // answer waits for them a moment, as every action does (gateway.ts STARTING_WAIT_MS), so
      // it reaches the agent instead of being held, and leaves its decision: held without one,
      // it would leave none (a crew lead's delivery right after its member restarted did).
      if (!ask) {
        await upstream.asksKnown(agent, STARTING_WAIT_MS);
        ask = upstream.openAsk(agent, p.pane!, p.ask!);
      }
      if (ask) draft = draftDecision(p.pane!, ask, (body as AnswerRequest).answer, answeredBy(req.device, req.headers[PHONE_NAME_HEADER]));
    }
    // The phone's name goes with it: a crew member records which phone answered (issue #37).
    const outcome = await upstream.write(agent, route, params(p), body, req.device?.name);
    if (draft && deps.decisions) {
      if (outcome.status === 200 && outcome.body.replayed !== true) {
        deps.live.publish({ type: "decision", agent, decision: deps.decisions.record(agent, draft) });
      } else if (outcome.status === 202 && outcome.body.held === true) {
        const held = deps.decisions.hold(body.requestId, agent, draft);
        if (held) deps.live.publish({ type: "decision", agent, decision: held });
      }
    }
    const code = outcome.body.error;
    deps.audit?.write({
      action: route, agent, ...(p.pane ? { pane: p.pane } : {}), requestId: body.requestId,
      // A crew lead's action names the lead (C-1): the member's log says which Collie forwarded it.
      device: req.device ? auditName(req.device) : "unknown", status: outcome.status,
      outcome: typeof code === "string" ? code : outcome.body.held === true ? "held" : outcome.body.replayed === true ? "replayed" : "ok",
    });
    // The agent's (or the member's) status and JSON, as the catalog has them (P-15).
    return send(reply, outcome);
  };
  const pane = (p: Record<string, string>) => ({ pane: p.pane! });
  return {
    answer: forward("answer", (p) => ({ pane: p.pane!, ask: p.ask! })),
    send: forward("send", pane),
    steer: forward("steer", pane),
    stop: forward("stop", pane),
    action: forward("action", (p) => ({ pane: p.pane!, action: p.action! })),
    rename: forward("rename", () => ({})),
    close: forward("close", () => ({})),
    reopen: forward("reopen", () => ({})),
    starter: forward("starter", (p) => ({ starter: p.starter! })),
  };
}
