/**
 * A `form` ask (P-10): its fields stacked (text line with its counter, select list, toggle; at
 * most 6) under one `Send`; a required field is marked `Required`. `Send` stays enabled: a tap on
 * a form that does not pass the agent's own check names the fields to fix and sends nothing.
 */
import { useId, useRef, useState, type FormEvent } from "react";
import { STRINGS } from "@colliepwa/shared";
import type { FormAsk, FormField } from "@colliepwa/durable-sdk/wire";
import type { BodyProps } from "./body-props.ts";
import { checkForm, fieldLimit, formFields, initialValues, type FieldProblem, type FormValues } from "./form.ts";
import { PendingClock } from "../../ui/PendingClock.tsx";
import { charCount, clampText } from "./text-limit.ts";
import { WORDS } from "./words.ts";

export function FormBody({ ask, enabled, busy, onAnswer }: BodyProps<FormAsk>) {
  const [values, setValues] = useState<FormValues>(() => initialValues(ask));
  const [problems, setProblems] = useState<ReadonlyMap<string, FieldProblem>>(new Map());
  const formRef = useRef<HTMLFormElement>(null);

  const set = (id: string, v: string | boolean) => {
    setValues((vs) => ({ ...vs, [id]: v }));
    if (problems.has(id)) {
      const next = new Map(problems);
      next.delete(id);
      setProblems(next);
    }
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!enabled) return;
    const c = checkForm(ask, values);
    if (!c.ok) {
      setProblems(c.problems);
      const first = formFields(ask).find((f) => c.problems.has(f.id));
      const box = [...(formRef.current?.querySelectorAll<HTMLElement>("[data-field]") ?? [])].find((el) => el.dataset.field === first?.id);
      box?.querySelector<HTMLElement>("input, select")?.focus();
      return;
    }
    setProblems(new Map());
    onAnswer(c.answer);
  };

  return (
    <form className="ask-form" ref={formRef} noValidate onSubmit={submit}>
      {formFields(ask).map((f) => (
        <Field key={f.id} field={f} value={values[f.id]} problem={problems.get(f.id) ?? null} enabled={enabled} onChange={(v) => set(f.id, v)} />
      ))}
      <button type="submit" className="ask-send" disabled={!enabled} aria-busy={busy !== null || undefined}>
        {STRINGS.send}{busy && <PendingClock inside />}
      </button>
    </form>
  );
}

interface FieldProps {
  field: FormField;
  value: string | boolean | undefined;
  problem: FieldProblem | null;
  enabled: boolean;
  onChange(v: string | boolean): void;
}

function problemText(field: FormField, problem: FieldProblem): string {
  if (problem === "required") return field.type === "toggle" ? WORDS.toggleRequired : WORDS.fieldRequired;
  if (problem === "too-long" && field.type === "text") return WORDS.fieldTooLong(fieldLimit(field));
  return WORDS.fieldUnknownOption;
}

function Field({ field, value, problem, enabled, onChange }: FieldProps) {
  const id = useId();
  const problemId = `${id}-problem`;
  const invalid = problem !== null;
  const common = {
    id,
    disabled: !enabled,
    "aria-invalid": invalid || undefined,
    "aria-required": field.required || undefined,
    "aria-describedby": invalid ? problemId : undefined,
  };
  const label = (
    <label className="ask-field-label" htmlFor={id}>
      <bdi>{field.label}</bdi>
      {field.required && <span className="ask-required">{STRINGS.required}</span>}
    </label>
  );
  return (
    <div className={`ask-field ask-field-${field.type}${invalid ? " ask-field-invalid" : ""}`} data-field={field.id}>
      {field.type === "toggle" ? (
        <div className="ask-toggle-line">
          {label}
          <input type="checkbox" role="switch" className="ask-switch" checked={value === true} onChange={(e) => onChange(e.target.checked)} {...common} />
        </div>
      ) : field.type === "select" ? (
        <>
          {label}
          <select className="ask-select" value={typeof value === "string" ? value : ""} onChange={(e) => onChange(e.target.value)} {...common}>
            <option value="">{WORDS.choose}</option>
            {field.options.map((o) => <option key={o.id} value={o.id}>{o.label}</option>)}
          </select>
        </>
      ) : (
        <>
          {label}
          <input type="text" className="ask-input" placeholder={field.placeholder} value={typeof value === "string" ? value : ""}
            onChange={(e) => onChange(clampText(e.target.value, fieldLimit(field)))} {...common} />
          <span className="ask-counter">{STRINGS.counter(charCount(typeof value === "string" ? value : ""), fieldLimit(field))}</span>
        </>
      )}
      {invalid && <p className="ask-field-problem" id={problemId} role="alert">{problemText(field, problem)}</p>}
    </div>
  );
}
