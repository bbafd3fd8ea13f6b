/** Types of build.js (plain JavaScript, loaded by the bin before any TypeScript). */
export declare const ROOT: string;
export declare const STAMP: string;
export declare const BUILT_MAIN: string;
/** The packages the daemon runs, and the entries each build must hold. */
export declare const PACKAGES: readonly { dir: string; entries: string[] }[];
export interface BuildInputs {
  typescript: string | null;
  files: [path: string, size: number, mtimeMs: number][];
}
export declare function inputs(root?: string): BuildInputs;
export declare function buildState(root?: string): "current" | "stale" | "missing";
export declare function build(opts?: { root?: string; force?: boolean; log?: (line: string) => void; waitMs?: number }): Promise<{ ok: true; built: boolean } | { ok: false; reason: string }>;
