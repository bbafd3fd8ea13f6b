/**
 * Which model the agent talks to. With no environment it is pi-ai's faux provider: Pi's real
 * provider path with a scripted model, so the example runs with no network and no key. With
 * `PI_PROVIDER` and `PI_MODEL` (and the provider's key in `PI_API_KEY`, or in the provider's own
 * variable such as `ANTHROPIC_API_KEY`) it is that model.
 */
import {
  fauxAssistantMessage, fauxText, fauxThinking, fauxToolCall, getModel, registerFauxProvider,
  type AssistantMessage, type Context, type KnownProvider, type Model,
} from "@mariozechner/pi-ai";

export interface ChosenModel {
  model: Model<string>;
  /** For Pi's `getApiKey`: the key from PI_API_KEY, else Pi reads the provider's own variable. */
  apiKey: string | undefined;
  /** A line for the log: which model, scripted or not. */
  label: string;
  /** The faux provider's script: no network, no key. */
  scripted: boolean;
}

export function chooseModel(env: NodeJS.ProcessEnv = process.env): ChosenModel {
  const provider = env.PI_PROVIDER;
  const modelId = env.PI_MODEL;
  if (provider) {
    if (!modelId) throw new Error("PI_PROVIDER is set: name the model in PI_MODEL too (e.g. PI_MODEL=claude-sonnet-4-5)");
    const model = (getModel as (p: string, m: string) => Model<string> | undefined)(provider as KnownProvider, modelId);
    if (!model) throw new Error(`pi-ai knows no model ${JSON.stringify(modelId)} for provider ${JSON.stringify(provider)}`);
    return { model, apiKey: env.PI_API_KEY, label: `${provider}/${modelId}`, scripted: false };
  }
  return { model: scriptedModel(), apiKey: undefined, label: "faux (scripted, no network)", scripted: true };
}

/** Responses the faux provider keeps queued; each one queues itself again when used. */
const QUEUED = 8;

/** The scripted model: `read <file>` reads it (Pi's `read`), `run <command>` asks to run it (Pi's `bash`), anything else gets a short answer. */
function scriptedModel(): Model<string> {
  const faux = registerFauxProvider({ tokensPerSecond: 60 });
  const step = (context: Context): AssistantMessage => {
    faux.appendResponses([step]);
    return answer(context);
  };
  faux.setResponses(Array.from({ length: QUEUED }, () => step));
  return faux.getModel();
}

function answer(context: Context): AssistantMessage {
  const last = context.messages.at(-1);
  if (last?.role === "toolResult") {
    const output = last.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n").trim();
    if (last.isError) return fauxAssistantMessage(`${last.toolName} did not run: ${output}`);
    const shown = output.split("\n").slice(0, 20).join("\n");
    return fauxAssistantMessage(`${last.toolName} returned:\n${shown}`);
  }
  const said = last?.role === "user" ? (typeof last.content === "string" ? last.content : last.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join(" ")) : "";
  const read = /^\s*(?:read|show|cat)\s+(\S+)/i.exec(said);
  if (read) return fauxAssistantMessage([fauxThinking(`The user wants ${read[1]}; read can show it.`), fauxToolCall("read", { path: read[1]! })], { stopReason: "toolUse" });
  const run = /^\s*(?:run|\$)\s+(.+)$/is.exec(said);
  if (run) return fauxAssistantMessage([fauxThinking("That needs the shell, so the phone is asked first."), fauxToolCall("bash", { command: run[1]!.trim() })], { stopReason: "toolUse" });
  return fauxAssistantMessage([
    fauxThinking("No file and no command in the message."),
    fauxText('I am a scripted Pi model. Try "read README.md", or "run ls -la" (that one asks your phone first).'),
  ]);
}
