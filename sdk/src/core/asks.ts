/**
 * Building asks from what the agent passes, and checking answers against them (S-21…S-27).
 */
import { LIMITS, PERMISSION_OPTION_KINDS } from "../wire/constants.ts";
import { assertId, cleanChars, cleanText, isIsoWithZone } from "../wire/rules.ts";
import type {
  Answer, Ask, ChoiceOption, KnownAsk, FormField, PermissionOption, PermissionOptionKind, SelectOption,
} from "../wire/types.ts";
import { askIdFor, contentHash } from "./ids.ts";

interface AskCommonInput {
  toolCallId: string;
  itemId: string;
  title: string;
  reason?: string;
  /** The tool the ask is about: its name, or its name and the call on one line. */
  tool?: string | { name: string; call?: string };
  push?: { title?: string; line?: string };
  /** A Date or an ISO-8601 string with a time zone (S-22). */
  expiresAt?: Date | string;
  /** Aborting closes the ask as decided by `program` (S-24). */
  signal?: AbortSignal;
}

/** What `pane.ask()` takes: one of four kinds (S-21). The caller omits `id` (S-23). */
export type AskInput =
  | (AskCommonInput & { kind: "permission"; options: { id?: string; kind: PermissionOptionKind; label?: string }[] })
  | (AskCommonInput & { kind: "choice"; options: ChoiceOption[]; multiple?: boolean })
  | (AskCommonInput & { kind: "text"; limit?: number; placeholder?: string })
  | (AskCommonInput & { kind: "form"; fields: FormField[] });

/** What `ask()` resolves to: the answer in the kind's shape (S-21). */
export type AskAnswer =
  | { kind: "permission"; optionId: string; optionKind: PermissionOptionKind }
  | { kind: "choice"; optionIds: string[] }
  | { kind: "text"; text: string }
  | { kind: "form"; values: Record<string, string | boolean> };

const DEFAULT_PERMISSION_LABEL: Record<PermissionOptionKind, string> = {
  allow: "Allow",
  "allow-always": "Always allow",
  deny: "Deny",
  cancel: "Cancel",
};

function uniq<T extends { id: string }>(list: T[], what: string): T[] {
  const seen = new Set<string>();
  for (const entry of list) {
    assertId(entry.id, `${what} id`);
    if (seen.has(entry.id)) throw new TypeError(`${what} id ${JSON.stringify(entry.id)} is used twice`);
    seen.add(entry.id);
  }
  return list;
}

function countRange(list: unknown, max: number, what: string): asserts list is unknown[] {
  if (!Array.isArray(list) || list.length === 0) throw new TypeError(`${what} must be a non-empty array`);
  if (list.length > max) throw new RangeError(`at most ${max} ${what}, got ${list.length}`);
}

