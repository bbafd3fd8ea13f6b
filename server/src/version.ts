/** Collie's own version and the wire versions it speaks (S-34). */
import { WIRE_VERSION } from "@colliepwa/durable-sdk/wire";

export const COLLIE_VERSION = "0.1.0";
/** The wire version this Collie speaks. */
export const COLLIE_WIRE_VERSION = WIRE_VERSION;
/**
 * Every version accepted: this one and, for one minor release after a new one ships, the
 * previous one (S-34). v1 is the first, so there is no previous one yet.
 */
export const COLLIE_WIRE_VERSIONS: readonly number[] = [WIRE_VERSION];
