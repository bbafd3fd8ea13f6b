/**
 * The chat's own words where the specification leaves them to Collie (the verbatim ones are in
 * `STRINGS` of @colliepwa/shared); each is listed in docs/decisions.md.
 */
import { WORDS } from "@colliepwa/shared/strings";
export const CHAT_WORDS = WORDS.chat;
