/**
 * Offers a new version of Collie once its service worker is installed and waiting (P-26).
 * `Reload` lets it take over and reloads; drafts of answers and sends are safe in the outbox.
 */
import { useState, useSyncExternalStore } from "react";
import { applyUpdate, subscribeUpdate, waitingWorker } from "../sw/register.ts";

export function UpdateBanner() {
  const worker = useSyncExternalStore(subscribeUpdate, waitingWorker, () => null);
  const [reloading, setReloading] = useState(false);
  if (!worker) return null;
  return (
    <div className="banner warning update-banner" role="status" aria-live="polite">
      <span>A new version of Collie is ready.</span>{" "}
      <button
        type="button"
        disabled={reloading}
        onClick={() => {
          setReloading(true);
          applyUpdate();
        }}
      >
        Reload
      </button>
    </div>
  );
}
