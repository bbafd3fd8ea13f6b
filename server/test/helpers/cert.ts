/** A self-signed certificate for the https agent, made by openssl in a temp directory. */
import { execFileSync } from "node:child_process";
import { join } from "node:path";

export function makeCert(dir: string): { cert: string; key: string } {
  const cert = join(dir, "cert.pem");
  const key = join(dir, "key.pem");
  execFileSync("openssl", [
    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
    "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=localhost",
    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:127.0.0.2",
  ], { stdio: "ignore" });
  return { cert, key };
}
