/** useActions (react.ts): one subscription to the action layer however often the component renders. */
import { afterEach, describe, expect, it } from "vitest";
import { act, cleanup } from "@testing-library/react";
import { useState } from "react";
import { useActions } from "../../src/app/react.ts";
import { renderWith, startPhone } from "../home/fixtures.tsx";

afterEach(() => cleanup());

describe("useActions", () => {
  it("subscribes once, not again on every render", async () => {
    const h = await startPhone();
    let subscribed = 0;
    const original = h.phone.actions.subscribe.bind(h.phone.actions);
    h.phone.actions.subscribe = (fn) => {
      subscribed++;
      return original(fn);
    };
    let bump: () => void = () => {};
    function Probe() {
      useActions();
      const [n, setN] = useState(0);
      bump = () => setN((x) => x + 1);
      return <p>{n}</p>;
    }
    renderWith(h.phone, <Probe />);
    for (let i = 0; i < 3; i++) {
      await act(async () => bump());
    }
    expect(subscribed).toBe(1);
  });
});
