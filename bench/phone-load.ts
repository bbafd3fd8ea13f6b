/**
 * Phones that only watch (the load's phone clients), in their own process: each connects to
 * `/api/live` and watches up to 64 busy chats, so items flow to it as they would to a phone with
 * those chats open. Reports what it received.
 *
 *   env BENCH_URL, BENCH_TOKEN, BENCH_PHONES, BENCH_WATCH = JSON [[agent, pane], ...]
 */
import { Phone } from "./phone.ts";
import { serveParent } from "./lib.ts";

const url = process.env.BENCH_URL!;
const token = process.env.BENCH_TOKEN!;
const count = Number(process.env.BENCH_PHONES ?? 1);
const watch = JSON.parse(process.env.BENCH_WATCH ?? "[]") as [string, string][];
const phones: Phone[] = [];
for (let i = 0; i < count; i++) {
  const phone = await Phone.connect(url, token);
  // Each phone shows a different slice of the chats (the hub keeps at most 64 per phone).
  for (const [agent, pane] of watch.slice(i * 64, i * 64 + 64)) phone.watch(agent, pane);
  phones.push(phone);
}

serveParent((m) => {
  switch (m.type) {
    case "stats":
      return phones.map((p) => ({ messages: p.messages, bytes: p.bytes, counts: { ...p.counts } }));
    case "exit":
      for (const p of phones) p.close();
      return null;
    default:
      throw new Error(`unknown command ${m.type}`);
  }
});
process.send!({ type: "ready" });
