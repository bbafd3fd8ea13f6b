/**
 * Device tokens of the test daemons by their base URLs (http and ws), so every test client
 * talks to the daemon as a paired device, through the same gate a phone passes.
 */
export const DEVICE_TOKENS = new Map<string, string>();

export function authHeaders(url: string): Record<string, string> {
  for (const [base, token] of DEVICE_TOKENS) if (url.startsWith(base)) return { authorization: `Bearer ${token}` };
  return {};
}
