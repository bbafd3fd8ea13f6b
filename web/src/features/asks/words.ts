/**
 * The card's own words where the specification leaves them to Collie (the verbatim ones are in
 * `STRINGS` of @colliepwa/shared).
 */
import { WORDS as COLLIE_WORDS } from "@colliepwa/shared/strings";
export const WORDS = COLLIE_WORDS.asks;
