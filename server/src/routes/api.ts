/**
 * The phone API (D-4): a snapshot, a pane's content, history and starters read through from the
 * agent, and every phone action forwarded with its request id (D-5). Every route is registered
 * with its schemas from the one table (`@colliepwa/shared/schemas`, routes/schemas.ts): params,
 * query and body are validated and typed by them (the TypeBox type provider), replies serialized.
 */
import type { FastifyInstance, FastifyReply } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { AgentSummary, AnswerRequest, ConversationsPage, Snapshot } from "@colliepwa/shared";
import { CONVERSATIONS_PAGE_MAX, PHONE_SCHEMA_MESSAGES, SNAPSHOT_CONVERSATIONS_PER_AGENT } from "@colliepwa/shared/schemas";
import { parseHistoryItemsPage, parseHistoryPage, parseStartersPage, parseWith, WRITE_BODY_CHECKERS, type HistoryPage } from "@colliepwa/durable-sdk/wire";
import type { AgentManager } from "../agents/manager.ts";
import type { AgentGateway } from "../agents/gateway.ts";
import type { LiveHub } from "../agents/live.ts";
import { COLLIE_VERSION, COLLIE_WIRE_VERSION } from "../version.ts";
import type { AuditLog } from "../security/audit.ts";
import { DEVICE, PUBLIC } from "../security/access.ts";
import { auditName, type Device } from "../security/devices.ts";
import { memberPath, type Crew } from "../crew/crew.ts";
import { draftDecision, type Decisions, type DecisionDraft } from "../store/decisions.ts";
import { sendError } from "../errors.ts";
import { PHONE_ROUTES } from "@colliepwa/shared";
import { phoneSchema } from "./schemas.ts";
import { maskHistoryPage } from "../push/mask.ts";
import type { MemberReadRoute } from "../crew/replies.ts";

