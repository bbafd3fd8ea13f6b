/** Types of child-ipc.js. */
export declare function nowMs(): number;
export declare function serveParent(handler: (m: Record<string, unknown> & { type: string }) => unknown): void;
