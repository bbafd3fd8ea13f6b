/**
 * The crew protocol (C-1): what a lead and a member Collie agree on besides the phone API the lead
 * reads the member through. The version is exchanged on connect (`GET /api/crew/hello`); a member
 * that speaks another version, or none (an older Collie answers 404), is shown as
 * `Version mismatch` and takes no actions from the lead.
 */
import { PHONE_ROUTES } from "@colliepwa/shared";

/** The crew protocol version this Collie speaks. */
export const CREW_PROTOCOL_VERSION = 1;

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
