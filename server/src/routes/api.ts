/**
 * The phone API (D-4): a snapshot, a pane's content, history and starters read through from the
 * agent, and every phone action forwarded with its request id (D-5). Request schemas come from
 * the shared contract and are the validation.
 */
import type { FastifyInstance } from "fastify";
import {
  AnswerRequest, RenameRequest, SendRequest, StarterRequest, SteerRequest, TargetRequest, TurnRequest,
  type Snapshot,
} from "@colliepwa/shared";
import { parseHistoryItemsPage, parseHistoryPage, parseStartersPage, routePath, type HistoryPage, type RouteName } from "@colliepwa/durable-sdk/wire";
import type { AgentManager } from "../agents/manager.ts";
import { AgentUnreachable } from "../agents/client.ts";
import { asOutcome, type Forwarder } from "../actions/forward.ts";
import type { LiveHub } from "../agents/live.ts";
import { COLLIE_VERSION, COLLIE_WIRE_VERSION } from "../version.ts";
import type { AuditLog } from "../security/audit.ts";
import { draftDecision, type Decisions, type DecisionDraft } from "../store/decisions.ts";

export interface ApiDeps {
  agents: AgentManager;
  forwarder: Forwarder;
  live: LiveHub;
  /** One line per phone write (action, agent, pane, request id, device, outcome). */
  audit?: AuditLog;
  /** Secret masking (R-1) of the history rows' titles and subtitles; open conversations are masked where the mirror builds them. */
  mask?: (text: string) => string;
  /** Answers given from a phone (the chat's quiet lines, the tools always allowed). */
  decisions?: Decisions;
}

const READ_TIMEOUT_MS = 10_000;

export function snapshot(deps: ApiDeps): Snapshot {
  return {
    seq: deps.live.seq,
    collie: { version: COLLIE_VERSION, wire: COLLIE_WIRE_VERSION },
    agents: deps.agents.summaries(),
    conversations: deps.agents.conversations(),
  };
}

type AgentParams = { agent: string };
type PaneParams = AgentParams & { pane: string };

