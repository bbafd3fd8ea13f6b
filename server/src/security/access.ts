/**
 * Who may call a route. Every route of the phone-facing app declares its access where it is
 * registered, in its `config`; the gate decides on the route the router matched, never on the URL
 * text, so `/%61pi/snapshot`, `//api/…` or an absolute-form target cannot slip past it. A route
 * that declares no access does not start (`requireAccess`, run for every route at registration).
 *
 * - `public`: anyone who names this Collie's host (the app shell, the health check, the pairing
 *   exchange);
 * - `device`: a paired device only (its cookie or bearer token).
 *
 * The third kind of caller, the `collie` command on this machine, never reaches these routes: it
 * talks to the owner-only admin socket (`admin.ts`), a separate listener with its own routes.
 */
export type Access = "public" | "device";

const ACCESS: ReadonlySet<string> = new Set<Access>(["public", "device"]);

declare module "fastify" {
  interface FastifyContextConfig {
    /** Who may call this route; every route must say. */
    access?: Access;
    /** True on the one route that takes WebSocket upgrades; an upgrade to any other is a 404. */
    upgrade?: boolean;
  }
}

/** Route options that declare access, to spread into a route's options. */
export const PUBLIC = Object.freeze({ config: Object.freeze({ access: "public" as Access }) });
export const DEVICE = Object.freeze({ config: Object.freeze({ access: "device" as Access }) });
/** A paired device's WebSocket route. */
export const DEVICE_UPGRADE = Object.freeze({ config: Object.freeze({ access: "device" as Access, upgrade: true }) });

/** Throws when a route being registered declares no access (or an unknown one): it must not start. */
export function requireAccess(route: { method: string | string[]; url: string; config?: unknown }): void {
  const access = (route.config as { access?: unknown } | undefined)?.access;
  if (typeof access !== "string" || !ACCESS.has(access)) {
    throw new Error(`route ${[route.method].flat().join(",")} ${route.url} declares no access (config.access: "public" or "device")`);
  }
}
