/** Says so while Collie cannot be reached; what is drawn stays drawn (P-26). */
import { usePhoneState } from "../app/react.ts";

export function ConnectionBanner() {
  const { status, loaded } = usePhoneState();
  if (status === "online" || (!loaded && status === "connecting")) return null;
  return (
    <div className="banner banner-offline" role="status" aria-live="polite">
      {status === "offline" ? "Collie cannot be reached. Reconnecting…" : "Reconnecting…"}
    </div>
  );
}
