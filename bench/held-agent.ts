/**
 * An agent for the held-writes run: `BENCH_PANES` panes that take messages, each starting a turn
 * that ends right after, as a real agent's send does. It counts what it got and checks each
 * pane's order: the bench numbers a pane's messages `#0, #1, …` in the order the phone sent them.
 *
 *   env BENCH_SOCKET, BENCH_NAME, BENCH_PANES
 */
import { ALL_CAPS, openCollie } from "@colliepwa/durable-sdk";
import { serveParent } from "./lib.ts";

const socket = process.env.BENCH_SOCKET!;
const name = process.env.BENCH_NAME ?? "held";
const panes = Number(process.env.BENCH_PANES ?? "10");
// It takes a message whenever one comes, during a turn too, so it says so (the `followUp` cap): the
// drain's pace is then the daemon's, not the length of the agent's turns (one message per turn for
// an agent without it, docs/decisions.md).
const collie = await openCollie({ socket, hostName: name, warn: () => {}, caps: { ...ALL_CAPS, followUp: true } });
const tab = collie.workspace("bench", { title: "Bench" }).tab("main", { title: "Main" });

let sends = 0;
let outOfOrder = 0;
let turns = 0;
const last = new Map<string, number>();
for (let i = 0; i < panes; i++) {
  tab.pane(`pane-${i}`, { title: `Pane ${i}`, harness: "bench" }).on({
    onSend: ({ pane, text }) => {
      sends++;
      const n = Number(/#(\d+)$/.exec(text)?.[1] ?? NaN);
      if (Number.isFinite(n)) {
        if (n <= (last.get(pane.id) ?? -1)) outOfOrder++;
        last.set(pane.id, n);
      }
      // A turn as a real agent's: it starts with the message and ends once the reply is written
      // (here at once).
      const turnId = pane.beginTurn(`turn-${++turns}`);
      setImmediate(() => pane.endTurn());
      return { turnId };
    },
  });
}
collie.ready();

serveParent(async (m) => {
  switch (m.type) {
    case "counts":
      return { sends, outOfOrder };
    case "exit":
      await collie.close();
      return null;
    default:
      throw new Error(`unknown command ${m.type}`);
  }
});
process.send!({ type: "ready", name, socket });
