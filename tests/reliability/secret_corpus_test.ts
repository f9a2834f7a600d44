/**
 * A corpus of secret formats (positive samples) and look-alikes that must stay readable
 * (negative samples), run through the real CLI: one `memory ingest` of the whole corpus, then
 * every output path reads it back (`memory log --json`, `replay --json`, `memory export`,
 * `memory verbatim --json`, `memory bootstrap --json`, `memory checkout --json`) and the bytes
 * on disk are searched. No secret may appear anywhere; every negative sample comes back exactly
 * as written. Secrets in envelope fields (actor, event type, session id, producer_ref, ids) are
 * refused with exit 2 naming the field, and the refusal does not echo the secret.
 *
 * Samples are batched (one event per sample, one process for all of them) to keep the test fast.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy } from "../cli/zaxy.ts";
import { fakeChars, secretKeySamples, secretSamples } from "./secret_samples.ts";

after(removeTempDirs);

const R = "[REDACTED]";
const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const hexLower = "0123456789abcdef";
const base64Chars = alnum + "+/";
const urlSafe = alnum + "_-";

interface CorpusSample {
  name: string;
  /** The event payload carrying the secret (default `{content: text}`). */
  payload: Record<string, unknown>;
  /** Substrings that must never be stored or printed. */
  needles: string[];
}

function inText(name: string, text: string, needles: string[]): CorpusSample {
  return { name, payload: { content: text }, needles };
}

/** A plausible token body that no other format claims on its own. */
function body(seed: number, length = 32): string {
  return "Q" + fakeChars(length - 1, seed, alnum);
}

const ghToken = "gh" + "p_" + fakeChars(36, 9001);
const slackToken = "xo" + "xb-" + fakeChars(12, 9002, "0123456789") + "-" + fakeChars(24, 9003);
const npmToken = "np" + "m_" + fakeChars(36, 9004);
const stripeKey = "sk" + "_live_" + fakeChars(24, 9005);
const glToken = "gl" + "pat-" + fakeChars(20, 9006, urlSafe);
const hfToken = "h" + "f_" + fakeChars(34, 9007);

// --- Formats the earlier catalogue already covered: each as a value and inside free text. ---
const catalogue: CorpusSample[] = secretSamples.flatMap((sample) => [
  { name: `${sample.name} (value)`, payload: { content: "catalogue value", [sample.key ?? "value"]: sample.value }, needles: sample.needles },
  inText(`${sample.name} (free text)`, sample.text, sample.needles),
]);
const keyedValues: CorpusSample[] = Object.entries(secretKeySamples).map(([key, value]) => ({
  name: `value under the key "${key}"`,
  payload: { content: "keyed value", [key]: value },
  needles: [value],
}));

// --- `*_TOKEN=` and `*_token:` assignments. ---
const tokenNames = [
  "GITHUB_TOKEN", "GH_TOKEN", "NPM_TOKEN", "HF_TOKEN", "SLACK_TOKEN", "GITLAB_TOKEN", "TOKEN", "CI_JOB_TOKEN", "VAULT_TOKEN",
  "CIRCLE_TOKEN", "CODECOV_TOKEN", "SONAR_TOKEN", "DISCORD_BOT_TOKEN", "TELEGRAM_TOKEN", "CLOUDFLARE_API_TOKEN", "NETLIFY_AUTH_TOKEN",
  "VERCEL_TOKEN", "HUGGING_FACE_HUB_TOKEN", "TWINE_TOKEN", "DIGITALOCEAN_TOKEN",
];
const tokenAssignments: CorpusSample[] = [
  ...tokenNames.map((name, index) => inText(`${name}= in a shell line`, `export ${name}=${body(100 + index)} && make release`, [body(100 + index)])),
  inText("*_token: in YAML", `auth:\n  registry_token: ${body(130)}\n  user: ci`, [body(130)]),
  inText("token: in YAML (kubeconfig user)", `users:\n- name: admin\n  user:\n    token: ${body(131, 40)}\n`, [body(131, 40)]),
  inText("\"*_token\": in JSON text", `{"refresh_token": "${body(132)}", "expires_in": 3600}`, [body(132)]),
  inText("token = in TOML", `[registry]\ntoken = "${body(133)}"`, [body(133)]),
  inText("GITHUB_TOKEN= holding a ghp_ token", `GITHUB_TOKEN=${ghToken}`, [ghToken]),
  inText("identitytoken in a Docker config", `{"auths": {"r.example.com": {"identitytoken": "${body(134)}"}}}`, [body(134)]),
];

