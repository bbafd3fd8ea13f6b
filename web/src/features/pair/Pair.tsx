/**
 * Pairing (X-1): the link `collie pair` prints opens `#/pair/<code>`; one tap trades the code for
 * this device's pairing. Without a code, the screen says how to get one.
 */
import { useState } from "react";
import { usePhone } from "../../app/react.ts";
import { go } from "../../app/router.ts";

export function Pair({ code }: { code: string | null }) {
  const phone = usePhone();
  const [name, setName] = useState(defaultName);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <main className="screen pair">
      <header className="topbar">
        <h1>Pair this phone</h1>
      </header>
      {code ? (
        <form
          className="pair-form"
          onSubmit={(e) => {
            e.preventDefault();
            setBusy(true);
            void phone.pair(code, name).then((r) => {
              setBusy(false);
              if (r.ok) go({ name: "dashboard" });
              else setProblem(r.message);
            });
          }}
        >
          <p>Collie answers your durable agents' questions from this phone. Pair it to continue.</p>
          <label>
            <span>Name of this phone</span>
            <input value={name} maxLength={64} onChange={(e) => setName(e.target.value)} />
          </label>
          <button type="submit" disabled={busy}>Pair</button>
          {problem && <p className="warning" role="alert">{problem}</p>}
        </form>
      ) : (
        <div>
          <p>This phone is not paired with Collie.</p>
          <p>On the machine that runs Collie, run <code>collie pair</code> and open the link it prints (or scan its QR code) on this phone.</p>
        </div>
      )}
    </main>
  );
}

function defaultName(): string {
  const ua = typeof navigator === "undefined" ? "" : navigator.userAgent;
  if (/iPhone/.test(ua)) return "iPhone";
  if (/Android/.test(ua)) return "Android phone";
  return "Phone";
}
