/**
 * The composer (P-20): one text box and `Send`. It clears when you send; it says `Sent` once the
 * agent took your newest line. Send with nothing typed while a line is `Sending, not confirmed`
 * sends that line again (same request id); so does sending the same text again. The text also
 * feeds `Steer` on the belt (P-22), so it lives in the chat (as the conversation's draft), not
 * here. The button is `Send` in every state of the conversation: Steer is the belt's, so one
 * action has one label, and the composer always has a way to send.
 */
import { useId, useLayoutEffect, useRef, type FormEvent, type KeyboardEvent } from "react";
import { STRINGS } from "@colliepwa/shared";
import { WORDS } from "@colliepwa/shared/strings";

/** The phone API's limit for a send or steer text (shared/src/api.ts SendRequest). */
export const MAX_SEND_CHARS = 16_384;

export interface ComposerProps {
  text: string;
  onText: (text: string) => void;
  /** Null when the agent does not take sends (P-1): the box stays for Steer, without `Send`. */
  onSend: (() => void) | null;
  /** Whether `Send` does something now (text typed, or a line to send again). */
  canSend: boolean;
  /** `Sent` once the agent took your newest line. */
  note: string | null;
  /** The box's hint while it is empty; `Message` unless the chat says more. */
  placeholder?: string;
}

export function Composer({ text, onText, onSend, canSend, note, placeholder = WORDS.screen.message }: ComposerProps) {
  const noteId = useId();
  // One line until used; it grows with what you type, wrapped lines included, up to the CSS cap
  // (40% of the screen), then scrolls.
  const box = useRef<HTMLTextAreaElement>(null);
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    el.style.height = "auto";
    el.style.height = `${el.scrollHeight + (el.offsetHeight - el.clientHeight)}px`;
  }, [text]);
  const submit = (e?: FormEvent) => {
    e?.preventDefault();
    if (onSend && canSend) onSend();
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    // A phone keyboard's Enter is a new line; Ctrl/Cmd+Enter sends from a hardware keyboard.
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) submit();
  };
  return (
    <form className="composer" onSubmit={submit}>
      <textarea
        ref={box}
        className="composer-input"
        aria-label={WORDS.screen.message}
        placeholder={placeholder}
        aria-describedby={note ? noteId : undefined}
        rows={1}
        maxLength={MAX_SEND_CHARS}
        value={text}
        onChange={(e) => onText(e.target.value)}
        onKeyDown={onKeyDown}
      />
      {onSend && (
        <button type="submit" className="composer-send" aria-disabled={!canSend} disabled={!canSend}>
          {STRINGS.send}
        </button>
      )}
      {note && <span id={noteId} className="composer-note muted" role="status">{note}</span>}
    </form>
  );
}
