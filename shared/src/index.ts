/** `@colliepwa/shared`: the Collie-to-phone contract. No Node or DOM imports. */
export { STRINGS } from "./strings.ts";
export * from "./api.ts";