// --- Other key names in free text. ---
const otherAssignments: CorpusSample[] = [
  inText("SECRET_KEY_BASE= (Rails)", `SECRET_KEY_BASE=${fakeChars(128, 140, hexLower)} bin/rails s`, [fakeChars(128, 140, hexLower)]),
  inText("secret_key_base: in YAML", `production:\n  secret_key_base: ${fakeChars(64, 141, hexLower)}`, [fakeChars(64, 141, hexLower)]),
  inText("DJANGO_SECRET_KEY=", `DJANGO_SECRET_KEY=${body(142, 50)}`, [body(142, 50)]),
  inText("REDISCLI_AUTH=", `REDISCLI_AUTH=${body(143, 20)} redis-cli ping`, [body(143, 20)]),
  inText("MYSQL_PWD=", `MYSQL_PWD=${body(144, 16)} mysql -u root`, [body(144, 16)]),
  inText("PGPASSWORD=", `PGPASSWORD=${body(145, 16)} psql -h db`, [body(145, 16)]),
];

// --- Passwords on command lines. ---
const commandLines: CorpusSample[] = [
  inText("mysql -pPASS", `mysql -u root -p${body(150, 14)} shop < dump.sql`, [body(150, 14)]),
  inText("mysqldump -pPASS", `mysqldump --single-transaction -uroot -p${body(151, 14)} shop > shop.sql`, [body(151, 14)]),
  inText("mysql --password PASS", `mysql --user root --password ${body(152, 14)} shop`, [body(152, 14)]),
  inText("docker login -p PASS", `docker login -u ci -p ${body(153, 20)} registry.example.com`, [body(153, 20)]),
  inText("docker login --password PASS", `docker login --username ci --password ${body(154, 20)} ghcr.io`, [body(154, 20)]),
  inText("podman login -p PASS", `podman login quay.io -u bot -p ${body(155, 20)}`, [body(155, 20)]),
  inText("sshpass -p PASS", `sshpass -p ${body(156, 14)} ssh deploy@10.0.0.7 uptime`, [body(156, 14)]),
  inText("sshpass -pPASS", `sshpass -p${body(157, 14)} scp a.txt host:`, [body(157, 14)]),
  inText("--password PASS (any tool)", `psql-wrapper --host db --password ${body(158, 14)} --db main`, [body(158, 14)]),
  inText("--password=PASS", `tool --password=${body(159, 14)} --verbose`, [body(159, 14)]),
  inText("curl -u user:PASS", `curl -u admin:${body(160, 14)} https://jenkins.example.com/api/json`, [body(160, 14)]),
  inText("curl --user user:PASS", `curl --user "admin:${body(161, 14)}" https://nexus.example.com`, [body(161, 14)]),
  inText("redis-cli -a PASS", `redis-cli -h cache -a ${body(162, 14)} INFO`, [body(162, 14)]),
  inText("redis-cli --pass PASS", `redis-cli --pass ${body(163, 14)} ping`, [body(163, 14)]),
  inText("htpasswd -b user PASS", `htpasswd -b -c .htpasswd admin ${body(164, 14)}`, [body(164, 14)]),
  inText("--token TOKEN", `gh-wrapper --token ${body(165)} repo list`, [body(165)]),
  inText("--api-key KEY", `cli --api-key ${body(166)} deploy`, [body(166)]),
];

