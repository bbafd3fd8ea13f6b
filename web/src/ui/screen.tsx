/**
 * A screen whose code is a chunk of its own (App.tsx, issue 31: the entry over the wire ≤ 70 KB).
 * `preload` loads it ahead, once the first screen is up; after that the screen draws in the same
 * render as any other. `React.lazy` alone suspends on every first render, even of a module already
 * loaded, and React holds a suspended boundary's content back for up to 300 ms: opening a chat
 * would wait for that, not for its code.
 */
import { Component, lazy, type ComponentType, type FunctionComponent, type ReactNode } from "react";
import { WORDS } from "@colliepwa/shared";
import { href } from "../app/router.ts";

export interface LazyScreen<P extends object> {
  Screen: FunctionComponent<P>;
  /** Loads the screen's code; resolves when a render draws it at once. */
  preload(): Promise<void>;
}

/** The screens whose code failed to load, each ready to be loaded again (`Try again`). */
const failedScreens = new Set<() => void>();

function renewFailedScreens(): void {
  for (const renew of failedScreens) renew();
  failedScreens.clear();
}

export function lazyScreen<P extends object>(load: () => Promise<ComponentType<P>>): LazyScreen<P> {
  let loaded: ComponentType<P> | null = null;
  let loading: Promise<ComponentType<P>> | null = null;
  // React.lazy keeps a failed load for good (it throws it again on every render, and the screen's
  // boundary shows the failure); `Try again` swaps it for a new one, which loads again. Not at
  // once: a new one on every failure would have React load it again and again while offline.
  const makeLazy = () => lazy(() => start().then((c) => ({ default: c })));
  let Suspending = makeLazy();
  const renew = () => {
    Suspending = makeLazy();
  };
  const start = () => {
    // A failed load is not kept: the next preload, or the render after `Try again`, loads again.
    loading ??= load().then(
      (c) => (loaded = c),
      (e: unknown) => {
        loading = null;
        failedScreens.add(renew);
        throw e;
      },
    );
    return loading;
  };
  function Screen(props: P) {
    const Loaded = loaded;
    return Loaded ? <Loaded {...props} /> : <Suspending {...props} />;
  }
  return { Screen, preload: () => start().then(() => undefined) };
}

/**
 * Where a screen that failed shows instead of a blank app: its code could not be loaded (offline
 * before it was kept, or an update replaced it), or it failed while drawing. React unmounts the
 * whole app for an error no boundary catches; this keeps the banners and says what happened, with
 * `Try again` (which loads the screen's code again) and the way back. A new route starts afresh
 * (the boundary is keyed by it in App.tsx).
 */
export class ScreenBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };

  constructor(props: { children: ReactNode }) {
    super(props);
    // A new screen (another route, or the same one opened again) loads a failed screen's code again.
    renewFailedScreens();
  }

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  readonly #tryAgain = (): void => {
    renewFailedScreens();
    this.setState({ failed: false });
  };

  override render(): ReactNode {
    if (!this.state.failed) return this.props.children;
    return (
      <main className="screen screen-failed" role="alert">
        <p className="muted">{WORDS.screen.screenFailed}</p>
        <p>
          <button type="button" onClick={this.#tryAgain}>{WORDS.screen.tryAgain}</button>
        </p>
        <p><a href={href({ name: "dashboard" })}>{WORDS.screen.backToDashboard}</a></p>
      </main>
    );
  }
}
