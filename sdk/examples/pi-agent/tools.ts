/**
 * The example's two tools: `read_file` (safe: reads a file under the working folder) and `bash`
 * (risky: runs a shell command there, so the phone is asked first).
 */
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { isAbsolute, relative, resolve } from "node:path";
import type { AgentTool } from "@mariozechner/pi-agent-core";
import { Type } from "@mariozechner/pi-ai";

/** What a tool returns to the model, cut so one huge file cannot flood the conversation. */
const MAX_OUTPUT = 16 * 1024;
const text = (t: string) => ({ content: [{ type: "text" as const, text: t.length > MAX_OUTPUT ? `${t.slice(0, MAX_OUTPUT)}\n…` : t }], details: {} });

const readParams = Type.Object({ path: Type.String({ description: "A file under the working folder" }) });
const bashParams = Type.Object({ command: Type.String({ description: "A shell command" }) });

export function readFileTool(cwd: string): AgentTool<typeof readParams> {
  return {
    name: "read_file",
    label: "Read file",
    description: "Read a text file under the working folder.",
    parameters: readParams,
    execute: async (_id, { path }, signal) => {
      const full = resolve(cwd, path);
      const inside = relative(cwd, full);
      if (inside.startsWith("..") || isAbsolute(inside)) throw new Error(`${path} is outside ${cwd}`);
      return text(await readFile(full, { encoding: "utf8", ...(signal ? { signal } : {}) }));
    },
  };
}

export function bashTool(cwd: string): AgentTool<typeof bashParams> {
  return {
    name: "bash",
    label: "Shell",
    description: "Run a shell command in the working folder and return what it printed.",
    parameters: bashParams,
    execute: (_id, { command }, signal) =>
      new Promise((done, fail) => {
        // A stop on the phone aborts the run, and the signal ends the command with it.
        execFile("sh", ["-c", command], { cwd, timeout: 60_000, maxBuffer: 4 * MAX_OUTPUT, ...(signal ? { signal } : {}) }, (err, stdout, stderr) => {
          const out = `${stdout}${stderr}`.trimEnd();
          if (err) fail(new Error(out || err.message));
          else done(text(out || "(no output)"));
        });
      }),
  };
}
