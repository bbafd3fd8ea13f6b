/** A small argument parser: `--name value`, `--name=value` and positionals. */
export interface Args {
  positionals: string[];
  flags: Map<string, string | true>;
}

export function parseArgs(argv: string[], booleans: ReadonlySet<string> = new Set()): Args {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith("--")) {
      positionals.push(a);
      continue;
    }
    const eq = a.indexOf("=");
    if (eq > 0) flags.set(a.slice(2, eq), a.slice(eq + 1));
    else if (booleans.has(a.slice(2)) || i + 1 >= argv.length || argv[i + 1]!.startsWith("--")) flags.set(a.slice(2), true);
    else flags.set(a.slice(2), argv[++i]!);
  }
  return { positionals, flags };
}

export class UsageError extends Error {
  override name = "UsageError";
}

export function flag(args: Args, name: string): string | undefined {
  const v = args.flags.get(name);
  if (v === true) throw new UsageError(`--${name} needs a value`);
  return v;
}
