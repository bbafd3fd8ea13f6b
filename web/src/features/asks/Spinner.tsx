/** Progress on the control whose answer is on its way (P-15). */
import { WORDS } from "./words.ts";

export function Spinner() {
  return <span className="ask-spinner" role="status" aria-label={WORDS.sending} />;
}
