/**
 * The chat's menu (P-24): a durable pane's menu holds `Rename` (when the agent declared rename)
 * and `Close conversation` (when it declared close) (P-1); no History, Pane settings or Pin to top
 * row. Close asks once more before it posts (a closed conversation leaves the list), then goes back
 * to the agent's home once done; with no answer a second tap sends the same request id again.
 * Rename edits the title in place and posts `rename` for this pane. Each is a phone action
 * (`phone.actions.close/rename`); a tap after an unsure one sends it again (`RepeatUntilSure`).
 */
import { useEffect, useRef, useState } from "react";
import { STRINGS } from "@colliepwa/shared";
import { sureReply, type RepeatUntilSure, type SendResult, type Tap } from "../../app/actions.ts";
import { usePhone, useRepeatUntilSure } from "../../app/react.ts";
import { go } from "../../app/router.ts";
import { refusalLine } from "./refusal.ts";
import { WORDS } from "@colliepwa/shared/strings";

/** The menu's own words (docs/decisions.md). */
export const MENU_WORDS = WORDS.menu;

type Step = "menu" | "confirm-close" | "rename";

export interface ChatMenuProps {
  agent: string;
  pane: string;
  canClose: boolean;
  canRename: boolean;
  title: string;
}

export function ChatMenu({ agent, pane, canClose, canRename, title }: ChatMenuProps) {
  const phone = usePhone();
  const [open, setOpen] = useState(false);
  const [step, setStep] = useState<Step>("menu");
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [newTitle, setNewTitle] = useState(title);
  /** A close or rename whose answer is unknown: the next tap of each sends the same request again. */
  const closeTaps = useRepeatUntilSure();
  const renameTaps = useRepeatUntilSure();
  const root = useRef<HTMLDivElement>(null);

  // A tap outside the menu or Escape closes it.
  useEffect(() => {
    if (!open) return;
    const onDown = (e: PointerEvent) => {
      if (root.current && !root.current.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") setOpen(false);
    };
    document.addEventListener("pointerdown", onDown);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("pointerdown", onDown);
      document.removeEventListener("keydown", onKey);
    };
  }, [open]);

  if (!canClose && !canRename) return null;

  /** What a reply came to: done, not sure (same request id on the next tap), or refused with its reason. */
  const settle = (what: string, result: SendResult): "done" | "unsure" | "refused" => {
    const reply = sureReply(result);
    if (!reply) {
      setProblem(STRINGS.sendingNotConfirmed);
      return "unsure";
    }
    if (reply.status >= 200 && reply.status < 300) return "done";
    // Every refusal says so (issue 37), not only one that came with the agent's reason.
    setProblem(refusalLine(what, reply.body));
    return "refused";
  };

  const target = { kind: "pane", id: pane } as const;
  /** `key` is what the tap sends: a tap that sends something else (a new title) is a new request. */
  const run = async (what: string, taps: RepeatUntilSure, key: string, start: () => Tap) => {
    setBusy(true);
    setProblem(null);
    const result = await taps.tap(key, start);
    setBusy(false);
    return settle(what, result);
  };

  const close = async () => {
    if ((await run(MENU_WORDS.close, closeTaps, pane, () => phone.actions.close({ agent }, { target }))) === "done") go({ name: "home", agent });
  };

  const rename = async () => {
    const t = newTitle.trim();
    if (!t || t === title) {
      setStep("menu");
      setOpen(false);
      return;
    }
    if ((await run(MENU_WORDS.rename, renameTaps, JSON.stringify({ pane, title: t }), () => phone.actions.rename({ agent }, { target, title: t }))) === "done") {
      setStep("menu");
      setOpen(false);
    }
  };

  const toggle = () => {
    setOpen((o) => !o);
    setStep("menu");
    setProblem(null);
    setNewTitle(title);
  };

  return (
    <div className="chat-menu" ref={root}>
      <button type="button" className="icon-button" aria-label={WORDS.screen.menu} aria-haspopup="menu" aria-expanded={open} onClick={toggle}>
        ⋮
      </button>
      {open && (
        <div className="chat-menu-list" role="menu">
          {step === "menu" && (
            <>
              {canRename && (
                <button type="button" role="menuitem" onClick={() => setStep("rename")}>{MENU_WORDS.rename}</button>
              )}
              {canClose && (
                <button type="button" role="menuitem" className="danger" onClick={() => setStep("confirm-close")}>
                  {STRINGS.closeConversation}
                </button>
              )}
            </>
          )}
          {step === "confirm-close" && (
            <div className="chat-menu-confirm" role="group" aria-label={MENU_WORDS.closeQuestion}>
              <p className="chat-menu-question">{MENU_WORDS.closeQuestion}</p>
              <div className="chat-menu-choices">
                <button type="button" onClick={() => setStep("menu")} disabled={busy}>{MENU_WORDS.keepOpen}</button>
                <button type="button" className="danger" onClick={() => void close()} disabled={busy}>{MENU_WORDS.close}</button>
              </div>
            </div>
          )}
          {step === "rename" && (
            <form className="chat-menu-rename" onSubmit={(e) => { e.preventDefault(); void rename(); }}>
              <label>
                <span className="muted">{MENU_WORDS.title}</span>
                <input value={newTitle} maxLength={200} autoFocus onChange={(e) => setNewTitle(e.target.value)} />
              </label>
              <button type="submit" disabled={busy || !newTitle.trim()}>{MENU_WORDS.save}</button>
            </form>
          )}
          {problem && <p className="chat-menu-note" role="status">{problem}</p>}
        </div>
      )}
    </div>
  );
}
