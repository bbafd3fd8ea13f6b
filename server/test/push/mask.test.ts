/**
 * Secret masking: every high-confidence shape is masked with its length kept and its prefix
 * visible, its near-misses are left alone, masking is idempotent, and it runs in linear time on
 * hostile input.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { CUT_RULES, mask, MASK, maskConversation, masker, redactionEnabled, RULES } from "../../src/push/mask.ts";

const len = (s: string) => [...s].length;

/** Asserts `input` is masked to `expected` (length kept, idempotent). */
function masks(input: string, expected: string): void {
  const out = mask(input);
  assert.equal(out, expected, `mask(${JSON.stringify(input)})`);
  assert.equal(len(out), len(input), "length kept");
  assert.equal(mask(out), out, "idempotent");
}

function leaves(input: string): void {
  assert.equal(mask(input), input, `leaves ${JSON.stringify(input)} alone`);
}

const dots = (n: number) => MASK.repeat(n);

// Realistic shapes (random-looking, made up for the tests).
const OPENAI = "sk-proj-4fT9xQ2mL7vB1nR8kW3zY6hJ0cD5eA";
const ANTHROPIC = "sk-ant-api03-Zx8Kq2Lm9Np4Rs7Tv1Wy3Ab6Cd0Ef5Gh";
const GHP = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
const GITHUB_PAT = "github_pat_11ABCDEFG0123456789abc_ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210";
const SLACK = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx";
const AWS = "AKIAIOSFODNN7EXAMPLE";
const GOOGLE = "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"; // AIza + 35
const GITLAB = "glpat-xY7zW3vU9tS1rQ5pO2nM";
const NPM = "npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
const JWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkphbmUifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";

describe("token shapes keep their prefix and one character, then one • per hidden character", () => {
  const cases: [string, string, number][] = [
    ["OpenAI sk-", OPENAI, 4],
    ["Anthropic sk-ant-", ANTHROPIC, 4],
    ["GitHub classic ghp_", GHP, 5],
    ["GitHub fine-grained github_pat_", GITHUB_PAT, 12],
    ["Slack xoxb-", SLACK, 6],
    ["AWS access key id AKIA", AWS, 5],
    ["Google AIza", GOOGLE, 5],
    ["GitLab glpat-", GITLAB, 7],
    ["npm npm_", NPM, 5],
    ["JWT", JWT, 4],
  ];
  for (const [name, secret, visible] of cases) {
    test(name, () => {
      const expected = secret.slice(0, visible) + dots(len(secret) - visible);
      masks(secret, expected);
      masks(`deploy with ${secret} now`, `deploy with ${expected} now`);
      masks(`"${secret}"`, `"${expected}"`);
    });
  }
  test("the example of the docs: sk-o…", () => {
    const key = "sk-o1x9Zq2Lm8Rt4Yv7Bn3Kd6Wf";
    assert.equal(mask(key), `sk-o${dots(len(key) - 4)}`);
  });
  test("gho_, ghu_, ghs_ and ghr_ too; Stripe sk_live_ and rk_test_", () => {
    for (const p of ["gho_", "ghu_", "ghs_", "ghr_"]) {
      const t = `${p}Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8Nn7`;
      masks(t, t.slice(0, 5) + dots(len(t) - 5));
    }
    const stripe = "sk_live_51HbC2dE3fG4hI5jK6lM7nO8p";
    masks(stripe, stripe.slice(0, 9) + dots(len(stripe) - 9));
    const restricted = "rk_test_9aB8cD7eF6gH5iJ4kL3m";
    masks(restricted, restricted.slice(0, 9) + dots(len(restricted) - 9));
  });
});

