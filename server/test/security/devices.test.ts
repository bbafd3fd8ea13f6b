/**
 * Paired devices: the gate's token check keeps the devices it found in memory (issue 31),
 * and that must change nothing a user can see: a revoked device is refused at its very next
 * request, a wrong token never matches, and `last seen` still moves once a minute.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { openStateDb } from "../../src/store/db.ts";
import { Devices } from "../../src/security/devices.ts";

function devicesAt(clock: { now: number }) {
  const state = openStateDb(":memory:");
  return { state, devices: new Devices(state, () => clock.now) };
}

function pair(devices: Devices, name: string): { id: string; token: string } {
  const r = devices.pair(devices.createCode().code, name, "test");
  if (!r.ok) throw new Error("pairing failed");
  return { id: r.device.id, token: r.token };
}

describe("paired devices", () => {
  test("a device checked before is refused at its next request once revoked; the other stays", () => {
    const { devices } = devicesAt({ now: 0 });
    const pixel = pair(devices, "Pixel");
    const ipad = pair(devices, "iPad");
    assert.equal(devices.check(pixel.token)?.id, pixel.id);
    assert.equal(devices.check(ipad.token)?.id, ipad.id);
    assert.equal(devices.revoke(pixel.id), true);
    assert.equal(devices.check(pixel.token), null);
    assert.equal(devices.check(ipad.token)?.name, "iPad");
  });

  test("a wrong, empty or over-long token matches no device, before and after a right one was checked", () => {
    const { devices } = devicesAt({ now: 0 });
    const pixel = pair(devices, "Pixel");
    for (const round of [1, 2]) {
      assert.equal(devices.check(`${pixel.token}x`), null, `round ${round}`);
      assert.equal(devices.check(pixel.token.slice(1)), null, `round ${round}`);
      assert.equal(devices.check(""), null, `round ${round}`);
      assert.equal(devices.check(undefined), null, `round ${round}`);
      assert.equal(devices.check("a".repeat(257)), null, `round ${round}`);
      assert.equal(devices.check(pixel.token)?.id, pixel.id, `round ${round}`);
    }
  });

  test("last seen is written once a minute, not on every request, and the list shows it", () => {
    const clock = { now: 1_000 };
    const { devices } = devicesAt(clock);
    const pixel = pair(devices, "Pixel");
    devices.check(pixel.token);
    clock.now += 60_000;
    assert.equal(devices.check(pixel.token)?.lastSeen, 1_000, "the request within the minute leaves it");
    assert.equal(devices.list()[0]?.lastSeen, 1_000);
    clock.now += 1;
    devices.check(pixel.token);
    assert.equal(devices.list()[0]?.lastSeen, 61_001);
    clock.now += 30_000;
    assert.equal(devices.check(pixel.token)?.lastSeen, 61_001);
    assert.equal(devices.list()[0]?.lastSeen, 61_001, "within a minute of the last write: none");
  });

  test("what the check returns is a copy: changing it changes nothing the next check sees", () => {
    const { devices } = devicesAt({ now: 0 });
    const pixel = pair(devices, "Pixel");
    const first = devices.check(pixel.token)!;
    first.name = "Mallory";
    first.id = "someone-else";
    assert.deepEqual({ id: devices.check(pixel.token)?.id, name: devices.check(pixel.token)?.name }, { id: pixel.id, name: "Pixel" });
  });

  test("a token whose device row is gone from the database is refused even if it was checked before a restart", () => {
    const clock = { now: 0 };
    const { state, devices } = devicesAt(clock);
    const pixel = pair(devices, "Pixel");
    devices.check(pixel.token);
    devices.revoke(pixel.id);
    // A fresh Devices over the same database (the daemon started again) knows nothing in memory.
    assert.equal(new Devices(state, () => clock.now).check(pixel.token), null);
  });
});
