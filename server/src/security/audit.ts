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

  constructor(stateDir: string | ":memory:", now: () => number = Date.now) {
    this.path = stateDir === ":memory:" ? null : join(stateDir, "audit.log");
    this.#now = now;
  }

  write(e: AuditEntry): void {
    if (!this.path) return;
    const line = JSON.stringify({ time: new Date(this.#now()).toISOString(), ...e }) + "\n";
    try {
      if (existsSync(this.path) && statSync(this.path).size + line.length > AUDIT_MAX_BYTES) renameSync(this.path, `${this.path}.1`);
      const fresh = !existsSync(this.path);
      appendFileSync(this.path, line, { mode: 0o600 });
      if (fresh) chmodSync(this.path, 0o600);
    } catch {
      // The audit log must never stop an action; the failure is visible as a missing line.
    }
  }
}
