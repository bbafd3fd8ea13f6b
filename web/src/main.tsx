import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App.tsx";
import { Phone } from "./app/phone.ts";
import { PhoneContext } from "./app/react.ts";
import { registerServiceWorker } from "./sw/register.ts";
import "./ui/styles.css";

const phone = new Phone();
void phone.start();
registerServiceWorker();

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <PhoneContext.Provider value={phone}>
      <App />
    </PhoneContext.Provider>
  </StrictMode>,
);
