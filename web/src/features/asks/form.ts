/**
 * A `form` ask on the phone (P-10): at most 6 fields (text line, select list, toggle), and the
 * check made before anything is sent, matching the agent's own (sdk `checkAnswer`): a required
 * text must not be empty, a required select must be chosen, a required toggle must be on, a text
 * stays within its limit. A form that does not pass names its fields and sends nothing. Pure.
 */
import { LIMITS, type Answer, type FormAsk, type FormField } from "@colliepwa/durable-sdk/wire";
import { charCount, textLimit } from "./text-limit.ts";

export type FormValues = Readonly<Record<string, string | boolean>>;

export type FieldProblem = "required" | "too-long" | "unknown-option";

export type FormCheck =
  | { ok: true; answer: Extract<Answer, { kind: "form" }> }
  | { ok: false; problems: ReadonlyMap<string, FieldProblem> };

/** The fields the card draws. */
export function formFields(ask: FormAsk): FormField[] {
  return ask.fields.slice(0, LIMITS.formFields);
}

/** Empty text, nothing chosen, toggles off. */
export function initialValues(ask: FormAsk): FormValues {
  const values: Record<string, string | boolean> = {};
  for (const f of formFields(ask)) values[f.id] = f.type === "toggle" ? false : "";
  return values;
}

/** The limit of a text field (500 unless the agent set one, never above 2000). */
export const fieldLimit = (f: Extract<FormField, { type: "text" }>): number => textLimit(f.limit);

/** Checks the form; when it passes, the answer to send (empty optional text and selects left out). */
export function checkForm(ask: FormAsk, values: FormValues): FormCheck {
  const problems = new Map<string, FieldProblem>();
  const out: Record<string, string | boolean> = {};
  for (const f of formFields(ask)) {
    const v = values[f.id];
    if (f.type === "toggle") {
      const on = v === true;
      if (f.required && !on) problems.set(f.id, "required");
      else out[f.id] = on;
      continue;
    }
    const s = typeof v === "string" ? v : "";
    if (s === "") {
      if (f.required) problems.set(f.id, "required");
      continue;
    }
    if (f.type === "select" && !f.options.some((o) => o.id === s)) problems.set(f.id, "unknown-option");
    else if (f.type === "text" && charCount(s) > fieldLimit(f)) problems.set(f.id, "too-long");
    else out[f.id] = s;
  }
  return problems.size > 0 ? { ok: false, problems } : { ok: true, answer: { kind: "form", values: out } };
}
