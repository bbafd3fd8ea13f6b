/**
 * The connection banner (P-26) stays through the reconnect attempts once Collie could not be
 * reached (issue 32: shown and hidden at each attempt, it shifted the chat by 0.14 CLS).
 */
import { afterEach, describe, expect, test } from "vitest";
import { act, cleanup } from "@testing-library/react";
import { ConnectionBanner } from "../../src/ui/ConnectionBanner.tsx";
import { renderWith, startPhone } from "../chat/harness.tsx";

afterEach(() => cleanup());
const banner = () => document.querySelector(".banner-offline");

describe("the connection banner", () => {
  test("before the first snapshot: none while connecting; once offline it stays through every attempt until Collie is back", async () => {
    const h = await startPhone({ online: false });
    renderWith(h.phone, <ConnectionBanner />);
    act(() => h.phone.store.setStatus("connecting"));
    expect(banner()).toBeNull();
    act(() => h.phone.store.setStatus("offline"));
    expect(banner()).not.toBeNull();
    act(() => h.phone.store.setStatus("connecting"));
    expect(banner()).not.toBeNull();
    act(() => h.phone.store.setStatus("offline"));
    act(() => h.phone.store.setStatus("online"));
    expect(banner()).toBeNull();
  });
});
