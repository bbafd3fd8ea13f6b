/**
 * `@colliepwa/durable-sdk/testing`: a fake phone for an agent's own tests, over the real socket or
 * in memory (`connectPhone({core})`).
 */
export { connectPhone, FakePhone, type PhoneReply, type PhoneTarget, type WireEndpoint, type WriteOptions } from "./phone.ts";
