#!/usr/bin/env node
/**
 * `collie`: the daemon's entry point. The daemon (sources.json, agent connections, the phone API)
 * is not built yet; until it is, this says so plainly instead of pretending to serve.
 */
import { WIRE_VERSION } from "@colliepwa/durable-sdk/wire";

console.log(
  `Collie: the daemon is not built yet. The durable wire v${WIRE_VERSION} and the SDK are in sdk/; ` +
    "see README.md for what works today.",
);
