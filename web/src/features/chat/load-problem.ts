/**
 * What a failed read of a closed conversation says (P-8's words, reused for P-6's read-only view).
 */
import { STRINGS } from "@colliepwa/shared";

export function loadProblem(status: number, body: Record<string, unknown>, wire?: { agent: number | null; collie: number }): string {
  const code = typeof body.error === "string" ? body.error : "";
  if (code === "not-supported") return STRINGS.noHistory;
  if (code === "agent-version-mismatch" && wire && wire.agent !== null) return STRINGS.historyVersion(wire.agent, wire.collie);
  if (status === 503 || status === 504) return STRINGS.historyNoAnswer;
  return STRINGS.historyFailed;
}