describe("near-misses are left alone", () => {
  test("sk- words, short keys and sk- inside a word", () => {
    leaves("sk-learn-tutorial-for-beginners-part-two"); // no digit, one case
    leaves("sk-1234 is too short"); // too short, and not where a cut falls
    leaves("ask-for-a-refund-on-order-5521-before-friday"); // `ask-` is no sk- key
    leaves("task-7f3e9a1b2c4d5e6f7a8b9c0d1e2f"); // sk- inside a word
  });
  test("GitHub, Slack, GitLab, npm prefixes without a real token after them", () => {
    leaves("ghp_short1 in a sentence");
    leaves("ghx_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"); // no such prefix
    leaves("github_pat_tooShort1 in a sentence");
    leaves("xoxb-not-a-token-here"); // no digit
    leaves("xoxz-123456789012-abc"); // no such Slack type
    leaves("glpat-short in a sentence");
    leaves("npm_install_instructions_for_the_team_x"); // `_` is not in an npm token
    leaves("npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8X"); // 37 after npm_
  });
  test("AWS and Google keys of the wrong length", () => {
    leaves("AKIAIOSFODNN7EXAMPL here"); // 15 after AKIA, not at the end
    leaves("AKIAIOSFODNN7EXAMPLEX"); // 17 after AKIA
    leaves("AKIA-IOSFODNN7EXAMPLE");
    leaves("AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6 here"); // 34 after AIza, not at the end
    leaves("AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Qr"); // 36 after AIza
  });
  test("things that look a little like a JWT", () => {
    leaves("eyJhbGciOiJIUzI1NiJ9"); // one segment
    leaves("eyJ.eyJ.abc");
    leaves("eyJhbGciOiJIUzI1NiJ9.notjson.sig12345");
    leaves("v1.2.3 and example.com.au");
  });
  test("Bearer in prose, or with a placeholder", () => {
    leaves("Bearer of bad news");
    leaves("Authorization: Bearer ${TOKEN}");
    leaves("Authorization: Bearer <token>");
    leaves("bearer-token-authentication-explained"); // no digit, one case, and no space
  });
  test("assignments with placeholders, words or nothing", () => {
    leaves("password: required");
    leaves("password=");
    leaves("password = ********");
    leaves("token: none");
    leaves("api_key=${API_KEY}");
    leaves("password: <your password>");
    leaves("secret=xxxxxxxx");
    leaves("passwordless: true");
    leaves("tokens: 5000000");
    leaves("token_count=123456");
    leaves("password: aaaaaaaa");
  });
  test("URLs without a password, or with a port", () => {
    leaves("https://example.com:8080/path?q=1");
    leaves("ssh://git@github.com/org/repo.git");
    leaves("see https://docs.example.com/a:b/c");
  });
  test("PEM public keys and certificates", () => {
    leaves("-----BEGIN PUBLIC KEY----- MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE -----END PUBLIC KEY-----");
    leaves("-----BEGIN CERTIFICATE----- MIIBszCCAVmgAwIBAgIU -----END CERTIFICATE-----");
  });
});

describe("Bearer tokens, assignments, private keys and URL credentials", () => {
  test("Bearer …: the first character stays", () => {
    const tok = "abC123def456GHI789jkl0";
    masks(`Authorization: Bearer ${tok}`, `Authorization: Bearer a${dots(len(tok) - 1)}`);
    masks(`curl -H 'authorization: bearer ${tok}'`, `curl -H 'authorization: bearer a${dots(len(tok) - 1)}'`);
  });
  test("password=, token:, \"api_key\": …, ?access_token=: the whole value", () => {
    masks("password=hunter2!", `password=${dots(8)}`);
    masks("DB_PASSWORD=Tr0ub4dor!3", `DB_PASSWORD=${dots(11)}`);
    masks("login?user=ann&password=Tr0ub4dor&next=/", `login?user=ann&password=${dots(9)}&next=/`); // `&` ends a query value
    masks("token: 9f8e7d6c5b4a", `token: ${dots(12)}`);
    masks('{"api_key": "Zq81LmN0pQ"}', `{"api_key": "${dots(10)}"}`);
    masks("https://api.example.com/v1?access_token=Ab12Cd34Ef&x=1", `https://api.example.com/v1?access_token=${dots(10)}&x=1`);
    masks("client_secret = s3cr3tV4lue", `client_secret = ${dots(11)}`);
  });
  test("PEM private keys: header and footer stay, the body goes; a cut block to the end", () => {
    const body = "MIIEpAIBAAKCAQEA7b3Xq9 Zt5Lm2Np8Qr4Sv1Tw6Uy0Ab3Cd7Ef9Gh";
    const masked = body.replace(/\S/g, MASK);
    masks(`-----BEGIN RSA PRIVATE KEY----- ${body} -----END RSA PRIVATE KEY-----`, `-----BEGIN RSA PRIVATE KEY----- ${masked} -----END RSA PRIVATE KEY-----`);
    masks(`-----BEGIN PRIVATE KEY-----\n${body}\n-----END PRIVATE KEY-----`, `-----BEGIN PRIVATE KEY-----\n${masked}\n-----END PRIVATE KEY-----`);
    masks(`-----BEGIN OPENSSH PRIVATE KEY----- ${body}`, `-----BEGIN OPENSSH PRIVATE KEY----- ${masked}`);
    masks(`key: -----BEGIN EC PRIVATE KEY----- ${body} -----END EC PRIVATE KEY----- done`, `key: -----BEGIN EC PRIVATE KEY----- ${masked} -----END EC PRIVATE KEY----- done`);
    masks(`-----BEGIN PGP PRIVATE KEY BLOCK----- ${body} -----END PGP PRIVATE KEY BLOCK-----`, `-----BEGIN PGP PRIVATE KEY BLOCK----- ${masked} -----END PGP PRIVATE KEY BLOCK-----`);
  });
  test("credentials in URLs: the user stays, the password goes", () => {
    masks("postgres://app:pa55word@db.internal:5432/main", `postgres://app:${dots(8)}@db.internal:5432/main`);
    masks("cloning https://x-access-token:Zk8q2Lm9@github.com/o/r", `cloning https://x-access-token:${dots(8)}@github.com/o/r`);
    masks("redis://:hunter2@cache:6379", "redis://:hunter2@cache:6379".replace(":hunter2@", `:${dots(7)}@`));
  });
  test("several secrets in one line, and a token inside an assignment", () => {
    const out = mask(`token=${GHP} and ${AWS} at https://u:Pw123456@h`);
    assert.equal(out, `token=ghp_A${dots(len(GHP) - 5)} and AKIAI${dots(15)} at https://u:${dots(8)}@h`);
    assert.equal(mask(out), out);
  });
});