// --- Secrets used as object keys. ---
const objectKeys: CorpusSample[] = [
  { name: "a GitHub token as an object key", payload: { content: "seen tokens", seen: { [ghToken]: "2026-05-01" } }, needles: [ghToken] },
  { name: "a Slack token as an object key", payload: { content: "seen tokens", cache: { [slackToken]: true } }, needles: [slackToken] },
  { name: "a Stripe key as an object key", payload: { content: "seen tokens", [stripeKey]: { owner: "billing" } }, needles: [stripeKey] },
  { name: "a URL with a password as an object key", payload: { content: "by dsn", pools: { [`postgres://app:${body(170, 16)}@db/main`]: 4 } }, needles: [body(170, 16)] },
  { name: "an npm token as a key in a list of objects", payload: { content: "seen tokens", items: [{ [npmToken]: 1 }] }, needles: [npmToken] },
  { name: "two token keys in one object", payload: { content: "seen tokens", both: { [glToken]: 1, [hfToken]: 2 } }, needles: [glToken, hfToken] },
];

// --- Encodings: base64 of a known token, kubeconfig, Docker config.json. ---
const pemForKube = `-----BEGIN RSA PRIVATE KEY-----\n${fakeChars(64, 180, base64Chars)}\n${fakeChars(64, 181, base64Chars)}\n-----END RSA PRIVATE KEY-----\n`;
const encoded: CorpusSample[] = [
  inText("base64 of a GitHub token", `echo ${btoa(ghToken)} | base64 -d`, [btoa(ghToken).slice(0, 40), ghToken]),
  inText("base64 of a Slack token", `SLACK=${btoa(slackToken)}`, [btoa(slackToken).slice(0, 40)]),
  inText("base64 of a Stripe key", `data: ${btoa(stripeKey)}`, [btoa(stripeKey).slice(0, 32)]),
  inText("base64 of npm _auth line", `_auth=${btoa("//registry.npmjs.org/:_authToken=" + npmToken)}`, [btoa("//registry.npmjs.org/:_authToken=" + npmToken).slice(8, 60)]),
  inText("base64 of a password assignment", `payload ${btoa("password=" + body(181, 16))}`, [btoa("password=" + body(181, 16)).slice(0, 24)]),
  inText("base64url of a GitHub token", `t=${btoa(ghToken).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")}`, [btoa(ghToken).slice(0, 40)]),
  inText("kubeconfig client-key-data:", `users:\n- name: admin\n  user:\n    client-certificate-data: LS0tLS1CRUdJTg==\n    client-key-data: ${btoa(pemForKube)}\n`, [btoa(pemForKube).slice(0, 60), btoa(pemForKube).slice(120, 180)]),
  inText("kubeconfig client-key-data in JSON", `{"client-key-data": "${btoa(pemForKube)}"}`, [btoa(pemForKube).slice(0, 60)]),
  inText("Docker config.json as a JSON string", JSON.stringify({ auths: { "registry.example.com": { auth: btoa("ci:" + body(182, 18)) } } }), [btoa("ci:" + body(182, 18))]),
  inText("Docker config.json, pretty printed", `{\n  "auths": {\n    "ghcr.io": {\n      "auth": "${btoa("bot:" + body(183, 18))}"\n    }\n  }\n}`, [btoa("bot:" + body(183, 18))]),
  inText("npm .npmrc _authToken", `//registry.npmjs.org/:_authToken=${body(184, 36)}`, [body(184, 36)]),
  inText("pip.conf / .netrc password", `machine api.example.com login bot password ${body(185, 20)}`, [body(185, 20)]),
];

