/**
 * The app shell: the connection banner and the screen for the current route. The dashboard comes
 * with the entry script; every other screen (pairing too: a phone pairs once) is a chunk of its
 * own (ui/screen.tsx), loaded once the first screen is drawn: the first screen does not wait for
 * the chat's code, and the chat does not wait for it either (issue 31: the entry over the wire
 * ≤ 70 KB). index.html names the chunks too (`<link rel="prefetch">`, build/prefetch.ts), for the
 * service worker to keep.
 */
import { Suspense, useEffect } from "react";
import { href, useRoute } from "./app/router.ts";
import { Dashboard } from "./features/dashboard/Dashboard.tsx";
import { ConnectionBanner } from "./ui/ConnectionBanner.tsx";
import { UpdateBanner } from "./ui/UpdateBanner.tsx";
import { usePhoneState } from "./app/react.ts";
import { lazyScreen, ScreenBoundary } from "./ui/screen.tsx";

const Pair = lazyScreen(() => import("./features/pair/Pair.tsx").then((m) => m.Pair));
const Settings = lazyScreen(() => import("./features/dashboard/Settings.tsx").then((m) => m.Settings));
const AgentHome = lazyScreen(() => import("./features/home/AgentHome.tsx").then((m) => m.AgentHome));
const Chat = lazyScreen(() => import("./features/chat/Chat.tsx").then((m) => m.Chat));
const ClosedConversation = lazyScreen(() => import("./features/chat/ClosedConversation.tsx").then((m) => m.ClosedConversation));
const NewConversation = lazyScreen(() => import("./features/new/NewConversation.tsx").then((m) => m.NewConversation));
/** Loaded once the first screen is drawn, the chat first: the screen a tap most often opens next. */
const AHEAD = [Chat, AgentHome, ClosedConversation, NewConversation, Settings, Pair];

export function App() {
  const route = useRoute();
  const { unpaired } = usePhoneState();
  useEffect(() => {
    // A screen that cannot be loaded now (offline, no service worker yet) is tried again when shown.
    for (const screen of AHEAD) void screen.preload().catch(() => undefined);
  }, []);
  // Pairing comes first: a pairing link always opens the pairing screen; an unpaired phone sees how to pair.
  if (route.name === "pair" || unpaired) {
    return (
      <div className="app">
        <ScreenBoundary>
          <Suspense fallback={null}>
            <Pair.Screen code={route.name === "pair" ? route.code : null} />
          </Suspense>
        </ScreenBoundary>
      </div>
    );
  }
  return (
    <div className="app">
      <ConnectionBanner />
      <UpdateBanner />
      <ScreenBoundary key={href(route)}>
        {route.name === "dashboard" && <Dashboard />}
        <Suspense fallback={null}>
          {route.name === "settings" && <Settings.Screen />}
          {route.name === "home" && <AgentHome.Screen key={route.agent} agent={route.agent} />}
          {route.name === "chat" && <Chat.Screen key={`${route.agent}\n${route.pane}`} agent={route.agent} pane={route.pane} />}
          {route.name === "closed" && <ClosedConversation.Screen key={`${route.agent}\n${route.session}`} agent={route.agent} session={route.session} />}
          {route.name === "new" && <NewConversation.Screen key={route.agent} agent={route.agent} />}
        </Suspense>
      </ScreenBoundary>
    </div>
  );
}
