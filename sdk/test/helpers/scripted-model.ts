/**
 * A scripted model for the real `pi` CLI (TOOLCHAIN.md, "Audits and the Pi CLI"): an
 * OpenAI-compatible `POST /v1/chat/completions` on loopback that streams `chat.completion.chunk`s,
 * so `pi` runs its own provider code with no network and no key. What it answers depends on the
 * last message:
 *
 *   `run <command>`  → a `bash` tool call with that command; after its result, `Output: <result>`
 *   `write <path> <text>` → a `write` tool call
 *   `slow <n>`       → `n` text chunks, one every 200 ms, then `Done slowly.` (a turn to stop or outlive)
 *   anything else    → `Heard: <text>`
 *   a tool result    → `Output: <its text>` (`Refused: <its text>` when the call was blocked)
 *
 * Every request body is kept (`requests`), so a test can read what Pi sent. `agentDir(dir)` writes
 * a Pi `models.json` naming the provider `scripted` with the model `scripted` at this server.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import { join } from "node:path";

interface ChatMessage {
  role: string;
  content?: unknown;
  tool_call_id?: string;
}

export interface ScriptedModel {
  url: string;
  /** Every chat request Pi sent, in order. */
  requests: { messages: ChatMessage[] }[];
  /** Writes `<dir>/models.json` for Pi (PI_CODING_AGENT_DIR=<dir>). */
  agentDir(dir: string): void;
  close(): Promise<void>;
}

const text = (content: unknown): string =>
  typeof content === "string" ? content : Array.isArray(content) ? content.map((p: { text?: unknown }) => (typeof p?.text === "string" ? p.text : "")).join("") : "";

export async function startScriptedModel(): Promise<ScriptedModel> {
  const requests: { messages: ChatMessage[] }[] = [];
  let calls = 0;
  const server: Server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => {
      let parsed: { messages?: ChatMessage[] };
      try {
        parsed = JSON.parse(body) as { messages?: ChatMessage[] };
      } catch {
        res.writeHead(400).end();
        return;
      }
      const messages = parsed.messages ?? [];
      requests.push({ messages });
      void answer(res, messages, ++calls);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as { port: number }).port;
  const url = `http://127.0.0.1:${port}/v1`;
  return {
    url,
    requests,
    agentDir(dir: string) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeFileSync(join(dir, "models.json"), JSON.stringify({
        providers: {
          scripted: {
            api: "openai-completions",
            baseUrl: url,
            apiKey: "scripted-key",
            compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
            models: [{ id: "scripted", name: "scripted", reasoning: false, input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 100_000, maxTokens: 4096 }],
          },
        },
      }));
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

async function answer(res: ServerResponse, messages: ChatMessage[], n: number): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    res.write(`data: ${JSON.stringify({ id: `c${n}`, object: "chat.completion.chunk", created: 1, model: "scripted", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
  const say = (words: string) => {
    chunk({ role: "assistant", content: "" });
    // A few pieces, so the reply streams as partial text.
    for (const piece of words.match(/.{1,12}/gs) ?? [""]) chunk({ content: piece });
    chunk({}, "stop");
  };
  const call = (name: string, args: Record<string, unknown>) => {
    chunk({ role: "assistant", content: null, tool_calls: [{ index: 0, id: `call_${n}`, type: "function", function: { name, arguments: "" } }] });
    chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify(args) } }] });
    chunk({}, "tool_calls");
  };
  const last = messages.at(-1);
  if (last?.role === "tool") {
    const result = text(last.content);
    say(/was not run/.test(result) ? `Refused: ${result}` : `Output: ${result.trim()}`);
  } else {
    const said = text(last?.content).trim();
    const run = /^run\s+(.+)$/s.exec(said);
    const write = /^write\s+(\S+)\s+(.+)$/s.exec(said);
    const slow = /^slow\s+(\d+)$/.exec(said);
    if (run) call("bash", { command: run[1]! });
    else if (write) call("write", { path: write[1]!, content: write[2]! });
    else if (slow) {
      chunk({ role: "assistant", content: "" });
      for (let i = 0; i < Number(slow[1]) && !res.destroyed; i++) {
        chunk({ content: `tick ${i} ` });
        await new Promise((r) => setTimeout(r, 200));
      }
      chunk({ content: "Done slowly." });
      chunk({}, "stop");
    } else say(`Heard: ${said}`);
  }
  if (!res.destroyed) {
    res.write("data: [DONE]\n\n");
    res.end();
  }
}