// --- Vendor formats and file formats. ---
const twilioSid = "A" + "C" + fakeChars(32, 190, hexLower);
const twilioToken = fakeChars(32, 191, hexLower);
const puttyPrivate = [fakeChars(64, 192, base64Chars), fakeChars(64, 193, base64Chars), fakeChars(20, 194, base64Chars) + "=="];
const putty = [
  "PuTTY-User-Key-File-3: ssh-rsa",
  "Encryption: none",
  "Comment: deploy@ci",
  "Public-Lines: 2",
  fakeChars(64, 195, base64Chars),
  fakeChars(20, 196, base64Chars),
  "Private-Lines: 3",
  ...puttyPrivate,
  "Private-MAC: " + fakeChars(64, 197, hexLower),
].join("\n");
const vendors: CorpusSample[] = [
  inText("Twilio account SID + auth token", `twilio: account ${twilioSid} auth token ${twilioToken}`, [twilioSid, twilioToken]),
  inText("TWILIO_AUTH_TOKEN=", `TWILIO_ACCOUNT_SID=${twilioSid}\nTWILIO_AUTH_TOKEN=${twilioToken}`, [twilioSid, twilioToken]),
  inText("Twilio SID:token in curl -u", `curl -X POST https://api.twilio.com/2010-04-01/Accounts -u ${twilioSid}:${twilioToken}`, [twilioSid, twilioToken]),
  inText("<password>…</password>", `<server><id>nexus</id><username>ci</username><password>${body(200, 16)}</password></server>`, [body(200, 16)]),
  inText("<Password> with attributes", `<Password encrypted="false">${body(201, 16)}</Password>`, [body(201, 16)]),
  inText("<secret>…</secret>", `<config><secret>${body(202, 24)}</secret></config>`, [body(202, 24)]),
  inText("<token>…</token>", `<auth><token>${body(203, 24)}</token></auth>`, [body(203, 24)]),
  inText("<apiKey>…</apiKey>", `<apiKey>${body(204, 24)}</apiKey>`, [body(204, 24)]),
  inText("<add key=\"Password\" value=…> (.NET)", `<add key="Password" value="${body(205, 16)}" />`, [body(205, 16)]),
  inText("PuTTY private key (.ppk)", putty, puttyPrivate),
  inText("PuTTY private key cut off", putty.split("\n").slice(0, 9).join("\n"), puttyPrivate.slice(0, 2)),
];

const positiveSamples: CorpusSample[] = [...catalogue, ...keyedValues, ...tokenAssignments, ...otherAssignments, ...commandLines, ...objectKeys, ...encoded, ...vendors];

/** Look-alikes that must be stored and printed exactly as written. */
const negativeSamples: string[] = [
  fakeChars(40, 300, hexLower),
  `commit ${fakeChars(40, 301, hexLower)}`,
  `fixed in ${fakeChars(7, 302, hexLower)} and ${fakeChars(12, 303, hexLower)}`,
  fakeChars(64, 304, hexLower),
  `sha256:${fakeChars(64, 305, hexLower)}`,
  `sha512-${btoa(fakeChars(48, 306, alnum))}`,
  "0f8fad5b-d9cb-469f-a165-70867728950e",
  "request 7c9e6679-7425-40de-944b-e07fc1f90ae7 finished",
  "eventloom://agent-1/events/12#0123456789ab",
  "see eventloom://default/events/3#a1b2c3d4e5f6 and eventloom://x/events/400#ffffffffffff",
  "The quick brown fox jumps over the lazy dog.",
  "tokens are counted per request; the tokenizer splits words",
  "prompt_tokens=1200 completion_tokens=300 total_tokens=1500",
  "max_tokens: 4096",
  "token_count: 17",
  "the password reset flow sends a link",
  "use a secret manager for credentials",
  "version 1.2.3, 2.0.0-rc.1, v10.4.12+build.5",
  "node v20.11.1 bun 1.1.38 deno 2.1.4",
  "/home/user/.ssh/id_rsa.pub",
  "/var/lib/docker/overlay2/l/ABCDEFGHIJKLMNOPQRSTUVWXYZ/diff",
  "src/eventloom/redact.ts:42:7",
  "C:\\Users\\alice\\AppData\\Local\\Temp\\build.log",
  "https://example.com:8443/path?q=1&page=2#top",
  "ssh://git@github.com/org/repo.git",
  "alice@example.com",
  "2026-05-20T11:55:00Z at 12:34:56",
  "--- PASS: TestRedact (0.00s)",
  "mysql -u root -p shop",
  "mysql -h db -P 3306 -u app -p",
  "docker login registry.example.com",
  "docker run -p 8080:80 nginx",
  "ssh -p 2222 deploy@host",
  "redis-cli -h cache ping",
  "curl -u admin https://example.com",
  "git log --pretty=oneline -p src/",
  "pip install requests==2.31.0",
  "npm install left-pad@1.3.0",
  "the <title>Release notes</title> are ready",
  "Authorization: Bearer",
  "Bearer authentication is described in RFC 6750",
  "Basic authentication is weak",
  "aGVsbG8gd29ybGQsIHRoaXMgaXMgYSB0ZXN0IG9mIGJhc2U2NA==",
  "ACCEPTED by the reviewer",
  "ACME-12345 ticket",
  "the key results for Q3",
  "keyboard layout: us",
  "bypass the cache, pass_rate 0.93",
  "session_id: s-1 auth_method: oauth",
  "MIT License, Copyright (c) 2026",
  "Private-Lines of code: 12",
];

