/** Where Collie keeps its files (D-1, D-8): XDG directories, overridable by flag or variable. */
import { homedir } from "node:os";
import { join } from "node:path";

/** sources.json: `--sources`, else `COLLIE_SOURCES`, else `$XDG_CONFIG_HOME/collie/sources.json`. */
export function sourcesPath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (flag) return flag;
  if (env.COLLIE_SOURCES) return env.COLLIE_SOURCES;
  const config = env.XDG_CONFIG_HOME || join(homedir(), ".config");
  return join(config, "collie", "sources.json");
}

/** The state directory: `--state-dir`, else `COLLIE_STATE_DIR`, else `$XDG_STATE_HOME/collie`. */
export function stateDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (flag) return flag;
  if (env.COLLIE_STATE_DIR) return env.COLLIE_STATE_DIR;
  const state = env.XDG_STATE_HOME || join(homedir(), ".local", "state");
  return join(state, "collie");
}

/** The port Collie listens on by default. */
export const DEFAULT_PORT = 7717;
/** Loopback only, unless the user says otherwise. */
export const DEFAULT_HOST = "127.0.0.1";
