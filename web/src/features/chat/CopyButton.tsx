/**
 * The copy button of a code block (issue 37: a 150-line block had none): copies the block's text
 * as the agent wrote it. Where the browser does not let the page write to the clipboard (an
 * insecure origin, a refused permission) the code is selected instead, for the phone's own Copy.
 */
import { useEffect, useRef, useState } from "react";
import { WORDS } from "@colliepwa/shared/strings";

/** How long `Copied` shows before the button reads `Copy` again. */
export const COPIED_SHOWN_MS = 2000;

export function CopyButton({ text }: { text: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (state !== "copied") return;
    const t = setTimeout(() => setState("idle"), COPIED_SHOWN_MS);
    return () => clearTimeout(t);
  }, [state]);
  const copy = async () => {
    try {
      if (!navigator.clipboard?.writeText) throw new Error("no clipboard");
      await navigator.clipboard.writeText(text);
      setState("copied");
    } catch {
      const code = button.current?.parentElement?.querySelector("pre, code");
      if (code) window.getSelection()?.selectAllChildren(code);
      setState("failed");
    }
  };
  return (
    <button ref={button} type="button" className="copy-button" aria-label={state === "idle" ? WORDS.chat.copyCode : undefined} onClick={() => void copy()}>
      <span aria-live="polite">{state === "copied" ? WORDS.chat.copied : state === "failed" ? WORDS.chat.copyFailed : WORDS.chat.copy}</span>
    </button>
  );
}
