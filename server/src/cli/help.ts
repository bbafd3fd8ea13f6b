/**
 * The `collie` command line's help (D-6): every command with every flag it reads, so a newcomer
 * never has to read the code to find one. `collie --help` shows them all; `collie <command> --help`
 * and `collie help <command>` show one.
 */

export interface CommandHelp {
  /** The words that name the command: "pair", "devices revoke", "crew invite". */
  name: string;
  /** The arguments after the name, as in a usage line. */
  synopsis: string;
  summary: string;
  /** Every flag the command reads, with what it does and its default. */
  flags: readonly (readonly [flag: string, meaning: string])[];
}

const STATE_DIR = ["--state-dir D", "the running Collie's state directory (default ~/.local/state/collie, or COLLIE_STATE_DIR)"] as const;

export const COMMANDS: readonly CommandHelp[] = [
  {
    name: "serve",
    synopsis: "[--sources F] [--port N] [--host H] [--state-dir D] [--allow-host NAME] [--fresh-state]",
    summary: "Runs the Collie daemon and serves the phone app (the default command). Without a sources.json it runs the bundled example agent. An agent on COLLIE_DURABLE_SOCKET is shown too when sources.json does not name that socket.",
    flags: [
      ["--sources F", "the agents to connect to (default ~/.config/collie/sources.json, or COLLIE_SOURCES; docs/sources.md)"],
      ["--port N", "the port to listen on (default 7717, or COLLIE_PORT; 0 picks a free one)"],
      ["--host H", "the address to listen on (default 127.0.0.1; anything else only behind a front door with TLS, docs/deployment.md)"],
      ["--state-dir D", "where Collie keeps its state: database, admin socket, audit log (default ~/.local/state/collie, or COLLIE_STATE_DIR)"],
      ["--allow-host NAME", "a host name a front door reaches Collie by (more: COLLIE_ALLOWED_HOSTS=a,b; docs/deployment.md)"],
      ["--fresh-state", "start over on purpose when the state database (collie.db) is missing, empty or damaged in a state directory used before: paired phones, held messages and push subscriptions are lost, a damaged file is kept beside it. Without it Collie refuses to start and says what to do"],
    ],
  },
  {
    name: "durable attach",
    synopsis: "<name> (--socket PATH | --url URL --token T [--ca file:PEM]) [--sources F] [--state-dir D]",
    summary: "Adds an agent to sources.json, or updates the one of that name; a running Collie applies it at once (the first file written under a Collie that shows the bundled example keeps the example in it). Without --socket or --url it takes the socket from COLLIE_DURABLE_SOCKET.",
    flags: [
      ["--socket PATH", "the agent's private Unix socket"],
      ["--url URL", "the agent's https address, for an agent on another machine"],
      ["--token T", "the bearer token for --url: a value, env:NAME or file:PATH"],
      ["--ca file:PEM", "a CA certificate to trust for --url"],
      ["--sources F", "the sources.json to edit (default ~/.config/collie/sources.json, or COLLIE_SOURCES)"],
      STATE_DIR,
    ],
  },
  {
    name: "agents",
    synopsis: "[--state-dir D]",
    summary: "Lists the running Collie's agents with their state and conversations.",
    flags: [STATE_DIR],
  },
  {
    name: "pair",
    synopsis: "[--url ORIGIN] [--port N] [--state-dir D] [--json]",
    summary: "Prints a one-time link and QR code that pairs a phone (valid 10 minutes, once). Needs a running Collie.",
    flags: [
      ["--url ORIGIN", "the address the phone opens Collie at, e.g. your front door's https origin (docs/deployment.md); default http://127.0.0.1:PORT"],
      ["--port N", "the port the link names (default: the running Collie's own port)"],
      STATE_DIR,
      ["--json", "prints {code, link, expiresAt} as JSON instead"],
    ],
  },
  {
    name: "devices",
    synopsis: "[--state-dir D]",
    summary: "Lists the paired devices.",
    flags: [STATE_DIR],
  },
  {
    name: "devices revoke",
    synopsis: "<id> [--state-dir D]",
    summary: "Unpairs a device (its id from: collie devices); a crew lead is cut at once, open connections included.",
    flags: [STATE_DIR],
  },
  {
    name: "crew invite",
    synopsis: "[--url ORIGIN] [--state-dir D] [--json]",
    summary: "On a member machine: prints a one-time invite (valid 10 minutes, once) that lets a lead Collie show and answer this machine's agents (docs/crew.md). Needs a running Collie.",
    flags: [
      ["--url ORIGIN", "this machine's front door as the lead reaches it (docs/deployment.md); default http://127.0.0.1:7717"],
      STATE_DIR,
      ["--json", "prints {url, invite} as JSON instead"],
    ],
  },
  {
    name: "crew join",
    synopsis: "<name> <member-url> <invite> [--sources F] [--state-dir D]",
    summary: "On the lead: redeems a member's invite, keeps the crew credential in the state directory and adds the member to sources.json as <name>; a running Collie applies it at once, keeping the bundled example it shows (docs/crew.md).",
    flags: [
      ["--sources F", "the sources.json to edit (default ~/.config/collie/sources.json, or COLLIE_SOURCES)"],
      ["--state-dir D", "where the credential is kept (default ~/.local/state/collie, or COLLIE_STATE_DIR)"],
    ],
  },
];

const HELP_FLAG = ["--help", "this help (also: collie help <command>)"] as const;

/** The usage lines of every command, for a usage error. */
export const USAGE = `usage:\n${COMMANDS.map((c) => `  collie ${c.name} ${c.synopsis}`).join("\n")}\n  collie <command> --help`;

function describe(c: CommandHelp): string {
  const flags = [...c.flags, HELP_FLAG];
  const width = Math.max(...flags.map(([f]) => f.length));
  return [`collie ${c.name} ${c.synopsis}`, `  ${c.summary}`, ...flags.map(([f, m]) => `    ${f.padEnd(width)}  ${m}`)].join("\n");
}

/** The command the words name, by the longest match ("devices revoke x" is devices revoke). */
export function commandNamed(words: readonly string[]): CommandHelp | undefined {
  return [...COMMANDS].sort((a, b) => b.name.length - a.name.length).find((c) => {
    const parts = c.name.split(" ");
    return parts.every((p, i) => words[i] === p);
  });
}

/** Help for the command the words name, or for every command. */
export function helpFor(words: readonly string[]): string {
  const one = commandNamed(words);
  if (one) return describe(one);
  return [
    "collie: run durable agents from your phone. Commands (serve is the default):",
    "",
    ...COMMANDS.map((c) => `${describe(c)}\n`),
    "collie <command> --help shows one command. README.md and docs/ say more.",
  ].join("\n");
}
