/**
 * Runs a server fixture agent (server/test/fixtures/agents/*.ts) in a child process, with the SDK
 * tests' ChildAgent (sdk/test/helpers/child-agent.ts): the SDK refuses writes from the agent's own
 * process tree (S-7), and the daemon runs in the test process, the agent's parent, so its writes
 * are allowed. A wait here has the tests' generous deadline (DEADLINE_MS).
 */
import { fileURLToPath } from "node:url";
import { ChildAgent as FixtureAgent, killAllAgents, NODE_FLAGS, type Message } from "../../../sdk/test/helpers/child-agent.ts";
import { DEADLINE_MS } from "./wait.ts";

export { killAllAgents, NODE_FLAGS, type Message };

export const AGENTS_DIR = fileURLToPath(new URL("../fixtures/agents/", import.meta.url));

export class ChildAgent extends FixtureAgent {
  constructor(script: string, args: string[] = [], env: NodeJS.ProcessEnv = {}) {
    super(script, args, env, { dir: AGENTS_DIR, deadlineMs: DEADLINE_MS });
  }
}

/** Starts a fixture agent and waits for its `{"ready": true, ...}` line. */
export async function startAgent(script: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<{ agent: ChildAgent; ready: Message }> {
  const agent = new ChildAgent(script, args, env);
  const ready = await agent.waitFor((m) => m.ready === true);
  return { agent, ready };
}
