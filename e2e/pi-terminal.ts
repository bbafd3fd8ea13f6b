/**
 * The real `pi` (node_modules/.bin/pi) as a user runs it: interactive, in a terminal. `pi`'s TUI
 * needs a TTY, so it runs in a tmux pane of a tmux server of its own (`-L`, no user config): the
 * journey types into it (`send-keys`) and reads the screen (`capture-pane`), as a person at the
 * keyboard would. The extension is installed the way docs/pi.md says (`pi install <path>`).
 */
import { execFile, execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..");
export const PI_BIN = join(ROOT, "node_modules/.bin/pi");
export const PI_EXTENSION = join(ROOT, "sdk/src/pi/extension.ts");

export interface PiTerminalOptions {
  /** The folder pi runs in. */
  cwd: string;
  /** PI_CODING_AGENT_DIR and COLLIE_STATE_DIR, and anything else. */
  env: Record<string, string>;
}

const tmux = (server: string, args: string[]): Promise<string> =>
  new Promise((resolve, reject) => {
    execFile("tmux", ["-L", server, "-f", "/dev/null", ...args], { encoding: "utf8" }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
  });

/** The offline, quiet environment of a `pi` run in a test (TOOLCHAIN.md). */
export function piEnv(extra: Record<string, string>): Record<string, string> {
  return { PI_OFFLINE: "1", PI_TELEMETRY: "0", PI_SKIP_VERSION_CHECK: "1", ...extra };
}

/** `pi install <path>`, the one command docs/pi.md gives, into PI_CODING_AGENT_DIR. */
export function installExtension(env: Record<string, string>): string {
  return execFileSync(process.execPath, [PI_BIN, "install", PI_EXTENSION], { env: { ...process.env, ...piEnv(env), NODE_OPTIONS: "" }, encoding: "utf8" });
}

export class PiTerminal {
  readonly server = `collie-pi-${randomBytes(4).toString("hex")}`;
  #pid = 0;

  /** Starts `pi --provider scripted --model scripted` in a terminal 100 columns wide. */
  async start(opts: PiTerminalOptions): Promise<void> {
    const env = Object.entries({ ...piEnv(opts.env), NODE_OPTIONS: "" }).map(([k, v]) => `${k}=${v}`);
    await tmux(this.server, [
      "new-session", "-d", "-s", "pi", "-x", "100", "-y", "40", "-c", opts.cwd,
      "env", ...env, process.execPath, PI_BIN, "--provider", "scripted", "--model", "scripted",
    ]);
    this.#pid = Number((await tmux(this.server, ["list-panes", "-t", "pi", "-F", "#{pane_pid}"])).trim());
  }

  /** The process running in the pane: `pi` itself (env execs it). */
  get pid(): number {
    return this.#pid;
  }

  /** Types a line and presses Enter. */
  async type(text: string): Promise<void> {
    await tmux(this.server, ["send-keys", "-t", "pi", "-l", text]);
    await tmux(this.server, ["send-keys", "-t", "pi", "Enter"]);
  }

  async keys(...keys: string[]): Promise<void> {
    await tmux(this.server, ["send-keys", "-t", "pi", ...keys]);
  }

  /** The screen as the user sees it (and what scrolled off, a little). */
  async screen(): Promise<string> {
    try {
      return await tmux(this.server, ["capture-pane", "-p", "-J", "-S", "-200", "-t", "pi"]);
    } catch {
      return "";
    }
  }

  /** Waits until the screen matches; fails with the screen after `ms`. */
  async waitFor(re: RegExp, ms = 120_000): Promise<string> {
    const end = Date.now() + ms;
    for (;;) {
      const screen = await this.screen();
      if (re.test(screen)) return screen;
      if (Date.now() > end) throw new Error(`the terminal never showed ${re}; it shows:\n${screen}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** True while pi runs in its pane. */
  alive(): boolean {
    try {
      process.kill(this.#pid, 0);
      return true;
    } catch {
      return false;
    }
  }

  /** Ends the terminal (and a pi still in it). */
  async close(): Promise<void> {
    await tmux(this.server, ["kill-server"]).catch(() => "");
  }
}
