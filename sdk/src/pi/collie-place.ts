/**
 * Where a `pi` finds Collie on this machine: its state folder, found the way `collie serve` finds
 * it (server/src/paths.ts; a test keeps the two the same), and the owner-only admin socket in it.
 */
import { homedir } from "node:os";
import { join } from "node:path";

/** The admin socket's file name in Collie's state folder (server/src/security/admin.ts). */
export const ADMIN_SOCKET = "admin.sock";

/** Collie's state folder: `COLLIE_STATE_DIR`, else `$XDG_STATE_HOME/collie`, else `~/.local/state/collie`. */
export function collieStateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.COLLIE_STATE_DIR) return env.COLLIE_STATE_DIR;
  const state = env.XDG_STATE_HOME || join(homedir(), ".local", "state");
  return join(state, "collie");
}

/** The admin socket of the Collie that runs with that state folder. */
export const adminSocketPath = (env: NodeJS.ProcessEnv = process.env): string => join(collieStateDir(env), ADMIN_SOCKET);
