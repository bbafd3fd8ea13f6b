/**
 * A screen in a chunk of its own (web/src/ui/screen.tsx): loaded ahead, it draws in the same render
 * as the rest of the app, with no fallback in between; not loaded yet, it shows once its code is
 * there; a load that failed is tried again.
 */
import { afterEach, describe, expect, test } from "vitest";
import { act, cleanup, render, screen } from "@testing-library/react";
import { Suspense } from "react";
import { lazyScreen } from "../../src/ui/screen.tsx";

afterEach(() => cleanup());

function Greeting({ name }: { name: string }) {
  return <p>Hello {name}</p>;
}

const inSuspense = (node: React.ReactNode) => <Suspense fallback={<p>waiting</p>}>{node}</Suspense>;

describe("lazyScreen", () => {
  test("once preloaded, the screen is drawn in the first render, with no fallback", async () => {
    const { Screen, preload } = lazyScreen(() => Promise.resolve(Greeting));
    await preload();
    render(inSuspense(<Screen name="Ada" />));
    // Synchronously after render: nothing suspended, so the fallback never showed.
    expect(screen.queryByText("waiting")).toBeNull();
    expect(screen.getByText("Hello Ada")).toBeTruthy();
  });

  test("not loaded yet, the fallback shows until its code is there", async () => {
    let resolve!: (c: typeof Greeting) => void;
    const { Screen } = lazyScreen(() => new Promise<typeof Greeting>((r) => (resolve = r)));
    render(inSuspense(<Screen name="Ada" />));
    expect(screen.getByText("waiting")).toBeTruthy();
    await act(async () => resolve(Greeting));
    expect(await screen.findByText("Hello Ada")).toBeTruthy();
  });

  test("a preload that failed is tried again by the next one", async () => {
    let calls = 0;
    const { Screen, preload } = lazyScreen(() => (++calls === 1 ? Promise.reject(new Error("offline")) : Promise.resolve(Greeting)));
    await expect(preload()).rejects.toThrow("offline");
    await preload();
    expect(calls).toBe(2);
    render(inSuspense(<Screen name="Ada" />));
    expect(screen.getByText("Hello Ada")).toBeTruthy();
  });
});
