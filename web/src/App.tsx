/** The app shell: the connection banner and the screen for the current route. */
import { useRoute } from "./app/router.ts";
import { Dashboard } from "./features/dashboard/Dashboard.tsx";
import { Settings } from "./features/dashboard/Settings.tsx";
import { AgentHome } from "./features/home/AgentHome.tsx";
import { ClosedConversation } from "./features/chat/ClosedConversation.tsx";
import { Chat } from "./features/chat/Chat.tsx";
import { NewConversation } from "./features/new/NewConversation.tsx";
import { ConnectionBanner } from "./ui/ConnectionBanner.tsx";
import { UpdateBanner } from "./ui/UpdateBanner.tsx";
import { Pair } from "./features/pair/Pair.tsx";
import { usePhoneState } from "./app/react.ts";

export function App() {
  const route = useRoute();
  const { unpaired } = usePhoneState();
  // Pairing comes first: a pairing link always opens the pairing screen; an unpaired phone sees how to pair.
  if (route.name === "pair" || unpaired) return <div className="app"><Pair code={route.name === "pair" ? route.code : null} /></div>;
  return (
    <div className="app">
      <ConnectionBanner />
      <UpdateBanner />
      {route.name === "dashboard" && <Dashboard />}
      {route.name === "settings" && <Settings />}
      {route.name === "home" && <AgentHome key={route.agent} agent={route.agent} />}
      {route.name === "chat" && <Chat key={`${route.agent}\n${route.pane}`} agent={route.agent} pane={route.pane} />}
      {route.name === "closed" && <ClosedConversation key={`${route.agent}\n${route.session}`} agent={route.agent} session={route.session} />}
      {route.name === "new" && <NewConversation key={route.agent} agent={route.agent} />}
    </div>
  );
}
