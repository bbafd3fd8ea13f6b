/**
 * A phone route's schemas from the one table (`@colliepwa/shared/schemas`), as route options:
 * Fastify validates params, query and body with them and serializes the reply with them. A check
 * whose words the phone knew from the handler answers with those words (`PHONE_SCHEMA_MESSAGES`);
 * any other failed check keeps Fastify's own text, as before.
 */
import type { FastifySchemaValidationError, RouteShorthandOptions } from "fastify";
import { PHONE_SCHEMA_MESSAGES, PHONE_SCHEMAS, type PhoneSchemaMessages, type PhoneSchemas } from "@colliepwa/shared/schemas";
import type { PhoneRouteName } from "@colliepwa/shared";

/** Fastify's own text for failed checks (its default formatter, which it does not export). */
type SchemaErrorDataVar = Parameters<NonNullable<RouteShorthandOptions["schemaErrorFormatter"]>>[1];

function fastifyText(errors: FastifySchemaValidationError[], dataVar: SchemaErrorDataVar): string {
  return errors.map((e) => `${dataVar}${e.instancePath || ""} ${e.message}`).join(", ");
}

function formatter(messages: PhoneSchemaMessages) {
  return (errors: FastifySchemaValidationError[], dataVar: SchemaErrorDataVar): Error => {
    const key = errors[0]?.instancePath.split("/")[1];
    const words = key === undefined ? undefined : (messages as Record<string, Record<string, string> | undefined>)[dataVar]?.[key];
    return new Error(words ?? fastifyText(errors, dataVar));
  };
}

/**
 * The words of a failed check of `part` of route `name`, as its POST answers them (`phoneSchema`'s
 * formatter): an act on the live socket is checked by the same schemas (act.ts).
 */
export function schemaErrorText(name: PhoneRouteName, errors: FastifySchemaValidationError[], part: SchemaErrorDataVar): string {
  const messages = PHONE_SCHEMA_MESSAGES[name];
  return messages ? formatter(messages)(errors, part).message : fastifyText(errors, part);
}

/** The route options that carry a route's schemas (spread them beside its access). */
export function phoneSchema<N extends PhoneRouteName>(name: N): { schema: PhoneSchemas[N]; schemaErrorFormatter?: ReturnType<typeof formatter> } {
  const messages = PHONE_SCHEMA_MESSAGES[name];
  return { schema: PHONE_SCHEMAS[name], ...(messages ? { schemaErrorFormatter: formatter(messages) } : {}) };
}
