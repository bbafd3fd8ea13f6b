/**
 * The chat's menu (P-24): a durable pane's menu holds only `Close conversation`, and only when the
 * agent declared close (P-1). No History, Pane settings or Pin to top row. Close posts `close` for
 * this pane through the outbox and goes back to the agent's home once it is done; with no answer
 * a second tap sends the same request id again.
 */
import { useEffect, useRef, useState } from "react";
import { STRINGS } from "@colliepwa/shared";
import { actionPath } from "../../app/api.ts";
import { newRequestId } from "../../app/outbox.ts";
import { usePhone } from "../../app/react.ts";
import { go } from "../../app/router.ts";

export function ChatMenu({ agent, pane, canClose }: { agent: string; pane: string; canClose: boolean }) {
  const phone = usePhone();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  /** The close's request id, kept while its answer is unknown so a retry is the same request. */
  const [requestId, setRequestId] = useState<string | null>(null);
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

  if (!canClose) return null;

  const close = async () => {
    setBusy(true);
    setProblem(null);
    const id = requestId ?? newRequestId();
    setRequestId(id);
    const pending = phone.outbox.pending.some((p) => p.requestId === id);
    const result = pending
      ? await phone.outbox.send(id)
      : await phone.outbox.submit({ requestId: id, kind: "close", agent, pane, path: actionPath.close(agent), body: { requestId: id, target: { kind: "pane", id: pane } } });
    setBusy(false);
    if (result.kind === "reply" && result.reply.status >= 200 && result.reply.status < 300) {
      go({ name: "home", agent });
      return;
    }
    if (result.kind === "no-reply" || result.reply.status >= 500) {
      setProblem(STRINGS.sendingNotConfirmed);
      return;
    }
    // Refused: nothing happened; a new tap is a new request.
    setRequestId(null);
    const reason = result.reply.body.reason;
    setProblem(typeof reason === "string" && reason ? reason : null);
  };

  return (
    <div className="chat-menu" ref={root}>
      <button type="button" className="icon-button" aria-label="Menu" aria-haspopup="menu" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        ⋮
      </button>
      {open && (
        <div className="chat-menu-list" role="menu">
          <button type="button" role="menuitem" className="danger" disabled={busy} onClick={() => void close()}>
            {STRINGS.closeConversation}
          </button>
          {problem && <p className="chat-menu-note" role="status">{problem}</p>}
        </div>
      )}
    </div>
  );
}
