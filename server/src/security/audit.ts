/**
 * The audit log (issue: security): one line per phone write — action, agent, pane, request id,
 * device, time, outcome — in an owner-only file that is only appended to and rotated at a bounded
 * size. No answer or message text is written.
 */
import { appendFileSync, chmodSync, existsSync, renameSync, statSync } from "node:fs";
import { join } from "node:path";

export interface AuditEntry {
  action: string;
  agent: string;
  pane?: string;
  requestId: string;
  device: string;
  status: number;
  outcome: string;
}

/** Rotate at this size; one older file is kept. */
export const AUDIT_MAX_BYTES = 10 * 1024 * 1024;

export class AuditLog {
  readonly path: string | null;
  readonly #now: () => number;
  /** The file's size as this log knows it; null until read from disk (and after a failure). */
  #size: number | null = null;

  constructor(stateDir: string | ":memory:", now: () => number = Date.now) {
    this.path = stateDir === ":memory:" ? null : join(stateDir, "audit.log");
    this.#now = now;
  }

  write(e: AuditEntry): void {
    if (!this.path) return;
    const line = JSON.stringify({ time: new Date(this.#now()).toISOString(), ...e }) + "\n";
    const bytes = Buffer.byteLength(line);
    try {
      // The size is read from disk once and then kept as lines are appended: a stat and two
      // existence checks per phone action were on the daemon's loop for every tap (issue 31).
      let fresh = false;
      if (this.#size === null) {
        fresh = !existsSync(this.path);
        this.#size = fresh ? 0 : statSync(this.path).size;
      }
      if (this.#size + bytes > AUDIT_MAX_BYTES) {
        renameSync(this.path, `${this.path}.1`);
        this.#size = 0;
        fresh = true;
      }
      appendFileSync(this.path, line, { mode: 0o600 });
      this.#size += bytes;
      if (fresh) chmodSync(this.path, 0o600);
    } catch {
      // The audit log must never stop an action; the failure is visible as a missing line. The
      // size is read again next time (the file may have been moved or removed meanwhile).
      this.#size = null;
    }
  }
}
