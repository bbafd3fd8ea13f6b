/**
 * `@colliepwa/durable-sdk/testing`: a fake phone for an agent's own tests, over the real socket.
 */
export { connectPhone, FakePhone, type PhoneReply, type PhoneTarget, type WriteOptions } from "./phone.ts";
