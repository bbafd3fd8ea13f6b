/**
 * The Pi agent on the phone: each Pi session is Pi's own `AgentSession` (`createAgentSession`, with
 * Pi's read, bash, edit and write tools), a pane in **Pi › Sessions**; `bash`, `write` and `edit`
 * ask first; every session Pi saved is history. The phone can start a new session (starter),
 * reopen a saved one from history, rename one (saved as the session's name) and close one.
 */
import {
  AuthStorage, createAgentSession, DefaultResourceLoader, getAgentDir, ModelRegistry, SessionManager, SettingsManager,
  type AgentSession,
} from "@mariozechner/pi-coding-agent";
import { openCollie, type Collie, type Pane } from "@colliepwa/durable-sdk";
import { piHistory, piPane, PI_HOST_NAME } from "@colliepwa/durable-sdk/pi";
import { chooseModel } from "./model.ts";

export interface PiAgentOptions {
  /** The socket; default $COLLIE_DURABLE_SOCKET (S-5). */
  socket?: string;
  /** The folder Pi's tools work in; the sessions are filed under it too. */
  cwd: string;
  /** Where Pi saves the sessions (JSONL files). */
  sessionDir: string;
  /** Pi's settings folder (AGENTS.md, settings.json); default Pi's own (`~/.pi/agent`, `PI_CODING_AGENT_DIR`). */
  agentDir?: string;
  env?: NodeJS.ProcessEnv;
}

const NEW_SESSION = "New session";
/** The tools that change things: their calls wait for the phone's yes. */
const RISKY = new Set(["bash", "write", "edit"]);

export async function startPiAgent(opts: PiAgentOptions): Promise<{ collie: Collie; model: string }> {
  const { cwd, sessionDir } = opts;
  const agentDir = opts.agentDir ?? getAgentDir();
  const chosen = chooseModel(opts.env);
  const authStorage = AuthStorage.inMemory();
  if (chosen.apiKey) authStorage.setRuntimeApiKey(chosen.model.provider, chosen.apiKey);
  else if (chosen.scripted) authStorage.setRuntimeApiKey(chosen.model.provider, "scripted");
  const modelRegistry = ModelRegistry.inMemory(authStorage);
  const sessions = new Map<string, AgentSession>();

  /** Pi's own session around a SessionManager: Pi saves it, runs its checks and hooks. */
  async function open(manager: SessionManager): Promise<AgentSession> {
    const settingsManager = SettingsManager.inMemory({ retry: { enabled: false } });
    // This program is the Pi host here: the `pi` CLI's extensions (Collie's own among them) stay out.
    const resourceLoader = new DefaultResourceLoader({ cwd, agentDir, settingsManager, noExtensions: true });
    await resourceLoader.reload();
    const { session } = await createAgentSession({
      cwd,
      agentDir,
      model: chosen.model,
      authStorage,
      modelRegistry,
      settingsManager,
      resourceLoader,
      sessionManager: manager,
    });
    return session;
  }

  const collie = await openCollie({
    ...(opts.socket ? { socket: opts.socket } : {}),
    hostName: PI_HOST_NAME,
    // Exactly what is wired: piPane answers send (a send during a run is Pi's follow-up), steer
    // and stop; the hooks below the rest.
    caps: { asks: true, send: true, followUp: true, steer: true, stop: true, history: true, starters: true, reopen: true, rename: true, close: true },
    starters: [{ id: "new-session", title: "New session", subtitle: "A fresh Pi session", icon: "note" }],
    hooks: {
      onStarter: async () => show(await open(SessionManager.create(cwd, sessionDir))),
      onReopen: async ({ target }) => {
        if (target.kind !== "pane") return null;
        const saved = (await SessionManager.list(cwd, sessionDir)).find((s) => s.id === target.id);
        return saved ? show(await open(SessionManager.open(saved.path, sessionDir))) : null;
      },
      // A rename from the phone becomes the session's name in Pi's own file, so history shows it.
      onRename: ({ ref, title }) => {
        if (ref.kind === "pane") sessions.get(ref.pane.id)?.setSessionName(title);
      },
      // Closing a conversation stops its run: nobody is looking at it any more (S-30).
      onClose: async ({ ref }) => {
        const panes = ref.kind === "pane" ? [ref.pane] : ref.kind === "tab" ? [...ref.tab.panes.values()] : [...ref.workspace.tabs.values()].flatMap((t) => [...t.panes.values()]);
        await Promise.all(panes.map(async (pane) => {
          const session = sessions.get(pane.id);
          sessions.delete(pane.id);
          await session?.abort();
          session?.dispose();
        }));
      },
    },
  });
  const tab = collie.workspace("pi", { title: "Pi" }).tab("sessions", { title: "Sessions" });

  function show(session: AgentSession): Pane {
    const id = session.sessionId;
    sessions.set(id, session);
    const firstUser = session.messages.find((m) => m.role === "user");
    const firstText = typeof firstUser?.content === "string" ? firstUser.content : firstUser?.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join(" ");
    const named = session.sessionName ?? firstText;
    const pane = piPane(tab, session, {
      id,
      title: named ?? NEW_SESSION,
      cwd,
      risky: (call) => RISKY.has(call.toolName),
      approval: (call) => ({ title: `${call.toolName} wants to run`, push: { line: `${call.toolName} needs a yes` } }),
    });
    // A new session takes its first message as its title, as the history row does.
    if (named === undefined) {
      const stop = session.subscribe((event) => {
        if (event.type !== "message_end" || event.message.role !== "user" || pane.closed) return;
        const text = typeof event.message.content === "string" ? event.message.content : event.message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join(" ");
        if (pane.title === NEW_SESSION && text.trim()) pane.setTitle(text);
        stop();
      });
    }
    return pane;
  }

  // The newest session goes on where it stopped: a card it was waiting on comes back (S-23).
  show(await open(SessionManager.continueRecent(cwd, sessionDir)));
  collie.history(piHistory({ cwd, sessionDir }));
  collie.ready();
  return { collie, model: chosen.label };
}
