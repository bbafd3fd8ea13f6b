/**
 * A screen in a chunk of its own (web/src/ui/screen.tsx): loaded ahead, it draws in the same render
 * as the rest of the app, with no fallback in between; not loaded yet, it shows once its code is
 * there; a load that failed is tried again.
 */
import { afterEach, describe, expect, test } from "vitest";
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { Suspense } from "react";
import { WORDS } from "@colliepwa/shared";
import { lazyScreen, ScreenBoundary } from "../../src/ui/screen.tsx";

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

  test("a screen whose code cannot be loaded says so, not a blank app; Try again loads it again and draws it", async () => {
    let calls = 0;
    const { Screen } = lazyScreen(() => (++calls === 1 ? Promise.reject(new Error("offline")) : Promise.resolve(Greeting)));
    const quiet = console.error;
    console.error = () => {}; // React reports the caught error; the boundary is what is tested here
    try {
      render(<ScreenBoundary>{inSuspense(<Screen name="Ada" />)}</ScreenBoundary>);
      expect(await screen.findByText(WORDS.screen.screenFailed)).toBeTruthy();
      expect(screen.getByRole("link", { name: WORDS.screen.backToDashboard }).getAttribute("href")).toBe("#/");
      await act(async () => fireEvent.click(screen.getByRole("button", { name: WORDS.screen.tryAgain })));
      expect(await screen.findByText("Hello Ada")).toBeTruthy();
      expect(calls).toBe(2);
      expect(screen.queryByText(WORDS.screen.screenFailed)).toBeNull();
    } finally {
      console.error = quiet;
    }
  });

  test("a screen that failed is loaded again when it is opened again, without Try again; a failure is not retried on its own", async () => {
    let calls = 0;
    const { Screen } = lazyScreen(() => (++calls <= 2 ? Promise.reject(new Error("offline")) : Promise.resolve(Greeting)));
    const quiet = console.error;
    console.error = () => {};
    try {
      const first = render(<ScreenBoundary>{inSuspense(<Screen name="Ada" />)}</ScreenBoundary>);
      expect(await screen.findByText(WORDS.screen.screenFailed)).toBeTruthy();
      await new Promise((r) => setTimeout(r, 50));
      expect(calls).toBe(1);
      first.unmount();
      // Opened again (a new route mounts a new boundary): loaded again; it fails once more, then loads.
      render(<ScreenBoundary>{inSuspense(<Screen name="Ada" />)}</ScreenBoundary>);
      expect(await screen.findByText(WORDS.screen.screenFailed)).toBeTruthy();
      expect(calls).toBe(2);
      await act(async () => fireEvent.click(screen.getByRole("button", { name: WORDS.screen.tryAgain })));
      expect(await screen.findByText("Hello Ada")).toBeTruthy();
      expect(calls).toBe(3);
    } finally {
      console.error = quiet;
    }
  });
});