/** Object keys that must stay keys. */
const negativeKeys = [fakeChars(40, 310, hexLower), "0f8fad5b-d9cb-469f-a165-70867728950e", "eventloom://agent-1/events/12#0123456789ab", "src/eventloom/redact.ts", "v1.2.3", "prompt_tokens"];

/** Secrets in envelope fields: every line must be refused, naming its field. */
const envelopeSecrets = { actor: "ops " + ghToken, event_type: "deploy." + npmToken, producer_ref: "ref:" + stripeKey, parent_event_id: slackToken, caused_by: glToken, id: hfToken };

function assertNoTrace(haystack: string, needles: string[], where: string): void {
  for (const needle of needles) {
    assert.ok(needle.length >= 8, `needle too short to be meaningful: ${needle}`);
    assert.ok(!haystack.includes(needle), `${where} contains the secret ${needle}`);
    assert.ok(!haystack.includes(JSON.stringify(needle).slice(1, -1)), `${where} contains the JSON-escaped secret ${needle}`);
  }
}

function allFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? allFiles(full) : [full];
  });
}

describe("secret corpus: no secret is stored or printed, no look-alike is changed", () => {
  let dir = "";
  const slow = { timeout: 120_000 };
  const allNeedles = positiveSamples.flatMap((sample) => sample.needles);
  const zaxy = (args: string[], input?: string) => runZaxy(args, { cwd: dir, input });

  before(() => {
    dir = makeTempDir("secret-corpus");
    const lines = [
      ...positiveSamples.map((sample, index) => ({ event_type: "transcript.turn", actor: "ops", payload: { sample: `secret corpus positive ${index}`, ...sample.payload } })),
      ...negativeSamples.map((text, index) => ({ event_type: "transcript.turn", actor: "ops", payload: { sample: `secret corpus negative ${index}`, content: text } })),
      { event_type: "transcript.turn", actor: "ops", payload: { sample: "secret corpus negative keys", content: "look-alike keys", keys: Object.fromEntries(negativeKeys.map((key) => [key, 1])) } },
    ];
    const run = zaxy(["memory", "ingest", "-", "--json"], lines.map((line) => JSON.stringify(line)).join("\n") + "\n");
    assert.equal(run.code, 0, run.stderr);
    console.error(`secret corpus: ${positiveSamples.length} positive samples, ${negativeSamples.length + negativeKeys.length} negative samples`);
  });

  test("the corpus holds at least 150 positive and 50 negative samples", () => {
    assert.ok(positiveSamples.length >= 150, `${positiveSamples.length} positive samples`);
    assert.ok(negativeSamples.length + negativeKeys.length >= 50, `${negativeSamples.length} negative samples`);
  });

  test("the log bytes on disk hold no secret", () => {
    assertNoTrace(fs.readFileSync(path.join(dir, ".eventloom", "default.jsonl"), "utf8"), allNeedles, "the log");
  });

  test("memory log --json: every positive sample is redacted and restricted, every negative sample is unchanged and public", slow, () => {
    const run = zaxy(["memory", "log", "--limit", "1000", "--json"]);
    assert.equal(run.code, 0, run.stderr);
    const events = JSON.parse(run.stdout).events as Array<{ payload: Record<string, unknown>; security: { sensitivity: string; redacted_paths: string[] } }>;
    const bySample = new Map(events.map((event) => [event.payload.sample as string, event]));
    const leaks: string[] = [];
    positiveSamples.forEach((sample, index) => {
      const event = bySample.get(`secret corpus positive ${index}`);
      assert.ok(event !== undefined, `${sample.name}: event missing`);
      const text = JSON.stringify(event);
      const leaked = sample.needles.filter((needle) => text.includes(needle) || text.includes(JSON.stringify(needle).slice(1, -1)));
      if (leaked.length > 0 || event.security.sensitivity !== "restricted" || !text.includes(R)) leaks.push(`${sample.name}: ${JSON.stringify(event.payload).slice(0, 200)}`);
    });
    assert.deepEqual(leaks, [], `${leaks.length} of ${positiveSamples.length} positive samples not redacted`);
    const changed: string[] = [];
    negativeSamples.forEach((text, index) => {
      const event = bySample.get(`secret corpus negative ${index}`)!;
      if (event.payload.content !== text || event.security.sensitivity !== "public") changed.push(`${text} -> ${JSON.stringify(event.payload.content)} ${JSON.stringify(event.security)}`);
    });
    const keysEvent = bySample.get("secret corpus negative keys")!;
    if (JSON.stringify(Object.keys(keysEvent.payload.keys as object).sort()) !== JSON.stringify([...negativeKeys].sort())) changed.push(`keys -> ${JSON.stringify(keysEvent.payload.keys)}`);
    if (keysEvent.security.sensitivity !== "public") changed.push(`keys event is ${keysEvent.security.sensitivity}`);
    assert.deepEqual(changed, [], `${changed.length} negative samples changed`);
  });

  const outputs: [string, string[]][] = [
    ["memory log (text)", ["memory", "log", "--limit", "1000"]],
    ["replay --json", ["replay", "--json"]],
    ["memory export", ["memory", "export"]],
    ["memory verbatim --json", ["memory", "verbatim", "secret corpus positive", "--limit", "100", "--json"]],
    ["memory checkout --json", ["memory", "checkout", "secret corpus positive", "--limit", "100", "--max-recent-events", "1000", "--json"]],
    ["memory bootstrap --json", ["memory", "bootstrap", "--current-task", "secret corpus positive", "--json"]],
  ];
  for (const [name, args] of outputs) {
    test(`${name} prints no secret`, slow, () => {
      const run = zaxy(args);
      assert.equal(run.code, 0, run.stderr);
      assertNoTrace(run.stdout + run.stderr, allNeedles, name);
      assert.ok(run.stdout.includes(R), `${name} shows redacted events`);
    });
  }

  test("no file under the root holds a secret after every command ran", slow, () => {
    for (const file of allFiles(path.join(dir, ".eventloom"))) assertNoTrace(fs.readFileSync(file, "latin1"), allNeedles, file);
  });

  test("secrets in envelope fields are refused with exit 2 naming each field, without echoing the secret", slow, () => {
    const before = fs.readFileSync(path.join(dir, ".eventloom", "default.jsonl"));
    const base = { event_type: "transcript.turn", actor: "ops", payload: { content: "envelope" } };
    const lines = Object.entries(envelopeSecrets).map(([field, value]) => JSON.stringify({ ...base, [field]: field === "caused_by" ? [value] : value }));
    const run = zaxy(["memory", "ingest", "-"], lines.join("\n") + "\n");
    assert.equal(run.code, 2, run.stderr);
    for (const field of Object.keys(envelopeSecrets)) assert.match(run.stderr, new RegExp(`line ${Object.keys(envelopeSecrets).indexOf(field) + 1}: ${field}`), run.stderr);
    assertNoTrace(run.stdout + run.stderr, Object.values(envelopeSecrets).map((value) => value.replace(/^[a-z]+[ .:]/, "")), "the refusal");
    const append = zaxy(["memory", "append", "transcript.turn", "--actor", "ops", "--session-id", ghToken, "--payload-json", "{}"]);
    assert.equal(append.code, 2, append.stderr);
    assert.match(append.stderr, /session/);
    assertNoTrace(append.stdout + append.stderr, [ghToken], "the refusal");
    assert.deepEqual(fs.readFileSync(path.join(dir, ".eventloom", "default.jsonl")), before);
    assert.deepEqual(fs.readdirSync(path.join(dir, ".eventloom")).filter((name) => name.includes(ghToken.slice(4, 20))), []);
  });
});
