/**
 * The crew protocol (C-1): what a lead and a member Collie agree on besides the phone API the lead
 * reads the member through. The check runs both ways. The lead names its version on every request
 * (`Collie-Crew`), and a member that does not speak it refuses the request with
 * `409 agent-version-mismatch` and the version it speaks (`speaks`); the lead reads the member's on
 * connect (`GET /api/crew/hello`). Either way a member on another version, or none (an older
 * Collie answers 404), is shown as `Version mismatch` and takes no actions from the lead.
 */
import { PHONE_ROUTES } from "@colliepwa/shared";

/** The crew protocol version this Collie speaks. */
export const CREW_PROTOCOL_VERSION = 1;

/** The header a lead names its crew protocol versions in, on every request to a member (`1`, or `1, 2`). */
export const CREW_HEADER = "collie-crew";

/**
 * The versions a `Collie-Crew` header names, or null for one that names none (unreadable). A lead
 * from before the header sends none at all: it speaks version 1.
 */
export function crewVersions(header: string | string[] | undefined): number[] | null {
  if (header === undefined) return [1];
  const parts = String(header).split(",").map((p) => p.trim());
  const versions = parts.filter((p) => /^[1-9]\d{0,5}$/.test(p)).map(Number);
  return versions.length > 0 && versions.length === parts.length ? versions : null;
}

/** The words of a refusal for a lead on another crew protocol (both ends show them). */
export function crewMismatch(member: readonly number[] | number | null, lead: number | string): string {
  const m = member === null ? "none" : [member].flat().join(", ");
  return `the member speaks crew protocol ${m}, the lead speaks ${lead}`;
}

/** `GET /api/crew/hello`: the member's crew protocol version and Collie version. */
export const CREW_HELLO_PATH = PHONE_ROUTES.crewHello.path;
/** `POST /api/crew/join {invite, name}`: trades an invite for a crew credential. */
export const CREW_JOIN_PATH = PHONE_ROUTES.crewJoin.path;

export interface CrewHello {
  crew: number;
  collie: string;
}

export interface CrewJoinReply {
  joined: true;
  crew: number;
  device: { id: string; name: string };
  token: string;
}
