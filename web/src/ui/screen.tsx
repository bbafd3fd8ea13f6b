/**
 * A screen whose code is a chunk of its own (App.tsx, issue 31: the entry over the wire ≤ 70 KB).
 * `preload` loads it ahead, once the first screen is up; after that the screen draws in the same
 * render as any other. `React.lazy` alone suspends on every first render, even of a module already
 * loaded, and React holds a suspended boundary's content back for up to 300 ms: opening a chat
 * would wait for that, not for its code.
 */
import { lazy, type ComponentType, type FunctionComponent } from "react";

export interface LazyScreen<P extends object> {
  Screen: FunctionComponent<P>;
  /** Loads the screen's code; resolves when a render draws it at once. */
  preload(): Promise<void>;
}

export function lazyScreen<P extends object>(load: () => Promise<ComponentType<P>>): LazyScreen<P> {
  let loaded: ComponentType<P> | null = null;
  let loading: Promise<ComponentType<P>> | null = null;
  const start = () => {
    // A failed load is not kept: the next render or preload tries again.
    loading ??= load().then(
      (c) => (loaded = c),
      (e: unknown) => {
        loading = null;
        throw e;
      },
    );
    return loading;
  };
  const Suspending = lazy(() => start().then((c) => ({ default: c })));
  function Screen(props: P) {
    const Loaded = loaded;
    return Loaded ? <Loaded {...props} /> : <Suspending {...props} />;
  }
  return { Screen, preload: () => start().then(() => undefined) };
}
