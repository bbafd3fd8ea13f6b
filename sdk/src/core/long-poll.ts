/**
 * The events read (W-3): `GET /durable/v1/events?after=&wait=&viewItems=`. With a cursor and a
 * wait it parks until the next change, the end of the wait, or the caller going away (the
 * request's signal, which the transport aborts), then answers what changed after the cursor.
 */
import { LIMITS } from "../wire/constants.ts";
import type { EventsPage, Layout } from "../wire/types.ts";
import type { EventLog } from "./event-log.ts";
import type { Pane } from "./layout.ts";
import { WireFailure } from "./request.ts";

/** What the read needs of the core. */
export interface EventsSource {
  readonly log: EventLog;
  readonly panes: ReadonlyMap<string, Pane>;
  layout(): Layout;
}

export async function readEvents(source: EventsSource, query: URLSearchParams, signal: AbortSignal | undefined): Promise<EventsPage> {
  const waitParam = query.get("wait");
  const wait = waitParam === null ? 0 : Number(waitParam);
  if (!Number.isInteger(wait) || wait < 0 || wait > LIMITS.maxWaitMs) {
    throw new WireFailure("bad-request", `wait must be an integer from 0 to ${LIMITS.maxWaitMs}`);
  }
  // viewItems (W-3): a reader that mirrors only a tail of each pane asks for views cut to it;
  // it reads a whole view with GET /panes/:pane when it needs one.
  const viewItemsParam = query.get("viewItems");
  const viewItems = viewItemsParam === null ? LIMITS.viewItems : Number(viewItemsParam);
  if (!Number.isInteger(viewItems) || viewItems < 1 || viewItems > LIMITS.viewItems) {
    throw new WireFailure("bad-request", `viewItems must be an integer from 1 to ${LIMITS.viewItems}`);
  }
  const { log, panes } = source;
  const after = log.parseCursor(query.get("after"));
  // Long-poll (W-3): hold the reply until the next change, or until the reader goes away.
  if (after !== null && wait > 0) await log.changed(after, wait, signal);
  if (after === null) {
    return { cursor: log.cursor(), reset: true, layout: source.layout(), views: [...panes.values()].map((p) => p.view(viewItems)), events: [] };
  }
  const read = log.read(after);
  const page: EventsPage = { cursor: log.cursor(read.seq), reset: false, views: [], events: read.events };
  if (read.layoutChanged) page.layout = source.layout();
  for (const id of read.viewPanes) {
    const pane = panes.get(id);
    if (pane) page.views.push(pane.view(viewItems));
  }
  return page;
}
