/** The SDK's own name and version (S-1); a test keeps them equal to sdk/package.json. */
export const SDK_NAME = "@colliepwa/durable-sdk";
export const SDK_VERSION = "0.1.0";