export async function apiRoutes(app: FastifyInstance, deps: ApiDeps): Promise<void> {
  app.get("/api/health", async () => ({ ok: true }));
  app.get("/api/snapshot", async () => snapshot(deps));
  app.get("/api/agents", async () => ({ agents: deps.agents.summaries() }));

  app.get<{ Params: PaneParams }>("/api/agents/:agent/panes/:pane", async (req, reply) => {
    const conn = deps.agents.get(req.params.agent);
    if (!conn) return reply.code(404).send({ error: "unknown-agent", message: "No such durable agent." });
    const detail = conn.mirror.detail(req.params.pane);
    if (!detail) return reply.code(404).send({ error: "not-found", message: "No such open conversation." });
    return deps.decisions ? { ...detail, decisions: deps.decisions.forPane(req.params.agent, req.params.pane) } : detail;
  });

  app.get<{ Params: AgentParams }>("/api/agents/:agent/always-allowed", async (req, reply) => {
    if (!deps.agents.get(req.params.agent)) return reply.code(404).send({ error: "unknown-agent", message: "No such durable agent." });
    return { tools: deps.decisions?.alwaysAllowed(req.params.agent) ?? [] };
  });

  // History, closed conversations and starters are read from the agent when the phone asks (P-7),
  // never on a timer; the agent's answer is checked before it is passed on.
  const readThrough = async (agent: string, route: RouteName, params: Record<string, string>, query: string, check: (v: unknown) => { ok: true; value: unknown } | { ok: false; error: string }) => {
    const conn = deps.agents.get(agent);
    if (!conn) return { status: 404, body: { error: "unknown-agent", message: "No such durable agent." } };
    if (conn.state === "version-mismatch") return { status: 409, body: { error: "agent-version-mismatch", message: "The durable agent speaks another wire version." } };
    if (conn.state !== "ready") return { status: 503, body: { error: "agent-unreachable", message: "The durable agent did not answer." } };
    try {
      const r = await conn.client.get(`${conn.prefix}${routePath(route, params)}${query}`, READ_TIMEOUT_MS);
      // The agent's own error passes through as the catalog has it; any other reply is agent-failed (L-2).
      if (r.status !== 200) return asOutcome(r.status, r.body);
      const parsed = check(r.body);
      if (!parsed.ok) return { status: 502, body: { error: "agent-failed", message: `The durable agent's reply was malformed: ${parsed.error}` } };
      // What the validator rebuilt from the keys it knows, not the raw body: an unknown key (a value
      // nested thousands of levels deep, say) never reaches the phone.
      return { status: 200, body: parsed.value };
    } catch (err) {
      if (err instanceof AgentUnreachable) return { status: 504, body: { error: "agent-unreachable", message: "The durable agent did not answer." } };
      throw err;
    }
  };
  const pageQuery = (q: { after?: string; limit?: string }) => {
    const s = new URLSearchParams();
    if (q.after) s.set("after", q.after);
    if (q.limit) s.set("limit", q.limit);
    return s.size ? `?${s}` : "";
  };
  app.get<{ Params: AgentParams; Querystring: { after?: string; limit?: string } }>("/api/agents/:agent/history", async (req, reply) => {
    const r = await readThrough(req.params.agent, "history", {}, pageQuery(req.query), parseHistoryPage);
    if (r.status === 200 && deps.mask) r.body = maskHistory(r.body as HistoryPage, deps.mask);
    return reply.code(r.status).send(r.body);
  });
  app.get<{ Params: AgentParams & { session: string }; Querystring: { after?: string; limit?: string } }>("/api/agents/:agent/history/:session/items", async (req, reply) => {
    const r = await readThrough(req.params.agent, "historyItems", { session: req.params.session }, pageQuery(req.query), parseHistoryItemsPage);
    return reply.code(r.status).send(r.body);
  });
  app.get<{ Params: AgentParams }>("/api/agents/:agent/starters", async (req, reply) => {
    const r = await readThrough(req.params.agent, "starters", {}, "", parseStartersPage);
    return reply.code(r.status).send(r.body);
  });

  // Actions (D-5): the phone's request id goes to the agent unchanged.
  const forward = (route: Parameters<Forwarder["action"]>[1], params: (p: Record<string, string>) => Record<string, string>) =>
    async (req: { params: unknown; body: unknown; device?: { id: string; name?: string } }, reply: { code(n: number): { send(b: unknown): unknown } }) => {
      const p = req.params as Record<string, string>;
      const body = req.body as { requestId: string };
      // An answer the agent takes leaves a decision (the ask as it was when tapped).
      let draft: DecisionDraft | null = null;
      if (route === "answer" && deps.decisions) {
        const ask = deps.agents.get(p.agent!)?.mirror.ask(p.pane!, p.ask!);
        if (ask) draft = draftDecision(p.pane!, ask, (body as unknown as AnswerRequest).answer, req.device?.name ?? "a phone");
      }
      const outcome = await deps.forwarder.action(p.agent!, route, params(p), body);
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
        device: req.device?.id ?? "unknown", status: outcome.status,
        outcome: typeof code === "string" ? code : outcome.body.held === true ? "held" : outcome.body.replayed === true ? "replayed" : "ok",
      });
      return reply.code(outcome.status).send(outcome.body);
    };
  const pane = (p: Record<string, string>) => ({ pane: p.pane! });
  app.post("/api/agents/:agent/panes/:pane/asks/:ask/answer", { schema: { body: AnswerRequest } }, forward("answer", (p) => ({ pane: p.pane!, ask: p.ask! })));
  app.post("/api/agents/:agent/panes/:pane/send", { schema: { body: SendRequest } }, forward("send", pane));
  app.post("/api/agents/:agent/panes/:pane/steer", { schema: { body: SteerRequest } }, forward("steer", pane));
  app.post("/api/agents/:agent/panes/:pane/stop", { schema: { body: TurnRequest } }, forward("stop", pane));
  app.post("/api/agents/:agent/panes/:pane/actions/:action", { schema: { body: TurnRequest } }, forward("action", (p) => ({ pane: p.pane!, action: p.action! })));
  app.post("/api/agents/:agent/rename", { schema: { body: RenameRequest } }, forward("rename", () => ({})));
  app.post("/api/agents/:agent/close", { schema: { body: TargetRequest } }, forward("close", () => ({})));
  app.post("/api/agents/:agent/reopen", { schema: { body: TargetRequest } }, forward("reopen", () => ({})));
  app.post("/api/agents/:agent/starters/:starter", { schema: { body: StarterRequest } }, forward("starter", (p) => ({ starter: p.starter! })));
}

/** The closed conversations of the list (P-7) with their titles and subtitles masked. */
function maskHistory(page: HistoryPage, mask: (text: string) => string): HistoryPage {
  return {
    ...page,
    rows: page.rows.map((row) => {
      const out = { ...row, title: mask(row.title) };
      if (row.subtitle !== undefined) out.subtitle = mask(row.subtitle);
      return out;
    }),
  };
}
