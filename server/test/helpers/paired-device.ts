/** A device paired the way a phone pairs (a one-time code traded for a token), for store-level tests. */
import { Devices } from "../../src/security/devices.ts";
import type { StateDb } from "../../src/store/db.ts";

export function pairedDevice(state: StateDb, name = "test phone"): { id: string; token: string; devices: Devices } {
  const devices = new Devices(state);
  const paired = devices.pair(devices.createCode().code, name, "test");
  if (!paired.ok) throw new Error("pairing the test device failed");
  return { id: paired.device.id, token: paired.token, devices };
}