export interface ApiDeps {
  agents: AgentManager;
  /** Every read and write to an agent (agents/gateway.ts). */
  gateway: AgentGateway;
  live: LiveHub;
  /** One line per phone write (action, agent, pane, request id, device, outcome). */
  audit?: AuditLog;
  /** Secret masking (R-1) of the history rows' titles and subtitles; open conversations are masked where the mirror builds them. */
  mask?: (text: string) => string;
  /** The crew members' agents (C-1), keyed `<agent>@<member>`; absent on a Collie without crew. */
  crew?: Crew;
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

/** Every agent's row: this machine's, then its crew members' (C-1). */
function agentList(deps: ApiDeps, own = deps.agents.summaries()): AgentSummary[] {
  return [...own, ...(deps.crew?.summaries() ?? [])];
}

export function snapshot(deps: ApiDeps): Snapshot {
  const agents = deps.agents.summaries();
  return {
    seq: deps.live.seq,
    collie: { version: COLLIE_VERSION, wire: COLLIE_WIRE_VERSION },
    agents: agentList(deps, agents),
    conversations: [
      ...agents.flatMap((a) => deps.agents.conversationsPage(a.name, 0, SNAPSHOT_CONVERSATIONS_PER_AGENT)?.conversations ?? []),
      ...(deps.crew?.conversations() ?? []),
    ],
  };
}

export async function apiRoutes(fastify: FastifyInstance, deps: ApiDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(PHONE_ROUTES.health.path, { ...PUBLIC, ...phoneSchema("health") }, async () => ({ ok: true as const }));
  app.get(PHONE_ROUTES.snapshot.path, { ...DEVICE, ...phoneSchema("snapshot") }, async () => snapshot(deps));
  app.get(PHONE_ROUTES.agents.path, { ...DEVICE, ...phoneSchema("agents") }, async () => ({ agents: agentList(deps) }));

  // What the agent (or the member) answered, its status and the body its checkers rebuilt (reply
  // schema: the envelope).
  const send = (reply: FastifyReply, r: { status: number; body: unknown }) => reply.code(r.status).send(r.body);
  // A crew member's agent (C-1) is read through the member's own phone API.
  const crewRead = async (req: { params: { agent: string }; url: string; routeOptions: { url?: string } }, route: MemberReadRoute) => {
    const key = req.params.agent;
    const own = deps.crew?.owner(key);
    if (!own || !deps.crew) return null;
    return deps.crew.read(key, route, memberPath(req.routeOptions.url!, req.params, own.agent, req.url));
  };

  // The page's cursor and size are checked by the schema, with the words the phone knows.
  app.get(PHONE_ROUTES.conversations.path, { ...DEVICE, ...phoneSchema("conversations") }, async (req, reply) => {
    const offset = req.query.after === undefined || req.query.after === "" ? 0 : req.query.after;
    const limit = req.query.limit ?? SNAPSHOT_CONVERSATIONS_PER_AGENT;
    // A number too large to write ("1e400") passes Ajv's integer check unbounded: it stays refused here, in the same words.
    if (!Number.isSafeInteger(offset)) return sendError(reply, "bad-request", PAGE_WORDS.after!);
    if (!Number.isSafeInteger(limit)) return sendError(reply, "bad-request", PAGE_WORDS.limit!);
    const viaCrew = await crewRead(req, "conversations");
    if (viaCrew) return send(reply, viaCrew);
    const page = deps.agents.conversationsPage(req.params.agent, offset, limit);
    if (!page) return sendError(reply, "unknown-agent", "No such durable agent.");
    const body: ConversationsPage = { conversations: page.conversations };
    if (page.next !== undefined) body.next = String(page.next);
    return body;
  });

  app.get(PHONE_ROUTES.pane.path, { ...DEVICE, ...phoneSchema("pane") }, async (req, reply) => {
    const viaCrew = await crewRead(req, "pane");
    if (viaCrew) return send(reply, viaCrew);
    const conn = deps.agents.get(req.params.agent);
    if (!conn) return sendError(reply, "unknown-agent", "No such durable agent.");
    const detail = await conn.paneDetail(req.params.pane);
    if (!detail) return sendError(reply, "not-found", "No such open conversation.");
    return deps.decisions ? { ...detail, decisions: deps.decisions.forPane(req.params.agent, req.params.pane) } : detail;
  });

  app.get(PHONE_ROUTES.alwaysAllowed.path, { ...DEVICE, ...phoneSchema("alwaysAllowed") }, async (req, reply) => {
    if (!deps.agents.get(req.params.agent)) return sendError(reply, "unknown-agent", "No such durable agent.");
    return { tools: deps.decisions?.alwaysAllowed(req.params.agent) ?? [] };
  });

  // History, closed conversations and starters are read from the agent when the phone asks (P-7),
  // never on a timer, through the one gateway (agents/gateway.ts).
  const readThrough = deps.gateway.read.bind(deps.gateway);
  // The agent's page query goes on as it came (a key given twice, as its values joined by commas).
  const pageQuery = (q: { after?: string | string[]; limit?: string | string[] }) => {
    const s = new URLSearchParams();
    if (q.after?.length) s.set("after", String(q.after));
    if (q.limit?.length) s.set("limit", String(q.limit));
    return s.size ? `?${s}` : "";
  };
  app.get(PHONE_ROUTES.history.path, { ...DEVICE, ...phoneSchema("history") }, async (req, reply) => {
    const viaCrew = await crewRead(req, "history");
    if (viaCrew) return send(reply, viaCrew);
    const r = await readThrough(req.params.agent, "history", {}, pageQuery(req.query), parseHistoryPage);
    const body = r.status === 200 && deps.mask ? maskHistoryPage(r.body as unknown as HistoryPage, deps.mask) : r.body;
    return send(reply, { status: r.status, body });
  });
  app.get(PHONE_ROUTES.historyItems.path, { ...DEVICE, ...phoneSchema("historyItems") }, async (req, reply) => {
    const viaCrew = await crewRead(req, "historyItems");
    if (viaCrew) return send(reply, viaCrew);
    return send(reply, await readThrough(req.params.agent, "historyItems", { session: req.params.session }, pageQuery(req.query), parseHistoryItemsPage));
  });
  app.get(PHONE_ROUTES.starters.path, { ...DEVICE, ...phoneSchema("starters") }, async (req, reply) => {
    const viaCrew = await crewRead(req, "starters");
    if (viaCrew) return send(reply, viaCrew);
    return send(reply, await readThrough(req.params.agent, "starters", {}, "", parseStartersPage));
  });

  // Actions (D-5): the phone's request id goes to the agent unchanged.
  const forward = (route: Parameters<AgentGateway["write"]>[1], params: (p: Record<string, string>) => Record<string, string>) =>
    async (req: { params: Record<string, string>; body: { requestId: string } & Record<string, unknown>; device?: Device; url: string; routeOptions: { url?: string } }, reply: FastifyReply) => {
      const p = req.params;
      const body = req.body;
      // The wire's own checker, as the agent runs it: what the agent would refuse (a 16 KiB text
      // limit counted in bytes, an id against the ID rule …) is refused here with its words.
      const wire = parseWith(WRITE_BODY_CHECKERS[route], body);
      if (!wire.ok) return sendError(reply, "bad-request", wire.error);
      // A crew member's agent (C-1): the member's phone API takes the action, request id unchanged.
      const own = deps.crew?.owner(p.agent!);
      // An answer the agent takes leaves a decision (the ask as it was when tapped).
      let draft: DecisionDraft | null = null;
      if (route === "answer" && deps.decisions && !own) {
        const ask = deps.agents.get(p.agent!)?.mirror.ask(p.pane!, p.ask!);
        if (ask) draft = draftDecision(p.pane!, ask, (body as AnswerRequest).answer, req.device?.name ?? "a phone");
      }
      const outcome = own && deps.crew
        ? await deps.crew.action(p.agent!, route, memberPath(req.routeOptions.url!, p, own.agent, req.url), body)
        : await deps.gateway.write(p.agent!, route, params(p), body);
      if (draft && deps.decisions) {
        if (outcome.status === 200 && outcome.body.replayed !== true) {
          deps.live.publish({ type: "decision", agent: p.agent!, decision: deps.decisions.record(p.agent!, draft) });
        } else if (outcome.status === 202 && outcome.body.held === true) {
          deps.decisions.hold(body.requestId, p.agent!, draft);
        }
      }
      const code = outcome.body.error;
      deps.audit?.write({
        action: route, agent: p.agent!, ...(p.pane ? { pane: p.pane } : {}), requestId: body.requestId,
        // A crew lead's action names the lead (C-1): the member's log says which Collie forwarded it.
        device: req.device ? auditName(req.device) : "unknown", status: outcome.status,
        outcome: typeof code === "string" ? code : outcome.body.held === true ? "held" : outcome.body.replayed === true ? "replayed" : "ok",
      });
      // The agent's (or the member's) status and JSON, as the catalog has them (P-15).
      return send(reply, outcome);
    };
  const pane = (p: Record<string, string>) => ({ pane: p.pane! });
  app.post(PHONE_ROUTES.answer.path, { ...DEVICE, ...phoneSchema("answer") }, forward("answer", (p) => ({ pane: p.pane!, ask: p.ask! })));
  app.post(PHONE_ROUTES.send.path, { ...DEVICE, ...phoneSchema("send") }, forward("send", pane));
  app.post(PHONE_ROUTES.steer.path, { ...DEVICE, ...phoneSchema("steer") }, forward("steer", pane));
  app.post(PHONE_ROUTES.stop.path, { ...DEVICE, ...phoneSchema("stop") }, forward("stop", pane));
  app.post(PHONE_ROUTES.action.path, { ...DEVICE, ...phoneSchema("action") }, forward("action", (p) => ({ pane: p.pane!, action: p.action! })));
  app.post(PHONE_ROUTES.rename.path, { ...DEVICE, ...phoneSchema("rename") }, forward("rename", () => ({})));
  app.post(PHONE_ROUTES.close.path, { ...DEVICE, ...phoneSchema("close") }, forward("close", () => ({})));
  app.post(PHONE_ROUTES.reopen.path, { ...DEVICE, ...phoneSchema("reopen") }, forward("reopen", () => ({})));
  app.post(PHONE_ROUTES.starter.path, { ...DEVICE, ...phoneSchema("starter") }, forward("starter", (p) => ({ starter: p.starter! })));
}
