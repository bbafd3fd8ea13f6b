/**
 * One Collie per state directory (D-8). Two daemons on one directory would share its database,
 * admin socket and example agent socket; the second would fail half-way with a stack trace after
 * touching them. `collie serve` takes `collie.lock` in the state directory first: it holds the
 * running daemon's pid and, once it listens, its port.
 *
 * The lock is a file, not a held descriptor: a Collie killed by SIGKILL leaves it behind, so a lock
 * whose process is gone is stale and taken over. On Linux the lock also keeps the process's start
 * time, so a pid reused by another program after a crash does not pass for a running Collie.
 */
import { existsSync, linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const LOCK_FILE = "collie.lock";

export interface LockHolder {
  pid: number;
  /** The port it listens on; null while it is still starting. */
  port: number | null;
  /** The process's start time in clock ticks since boot (/proc/PID/stat), where there is /proc. */
  startTicks: number | null;
}

/** Another Collie holds the state directory. */
export class StateDirInUse extends Error {
  override name = "StateDirInUse";
  readonly dir: string;
  readonly holder: LockHolder;
  constructor(dir: string, holder: LockHolder) {
    super(`a Collie is already running with this state directory (pid ${holder.pid}, ${holder.port === null ? "still starting" : `port ${holder.port}`}): ${dir}. Stop it first, or give this one another --state-dir.`);
    this.dir = dir;
    this.holder = holder;
  }
}

export interface StateLock {
  readonly path: string;
  /** A lock left by a Collie that stopped without removing it was taken over: the directory was used. */
  readonly tookOverStale: boolean;
  /** Records the port once the daemon listens, for the message a second Collie prints. */
  setPort(port: number): void;
  /** Removes the lock if it is still this process's (call it on exit). */
  release(): void;
}

/** The fields of /proc/PID/stat after the command name (which may hold spaces and parentheses), or null. */
function procStat(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

/** The start time of a process (field 22 of /proc/PID/stat), or null where /proc does not say. */
export function startTicksOf(pid: number): number | null {
  const ticks = Number(procStat(pid)?.[19]);
  return Number.isSafeInteger(ticks) ? ticks : null;
}

function running(holder: LockHolder): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    // EPERM: it exists but belongs to someone else; only ESRCH says it is gone.
    if ((err as NodeJS.ErrnoException).code === "ESRCH") return false;
  }
  const stat = procStat(holder.pid);
  if (stat === null) return !existsSync("/proc/self/stat"); // without /proc the pid is all there is to go by
  // A zombie has exited and waits for its parent to reap it (a container's pid 1 may never do so).
  if (stat[0] === "Z" || stat[0] === "X") return false;
  return holder.startTicks === null || startTicksOf(holder.pid) === holder.startTicks;
}

function readHolder(path: string): LockHolder | null {
  try {
    const v = JSON.parse(readFileSync(path, "utf8")) as Partial<LockHolder>;
    if (!Number.isSafeInteger(v.pid) || (v.pid as number) <= 0) return null;
    return {
      pid: v.pid as number,
      port: Number.isSafeInteger(v.port) ? (v.port as number) : null,
      startTicks: Number.isSafeInteger(v.startTicks) ? (v.startTicks as number) : null,
    };
  } catch {
    return null; // unreadable or half-written by a process that died: nobody holds it
  }
}

/**
 * Takes the state directory's lock, or throws StateDirInUse naming the Collie that holds it.
 * Creates the directory (owner-only) if needed, and touches nothing else in it.
 */
export function lockStateDir(dir: string, pid: number = process.pid): StateLock {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, LOCK_FILE);
  const mine: LockHolder = { pid, port: null, startTicks: startTicksOf(pid) };
  // Written whole to a private name first, then linked into place: link fails if a lock exists,
  // so no other Collie ever reads a half-written lock or wins a race for it.
  const write = (holder: LockHolder) => {
    const tmp = `${path}.${pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(holder)}\n`, { mode: 0o600 });
    return tmp;
  };
  let tookOverStale = false;
  for (let attempt = 0; ; attempt++) {
    const tmp = write(mine);
    try {
      linkSync(tmp, path);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    } finally {
      unlinkSync(tmp);
    }
    const holder = readHolder(path);
    if (holder && holder.pid !== pid && running(holder)) throw new StateDirInUse(dir, holder);
    if (attempt >= 2) throw new Error(`could not take the lock ${path}`);
    // Stale: its Collie is gone (or it is ours from an earlier start in this process).
    if (holder?.pid !== pid) tookOverStale = true;
    try {
      unlinkSync(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
  }
  let released = false;
  return {
    path,
    tookOverStale,
    setPort(port: number) {
      if (released) return;
      renameSync(write({ ...mine, port }), path);
    },
    release() {
      if (released) return;
      released = true;
      if (readHolder(path)?.pid !== pid) return;
      try {
        unlinkSync(path);
      } catch {
        // already gone
      }
    },
  };
}
