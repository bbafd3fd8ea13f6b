/**
 * A resolver for push endpoint names (server/src/push/endpoints.ts) that answers from a table, so
 * no test needs the internet or the machine's DNS. A name the table does not know fails as the
 * system resolver fails for it (ENOTFOUND). `answers` can be changed between calls (DNS rebinding),
 * and `asked` counts the lookups per name.
 */
import type { Resolve } from "../../src/push/endpoints.ts";

export interface TableResolver {
  resolve: Resolve;
  answers: Map<string, string[]>;
  asked: Map<string, number>;
}

export function tableResolver(entries: Record<string, string[]> = {}): TableResolver {
  const answers = new Map(Object.entries(entries));
  const asked = new Map<string, number>();
  const resolve: Resolve = async (host) => {
    asked.set(host, (asked.get(host) ?? 0) + 1);
    const list = answers.get(host.toLowerCase());
    if (!list || list.length === 0) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    return list.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return { resolve, answers, asked };
}

/** Knows no name: every push endpoint a test daemon is handed fails to resolve, offline. */
export const NO_NAMES: Resolve = tableResolver().resolve;
