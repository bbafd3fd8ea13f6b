/**
 * Pairing: the link `collie pair` prints opens `#/pair/<code>`; one tap trades the code for
 * this device's pairing. Without a code in the link, the screen says how to get one and takes the
 * code typed (`collie pair` prints it under the link and its QR code).
 */
import { Fragment, useState, type ReactNode } from "react";
import { usePhone } from "../../app/react.ts";
import { go } from "../../app/router.ts";
import { markPushOffer } from "../dashboard/PushOffer.tsx";
import { WORDS } from "@colliepwa/shared/strings";

export function Pair({ code }: { code: string | null }) {
  const phone = usePhone();
  const [name, setName] = useState(defaultName);
  const [typed, setTyped] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const use = code ?? typed.trim();
  return (
    <main className="screen pair">
      <header className="topbar">
        <h1>{WORDS.pair.title}</h1>
      </header>
      <form
        className="pair-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (!use) return;
          setBusy(true);
          void phone.pair(use, name).then((r) => {
            setBusy(false);
            if (r.ok) {
              markPushOffer(); // the dashboard offers push once, now that this phone is paired
              go({ name: "dashboard" });
            }
            else setProblem(r.message);
          });
        }}
      >
        {code ? (
          <p>{WORDS.pair.intro}</p>
        ) : (
          <>
            <p>{WORDS.pair.notPaired}</p>
            <p>{WORDS.pair.onTheMachine}<code>collie pair</code> and open the link it prints (or scan its QR code) on this phone, or type the code it prints here.</p>
            <label>
              <span>{WORDS.pair.code}</span>
              <input value={typed} maxLength={32} placeholder={WORDS.pair.codeExample} autoCapitalize="characters" autoComplete="off" spellCheck={false}
                onChange={(e) => setTyped(e.target.value)} />
            </label>
          </>
        )}
        <label>
          <span>{WORDS.pair.name}</span>
          <input value={name} maxLength={64} onChange={(e) => setName(e.target.value)} />
        </label>
        {/* The one thing to do here: the primary button (issue 32, item 10). */}
        <button type="submit" className="button-primary" disabled={busy || !use}>Pair</button>
        {problem && <p className="warning" role="alert">{withCode(problem)}</p>}
      </form>
    </main>
  );
}

/** Collie's messages mark a command with backticks (Run `collie pair` again): drawn as code, not as backticks. */
export function withCode(text: string): ReactNode {
  return text.split("`").map((part, i) => (i % 2 === 1 ? <code key={i}>{part}</code> : <Fragment key={i}>{part}</Fragment>));
}

function defaultName(): string {
  const ua = typeof navigator === "undefined" ? "" : navigator.userAgent;
  if (/iPhone/.test(ua)) return "iPhone";
  if (/Android/.test(ua)) return "Android phone";
  return "Phone";
}
