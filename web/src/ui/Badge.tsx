import { STRINGS } from "@colliepwa/shared";

/** The `Experimental` badge (P-2, P-21). */
export function ExperimentalBadge() {
  return <span className="badge">{STRINGS.experimental}</span>;
}