/** Turns the agent's input into the wire's Ask. Throws TypeError/RangeError at the call. */
export function buildAsk(paneId: string, input: AskInput, opts: { now: number; allowAlways: boolean }): KnownAsk {
  if (input === null || typeof input !== "object") throw new TypeError("ask() takes an object");
  if ((input as { id?: unknown }).id !== undefined) throw new TypeError("leave out the ask id: the SDK derives it with askIdFor(paneId, toolCallId) (S-23)");
  assertId(input.toolCallId, "toolCallId");
  assertId(input.itemId, "itemId");
  let shortened = false;
  const clean = (text: unknown, what: string, maxBytes: number, singleLine: boolean): string => {
    if (typeof text !== "string") throw new TypeError(`${what} must be a string`);
    const r = cleanText(text, maxBytes, { singleLine });
    if (r.changed) shortened = true;
    return r.text;
  };
  const title = clean(input.title, "ask title", LIMITS.askTitleBytes, true);
  if (title.length === 0) throw new TypeError("ask title must not be empty");
  const base: Record<string, unknown> = {
    id: askIdFor(paneId, input.toolCallId),
    revision: "",
    paneId,
    toolCallId: input.toolCallId,
    itemId: input.itemId,
    title,
    createdAt: new Date(opts.now).toISOString(),
  };
  if (input.reason !== undefined) base.reason = clean(input.reason, "ask reason", LIMITS.askReasonBytes, false);
  if (input.tool !== undefined) {
    const tool = typeof input.tool === "string" ? { name: input.tool } : input.tool;
    const name = clean(tool?.name, "tool name", LIMITS.toolNameBytes, true);
    if (name.length === 0) throw new TypeError("tool name must not be empty");
    base.tool = tool.call === undefined ? { name } : { name, call: clean(tool.call, "tool call", LIMITS.toolCallBytes, true) };
  }
  if (input.push !== undefined) {
    const push: { title?: string; line?: string } = {};
    if (input.push.title !== undefined) push.title = cleanChars(String(input.push.title), LIMITS.pushTitleChars, { singleLine: true }).text;
    if (input.push.line !== undefined) push.line = cleanChars(String(input.push.line), LIMITS.pushLineChars, { singleLine: true }).text;
    base.push = push;
  }
  if (input.expiresAt !== undefined) base.expiresAt = expiryOf(input.expiresAt);

  switch (input.kind) {
    case "permission": {
      countRange(input.options, LIMITS.permissionOptions, "permission options");
      const options: PermissionOption[] = input.options.map((o) => {
        if (!(PERMISSION_OPTION_KINDS as readonly string[]).includes(o?.kind)) {
          throw new TypeError(`permission option kind ${JSON.stringify(o?.kind)} is not one of ${PERMISSION_OPTION_KINDS.join(", ")}`);
        }
        if (o.kind === "allow-always" && !opts.allowAlways) {
          throw new TypeError("allow-always is turned off for this core (createCore({allowAlways: false}); over https the token is the only gate, S-27)");
        }
        const label = o.label === undefined ? DEFAULT_PERMISSION_LABEL[o.kind] : clean(o.label, "option label", LIMITS.optionLabelBytes, true);
        return { id: o.id ?? o.kind, kind: o.kind, label: label || DEFAULT_PERMISSION_LABEL[o.kind] };
      });
      uniq(options, "permission option");
      Object.assign(base, { kind: "permission", options });
      break;
    }
    case "choice": {
      countRange(input.options, LIMITS.choiceOptions, "choice options");
      const options = uniq(input.options.map((o) => {
        const out: ChoiceOption = { id: o?.id, label: clean(o?.label, "option label", LIMITS.optionLabelBytes, true) };
        if (o.description !== undefined) out.description = clean(o.description, "option description", LIMITS.askReasonBytes, false);
        return out;
      }), "choice option");
      Object.assign(base, { kind: "choice", options });
      if (input.multiple) base.multiple = true;
      break;
    }
    case "text": {
      const limit = input.limit ?? LIMITS.textDefaultLimit;
      if (!Number.isInteger(limit) || limit < 1 || limit > LIMITS.textMaxLimit) {
        throw new RangeError(`text limit ${limit} must be an integer from 1 to ${LIMITS.textMaxLimit}`);
      }
      Object.assign(base, { kind: "text", limit });
      if (input.placeholder !== undefined) base.placeholder = clean(input.placeholder, "placeholder", LIMITS.optionLabelBytes, true);
      break;
    }
    case "form": {
      countRange(input.fields, LIMITS.formFields, "form fields");
      const fields = uniq(input.fields.map((f) => normalizeField(f, clean)), "form field");
      Object.assign(base, { kind: "form", fields });
      break;
    }
    default:
      throw new TypeError(`ask kind ${JSON.stringify((input as { kind?: unknown }).kind)} is not one of permission, choice, text, form`);
  }
  if (shortened) base.textShortened = true;
  // The revision covers what the user reads and answers. The expiry and the push text are left
  // out: an agent that restarts raises the same call with a new deadline, and an answer to the
  // same question must still fit (D-5).
  const { revision: _r, createdAt: _c, expiresAt: _e, push: _p, ...content } = base;
  base.revision = contentHash(content);
  return base as unknown as KnownAsk;
}

