/**
 * Who is calling on the socket (S-7), without native addons (Linux): the accepted socket's inode
 * from /proc/self/fd, its peer inode and the pid holding that peer from `ss -xpnH` (iproute2).
 * Looked up once per connection (a few ms), never per request.
 */
import { execFile } from "node:child_process";
import { readFileSync, readlinkSync } from "node:fs";
import type { Socket } from "node:net";

/** True when this system lets the core tell who calls: Linux with /proc and a working `ss`. */
export async function canIdentifyPeers(): Promise<boolean> {
  if (process.platform !== "linux") return false;
  // Bun's node:http hands the request a socket without a file descriptor, so no caller can be tied
  // to a connection: the check would refuse every write. There the hello says descendantCheck:
  // false and the agent runs its tools in a sandbox that cannot reach the socket (S-7).
  if (typeof (process.versions as Record<string, string | undefined>).bun === "string") return false;
  try {
    readlinkSync("/proc/self/fd/0");
  } catch {
    // /proc not mounted; fd 0 may be closed, so test another fd that surely exists
    try {
      readFileSync("/proc/self/stat");
    } catch {
      return false;
    }
  }
  return (await runSs()) !== null;
}

const SS_TIMEOUT_MS = 10_000;

function runSs(): Promise<string | null> {
  return new Promise((resolve) => {
    // `ss` lists every Unix socket of the machine: on a loaded machine it can take seconds, and a
    // lookup that times out refuses the write it was for (fail closed), so the limit is generous.
    execFile("ss", ["-xpnH"], { encoding: "utf8", timeout: SS_TIMEOUT_MS, maxBuffer: 32 * 1024 * 1024 }, (err, stdout) => resolve(err ? null : stdout));
  });
}

/** The pids holding the other end of an accepted Unix socket, or null when they cannot be found. */
export async function peerPids(socket: Socket): Promise<number[] | null> {
  const fd = (socket as unknown as { _handle?: { fd?: number } })._handle?.fd;
  if (typeof fd !== "number" || fd < 0) return null;
  let inode: string;
  try {
    const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
    if (!m) return null;
    inode = m[1]!;
  } catch {
    return null;
  }
  const table = await runSs();
  if (table === null) return null;
  // Columns: Netid State Recv-Q Send-Q Local-Address Local-Inode Peer-Address Peer-Inode [users:(...)].
  // An address is a path and may hold spaces, so the line is not split on white space: the peer's
  // own line is the one whose Peer-Inode (the last number before `users:(...)`) is our inode.
  for (const line of table.split("\n")) {
    const m = /\s(\d+)(\s+users:\(.*)?\s*$/.exec(line);
    if (!m || m[1] !== inode || !m[2]) continue;
    const pids = [...m[2].matchAll(/pid=(\d+)/g)].map((p) => Number(p[1]));
    if (pids.length > 0) return pids;
  }
  return null;
}

/** The parent of a pid, from /proc/<pid>/stat (the field after the parenthesised command). */
function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const after = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ppid = Number(after[1]);
    return Number.isInteger(ppid) ? ppid : null;
  } catch {
    return null;
  }
}

/** True when `pid` is `ancestor` itself or one of its descendants. */
export function isSelfOrDescendant(pid: number, ancestor: number = process.pid): boolean {
  let current: number | null = pid;
  for (let hops = 0; current !== null && current > 1 && hops < 4096; hops++) {
    if (current === ancestor) return true;
    current = parentOf(current);
  }
  return false;
}
