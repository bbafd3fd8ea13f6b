/**
 * The push opt-in row of Settings (P-27): a switch and one line that says where this device
 * stands. The work is app/push.ts; this only draws it.
 */
import { useEffect, useMemo, useState } from "react";
import { usePhone } from "../../app/react.ts";
import { browserPushEnv, PUSH_WORDS, PushError, pushState, turnPushOff, turnPushOn, type PushEnv, type PushState } from "../../app/push.ts";

export function PushSetting({ env: given }: { env?: PushEnv }) {
  const phone = usePhone();
  const env = useMemo(() => given ?? browserPushEnv(phone.api), [given, phone.api]);
  const [state, setState] = useState<PushState | "checking">("checking");
  const [busy, setBusy] = useState<"on" | "off" | false>(false);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    pushState(env).then(
      (s) => live && setState(s),
      () => live && setState("unsupported"),
    );
    return () => {
      live = false;
    };
  }, [env]);

  const toggle = async (on: boolean) => {
    setBusy(on ? "on" : "off");
    setProblem(null);
    try {
      setState(on ? await turnPushOn(env) : await turnPushOff(env));
    } catch (err) {
      setProblem(err instanceof PushError ? err.message : PUSH_WORDS.failed(PUSH_WORDS.refused));
      setState(await pushState(env).catch(() => "unsupported" as const));
    } finally {
      setBusy(false);
    }
  };

  // While it works the line says so (it can take seconds), then where the device stands.
  const note = busy === "on" ? PUSH_WORDS.turningOn : busy === "off" ? PUSH_WORDS.turningOff : (problem ?? (state === "checking" ? "" : PUSH_WORDS[state]));
  return (
    <div className="push-setting">
      <label className="row toggle-row">
        <span>{PUSH_WORDS.label}</span>
        <input
          type="checkbox"
          role="switch"
          checked={state === "on"}
          aria-busy={busy !== false}
          disabled={busy !== false || state === "checking" || state === "unsupported" || state === "denied"}
          onChange={(e) => void toggle(e.target.checked)}
        />
      </label>
      <p className="setting-note" role="status" data-push-state={state}>{note}</p>
    </div>
  );
}
