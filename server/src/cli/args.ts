import { parseArgs as parseNodeArgs } from "node:util";
import { COMMANDS } from "./help.ts";

/** The command line, read: positionals, and flags by name (`true` for a flag that takes no value). */
export interface Args {
  positionals: string[];
  flags: Map<string, string | true>;
}

/**
 * The flags every command knows, from the help (help.ts lists each flag a command reads): one
 * with a placeholder (`--port N`) takes a value, one without (`--json`) does not.
 */
const OPTIONS: Record<string, { type: "string" | "boolean" }> = Object.fromEntries([
  ["help", { type: "boolean" as const }],
  ...COMMANDS.flatMap((c) => c.flags.map(([flag]) => {
    const [name, placeholder] = flag.replace(/^--/, "").split(" ");
    return [name!, { type: placeholder ? "string" as const : "boolean" as const }];
  })),
]);

/** Reads argv with node:util's parseArgs; an unknown flag, or one without its value, is a UsageError. */
export function parseArgs(argv: string[]): Args {
  // Only `--name` is a flag here (collie has no short flags): an argument with a single dash is a
  // positional, such as a name the command then refuses with its own clear message. node:util
  // would read it as a short flag, so it goes through under a stand-in.
  const dashed = new Map<string, string>();
  const args = argv.map((a, i) => {
    if (!a.startsWith("-") || a.startsWith("--") || a === "-") return a;
    const stand = `\u0000${i}`;
    dashed.set(stand, a);
    return stand;
  });
  let parsed;
  try {
    parsed = parseNodeArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    const e = err as Error & { code?: string };
    const missing = /^Option '(--[\w-]+)/.exec(e.message);
    if (e.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && missing) throw new UsageError(`${missing[1]} needs a value`);
    throw new UsageError(e.message.replace(/\. To specify a positional argument.*$/s, ""));
  }
  const flags = new Map<string, string | true>();
  for (const [name, value] of Object.entries(parsed.values)) {
    if (value === undefined || value === false) continue;
    flags.set(name, typeof value === "string" ? dashed.get(value) ?? value : true);
  }
  return { positionals: parsed.positionals.map((p) => dashed.get(p) ?? p), flags };
}

export class UsageError extends Error {
  override name = "UsageError";
}

export function flag(args: Args, name: string): string | undefined {
  const v = args.flags.get(name);
  if (v === true) throw new UsageError(`--${name} needs a value`);
  return v;
}
