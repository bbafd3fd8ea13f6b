/**
 * The twelve icons an agent's button may name (S-18, P-22), as small inline SVGs drawn from fixed
 * paths: no agent text ever reaches the markup. Another name draws no icon.
 */
import type { IconName } from "@colliepwa/durable-sdk/wire";

const PATHS = {
  play: "M8 5v14l11-7z",
  pause: "M7 5h3v14H7z M14 5h3v14h-3z",
  check: "M5 12.5l4.5 4.5L19 7.5",
  x: "M6 6l12 12 M18 6L6 18",
  refresh: "M19.5 12a7.5 7.5 0 1 1-2.2-5.3 M20 4v5h-5",
  archive: "M3 4h18v4H3z M5 8v12h14V8 M10 12h4",
  flag: "M5 21V4 M5 4h12l-2.5 4L17 12H5",
  star: "M12 3.5l2.6 5.3 5.9.9-4.3 4.1 1 5.8L12 16.8l-5.2 2.8 1-5.8L3.5 9.7l5.9-.9z",
  send: "M21 3L10 14 M21 3l-6.5 18-4.5-7-7-4.5z",
  note: "M6 3h9l4 4v14H6z M14 3v5h5 M9 13h7 M9 17h5",
  search: "M10.5 4a6.5 6.5 0 1 0 0 13 6.5 6.5 0 1 0 0-13z M15.5 15.5L20 20",
  more: "M5 11h2v2H5z M11 11h2v2h-2z M17 11h2v2h-2z",
} as const satisfies Record<IconName, string>;

export const ICON_NAMES = Object.freeze(Object.keys(PATHS)) as readonly IconName[];

export function isIconName(name: string): name is IconName {
  return Object.hasOwn(PATHS, name);
}

/** An icon by name; null for a name that is not one of the twelve. */
export function Icon({ name }: { name: string }) {
  if (!isIconName(name)) return null;
  return (
    <svg className="icon" data-icon={name} viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false"
      fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
      <path d={PATHS[name]} />
    </svg>
  );
}