describe("a secret cut short where the text ends (issue 38, item 3)", () => {
  // What an agent's SDK leaves of a secret it cut (a push line at 120, a title at 256 bytes),
  // with what Collie or the agent may put after the cut.
  const samples: [string, string, number][] = [
    ["sk-", OPENAI, 4], ["sk-ant-", ANTHROPIC, 4], ["ghp_", GHP, 5], ["github_pat_", GITHUB_PAT, 12], ["xoxb-", SLACK, 6],
    ["AKIA", AWS, 5], ["AIza", GOOGLE, 5], ["glpat-", GITLAB, 7], ["npm_", NPM, 5], ["sk_live_", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", 9],
  ];
  // `sk-` is also a word's start (`sk-learn`): a cut of it is masked once what follows looks random.
  const random = (s: string) => /[0-9]/.test(s) || (/[a-z]/.test(s) && /[A-Z]/.test(s));
  for (const [name, secret, visible] of samples) {
    test(`${name}: at every cut, nothing past the prefix and one character shows`, () => {
      for (let k = visible + 1; k <= len(secret); k++) {
        const cut = [...secret].slice(0, k).join("");
        const masked = !name.startsWith("sk-") || random(cut.slice(3));
        for (const [before, after] of [["", ""], ["Refund needs a yes: ", ""], ["Deploy ", "…"], ["Deploy ", "..."]] as const) {
          const out = mask(`${before}${cut}${after}`);
          const expected = masked ? `${cut.slice(0, visible)}${dots(len(cut) - visible)}` : cut;
          assert.equal(out, `${before}${expected}${after}`, `${name} cut to ${k}: ${out}`);
          assert.equal(mask(out), out, "idempotent");
        }
      }
    });
  }
  test("the issue's lock screen and list: a push line and a pane title ending in a cut token", () => {
    masks("Refund order 5521 for Maria Lopez, then rotate ghp_ABCDEFGHIJKLMNO", `Refund order 5521 for Maria Lopez, then rotate ghp_A${dots(14)}`);
    masks(`${"x".repeat(225)} ghp_ABCDEFGHIJK`, `${"x".repeat(225)} ghp_A${dots(10)}`);
  });
  test("a password, a bearer token and URL credentials cut short", () => {
    masks("retry with password=hunt", `retry with password=${dots(4)}`);
    masks("Authorization: Bearer eyJ4bG", `Authorization: Bearer e${dots(5)}`);
    masks("clone https://alice:s3cr", `clone https://alice:${dots(4)}`);
  });
  test("near-misses where a text ends stay as they are", () => {
    leaves("see the sk-learn-tutorial-for-beginners-part-two");
    leaves("xoxb-not-a-token-here");
    leaves("run npm_install_instructions_for_the_team_x");
    leaves("npm_config");
    leaves("Bearer of bad news");
    leaves("Authorization: Bearer tokens");
    leaves("password: required");
    leaves("token: none…");
    leaves("open https://example.com:8080");
    leaves("the desk");
  });
  test("a cut rule reads only the tail: a long text costs no more than its last 16 KiB", () => {
    const head = `sk-${"a".repeat(300_000)} `;
    const started = performance.now();
    assert.equal(mask(`${head}ends with ghp_AB12`), `${head}ends with ghp_A${dots(3)}`);
    assert.ok(performance.now() - started < 5000);
  });
});

describe("properties", () => {
  const corpus = [
    OPENAI, ANTHROPIC, GHP, GITHUB_PAT, SLACK, AWS, GOOGLE, GITLAB, NPM, JWT,
    `Bearer ${JWT}`, `password=${OPENAI}`, `https://user:${GHP}@host/x`, "plain words, nothing secret",
    `-----BEGIN PRIVATE KEY----- ${JWT} -----END PRIVATE KEY-----`, "Permission needed in Maria Lopez",
  ];
  test("idempotent on every sample and on every concatenation of two", () => {
    for (const a of corpus) {
      assert.equal(mask(mask(a)), mask(a), a);
      for (const b of corpus) {
        const s = `${a} ${b}`;
        assert.equal(mask(mask(s)), mask(s), s);
      }
    }
  });
  test("keeps the length of every sample", () => {
    for (const a of corpus) assert.equal(len(mask(a)), len(a), a);
  });
  test("linear time: 200 kB of hostile input per rule finishes quickly", () => {
    const n = 200_000;
    const hostile = [
      "sk-".repeat(n / 3),
      `sk-${"a".repeat(n)}`,
      "a".repeat(n),
      `eyJ${"a".repeat(n)}.`,
      "eyJa.".repeat(n / 5),
      `https://${"u".repeat(n)}:`,
      `https://u:${"p".repeat(n)}`,
      "https://".repeat(n / 8),
      "password=".repeat(n / 9),
      `password=${"x1".repeat(n / 2)}`,
      "Bearer ".repeat(n / 7),
      `Bearer ${"a".repeat(n)}`,
      "-----BEGIN PRIVATE KEY-----".repeat(n / 27),
      "AKIA".repeat(n / 4),
      "ghp_".repeat(n / 4),
      `${"a:".repeat(n / 2)}@`,
    ];
    const started = performance.now();
    for (const h of hostile) mask(h);
    const ms = performance.now() - started;
    // Catastrophic backtracking would take minutes here; linear matching takes milliseconds.
    assert.ok(ms < 5000, `masking hostile input took ${ms.toFixed(0)} ms`);
  });
  test("every rule has a name (docs/push.md lists them)", () => {
    assert.deepEqual(RULES.map((r) => r.name), [
      "url-credentials", "jwt", "sk-key", "stripe-key", "github-token", "github-pat", "slack-token",
      "aws-access-key-id", "google-api-key", "gitlab-token", "npm-token", "bearer", "assignment",
    ]);
    assert.deepEqual(CUT_RULES.map((r) => r.name), [
      "url-credentials-cut", "jwt-cut", "sk-key-cut", "stripe-key-cut", "github-token-cut", "github-pat-cut", "slack-token-cut",
      "aws-access-key-id-cut", "google-api-key-cut", "gitlab-token-cut", "npm-token-cut", "bearer-cut", "assignment-cut",
    ]);
  });
});

describe("where masking applies", () => {
  test("a conversation's title, subtitle and pending question", () => {
    const c = { id: "p1", title: `Deploy ${GHP}`, subtitle: `uses ${AWS}`, pendingQuestion: `Use password=Zx81Lm9q?`, workspaceTitle: `ws ${GHP}` };
    const m = maskConversation(c);
    assert.equal(m.title, `Deploy ghp_A${dots(len(GHP) - 5)}`);
    assert.equal(m.subtitle, `uses AKIAI${dots(15)}`);
    assert.equal(m.pendingQuestion, `Use password=${dots(9)}`);
    assert.equal(m.workspaceTitle, c.workspaceTitle, "not listed in the list: left");
    assert.equal(c.title, `Deploy ${GHP}`, "the input is not changed");
    assert.deepEqual(maskConversation({ title: "Maria" }), { title: "Maria" });
  });
  test("COLLIE_REDACT: on by default, `off` turns it off", () => {
    assert.equal(redactionEnabled({}), true);
    assert.equal(redactionEnabled({ COLLIE_REDACT: "on" }), true);
    assert.equal(redactionEnabled({ COLLIE_REDACT: "1" }), true);
    assert.equal(redactionEnabled({ COLLIE_REDACT: "off" }), false);
    assert.equal(redactionEnabled({ COLLIE_REDACT: " OFF " }), false);
    assert.equal(redactionEnabled({ COLLIE_REDACT: "false" }), false);
    assert.equal(masker(false)(GHP), GHP);
    assert.notEqual(masker(true)(GHP), GHP);
  });
});
