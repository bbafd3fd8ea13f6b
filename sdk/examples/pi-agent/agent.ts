/**
 * The Pi agent on the phone: each Pi session is a pane in **Pi › Sessions**, `bash` asks first,
 * every saved session is history. The phone can start a new session (starter), reopen a saved one
 * from history, rename one (saved as the session's name) and close one.
 */
import { Agent } from "@mariozechner/pi-agent-core";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { openCollie, type Collie, type Pane } from "@colliepwa/durable-sdk";
import { piHistory, piPane, PI_HOST_NAME } from "@colliepwa/durable-sdk/pi";
import { chooseModel } from "./model.ts";
import { bashTool, readFileTool } from "./tools.ts";

export interface PiAgentOptions {
  /** The socket; default $COLLIE_DURABLE_SOCKET (S-5). */
  socket?: string;
  /** The folder the tools work in; the sessions are filed under it too. */
  cwd: string;
  /** Where Pi saves the sessions (JSONL files). */
  sessionDir: string;
  env?: NodeJS.ProcessEnv;
}

const NEW_SESSION = "New session";
const SYSTEM_PROMPT = "You are a coding agent. Read files with read_file; run shell commands with bash. Be brief.";

export async function startPiAgent(opts: PiAgentOptions): Promise<{ collie: Collie; model: string }> {
  const { cwd, sessionDir } = opts;
  const chosen = chooseModel(opts.env);
  const sessions = new Map<string, SessionManager>();
  const agents = new Map<string, Agent>();

  const collie = await openCollie({
    ...(opts.socket ? { socket: opts.socket } : {}),
    hostName: PI_HOST_NAME,
    // Exactly what is wired: piPane answers send (a send during a run is Pi's follow-up), steer
    // and stop; the hooks below the rest.
    caps: { asks: true, send: true, followUp: true, steer: true, stop: true, history: true, starters: true, reopen: true, rename: true, close: true },
    starters: [{ id: "new-session", title: "New session", subtitle: "A fresh Pi session", icon: "note" }],
    hooks: {
      onStarter: () => show(SessionManager.create(cwd, sessionDir)),
      onReopen: async ({ target }) => {
        if (target.kind !== "pane") return null;
        const saved = (await SessionManager.list(cwd, sessionDir)).find((s) => s.id === target.id);
        return saved ? show(SessionManager.open(saved.path, sessionDir)) : null;
      },
      // A rename from the phone becomes the session's name in Pi's own file, so history shows it.
      onRename: ({ ref, title }) => {
        if (ref.kind === "pane") sessions.get(ref.pane.id)?.appendSessionInfo(title);
      },
      // Closing a conversation stops its run: nobody is looking at it any more (S-30).
      onClose: async ({ ref }) => {
        const panes = ref.kind === "pane" ? [ref.pane] : ref.kind === "tab" ? [...ref.tab.panes.values()] : [...ref.workspace.tabs.values()].flatMap((t) => [...t.panes.values()]);
        await Promise.all(panes.map((pane) => {
          const agent = agents.get(pane.id);
          agent?.abort();
          return agent?.waitForIdle();
        }));
      },
    },
  });
  const tab = collie.workspace("pi", { title: "Pi" }).tab("sessions", { title: "Sessions" });

  function show(session: SessionManager): Pane {
    const agent = new Agent({
      initialState: { systemPrompt: SYSTEM_PROMPT, model: chosen.model, tools: [readFileTool(cwd), bashTool(cwd)] },
      ...(chosen.apiKey ? { getApiKey: () => chosen.apiKey } : {}),
    });
    const id = session.getSessionId();
    sessions.set(id, session);
    agents.set(id, agent);
    const firstUser = session.buildSessionContext().messages.find((m) => m.role === "user");
    const firstText = typeof firstUser?.content === "string" ? firstUser.content : firstUser?.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join(" ");
    const named = session.getSessionName() ?? firstText;
    const pane = piPane(tab, agent, {
      id,
      title: named ?? NEW_SESSION,
      cwd,
      session,
      risky: (call) => call.toolName === "bash",
      approval: (call) => ({ title: `${call.toolName} wants to run`, push: { line: `${call.toolName} needs a yes` } }),
    });
    // A new session takes its first message as its title, as the history row does.
    if (named === undefined) {
      const stop = agent.subscribe((event) => {
        if (event.type !== "message_end" || event.message.role !== "user" || pane.closed) return;
        const text = typeof event.message.content === "string" ? event.message.content : event.message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join(" ");
        if (pane.title === NEW_SESSION && text.trim()) pane.setTitle(text);
        stop();
      });
    }
    return pane;
  }

  // The newest session goes on where it stopped: a card it was waiting on comes back (S-23).
  show(SessionManager.continueRecent(cwd, sessionDir));
  collie.history(piHistory({ cwd, sessionDir }));
  collie.ready();
  return { collie, model: chosen.label };
}