function normalizeField(f: FormField, clean: (t: unknown, w: string, max: number, one: boolean) => string): FormField {
  if (f === null || typeof f !== "object") throw new TypeError("a form field must be an object");
  const label = clean(f.label, "field label", LIMITS.optionLabelBytes, true);
  const required = f.required ? { required: true } : {};
  switch (f.type) {
    case "text": {
      const out: FormField = { id: f.id, type: "text", label, ...required };
      if (f.placeholder !== undefined) out.placeholder = clean(f.placeholder, "placeholder", LIMITS.optionLabelBytes, true);
      if (f.limit !== undefined) {
        if (!Number.isInteger(f.limit) || f.limit < 1 || f.limit > LIMITS.textMaxLimit) throw new RangeError(`field limit ${f.limit} must be from 1 to ${LIMITS.textMaxLimit}`);
        out.limit = f.limit;
      }
      return out;
    }
    case "select": {
      countRange(f.options, LIMITS.selectOptions, "select options");
      const options: SelectOption[] = uniq(f.options.map((o) => ({ id: o?.id, label: clean(o?.label, "option label", LIMITS.optionLabelBytes, true) })), "select option");
      return { id: f.id, type: "select", label, options, ...required };
    }
    case "toggle":
      return { id: f.id, type: "toggle", label, ...required };
    default:
      throw new TypeError(`form field type ${JSON.stringify((f as { type?: unknown }).type)} is not one of text, select, toggle`);
  }
}

/** `expiresAt` as an ISO string: a Date, or a string with a time zone; a zone-less string is a TypeError (S-22). */
export function expiryOf(value: Date | string): string {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new RangeError("expiresAt is an invalid Date");
    return value.toISOString();
  }
  if (typeof value === "string") {
    if (!isIsoWithZone(value)) throw new TypeError(`expiresAt ${JSON.stringify(value)} must be an ISO-8601 string with a time zone (e.g. 2026-12-02T14:00:00Z)`);
    return new Date(value).toISOString();
  }
  throw new TypeError("expiresAt must be a Date or an ISO-8601 string with a time zone");
}

/** Characters as the phone counts them: code points. */
const charCount = (s: string): number => Array.from(s).length;

/** Checks an answer against its ask. Returns the answer for `ask()`, or the reason it does not fit. */
export function checkAnswer(ask: KnownAsk, answer: Answer): { ok: true; value: AskAnswer } | { ok: false; reason: string } {
  const no = (reason: string) => ({ ok: false as const, reason });
  if (answer.kind !== ask.kind) return no(`the ask is a ${ask.kind} ask, the answer is for ${answer.kind}`);
  switch (ask.kind) {
    case "permission": {
      const a = answer as Extract<Answer, { kind: "permission" }>;
      const option = ask.options.find((o) => o.id === a.optionId);
      return option ? { ok: true, value: { kind: "permission", optionId: option.id, optionKind: option.kind } } : no(`no option ${JSON.stringify(a.optionId)}`);
    }
    case "choice": {
      const a = answer as Extract<Answer, { kind: "choice" }>;
      if (!ask.multiple && a.optionIds.length !== 1) return no("pick exactly one option");
      if (new Set(a.optionIds).size !== a.optionIds.length) return no("an option is picked twice");
      const unknown = a.optionIds.find((id) => !ask.options.some((o) => o.id === id));
      return unknown === undefined ? { ok: true, value: { kind: "choice", optionIds: [...a.optionIds] } } : no(`no option ${JSON.stringify(unknown)}`);
    }
    case "text": {
      const a = answer as Extract<Answer, { kind: "text" }>;
      return charCount(a.text) > ask.limit ? no(`the text is longer than ${ask.limit} characters`) : { ok: true, value: { kind: "text", text: a.text } };
    }
    case "form": {
      const a = answer as Extract<Answer, { kind: "form" }>;
      const values: Record<string, string | boolean> = {};
      for (const key of Object.keys(a.values)) {
        if (!ask.fields.some((f) => f.id === key)) return no(`no field ${JSON.stringify(key)}`);
      }
      for (const field of ask.fields) {
        const v = a.values[field.id];
        const missing = v === undefined || v === "" || (field.type === "toggle" && v === false && field.required);
        if (missing) {
          if (field.required) return no(`${field.label} is required`);
          continue;
        }
        if (field.type === "toggle") {
          if (typeof v !== "boolean") return no(`${field.label} must be on or off`);
        } else if (typeof v !== "string") {
          return no(`${field.label} must be text`);
        } else if (field.type === "select" && !field.options.some((o) => o.id === v)) {
          return no(`${field.label} has no option ${JSON.stringify(v)}`);
        } else if (field.type === "text" && charCount(v) > (field.limit ?? LIMITS.textDefaultLimit)) {
          return no(`${field.label} is longer than ${field.limit ?? LIMITS.textDefaultLimit} characters`);
        }
        values[field.id] = v;
      }
      return { ok: true, value: { kind: "form", values } };
    }
  }
}
