/**
 * Realistic fake secrets, one per format redaction covers (not a test file itself), shared by
 * the library tests and the end-to-end CLI test. Every secret is assembled from pieces at run
 * time so that no complete token sits in the source (push protection and secret scanners would
 * rightly flag one), and bodies come from a fixed-seed generator so runs are reproducible.
 */

/** Deterministic pseudo-random characters from `alphabet` (a fixed LCG; `seed` varies the text). */
export function fakeChars(length: number, seed: number, alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"): string {
  let state = seed >>> 0;
  let out = "";
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    out += alphabet[(state >>> 8) % alphabet.length];
  }
  return out;
}

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const upperDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const hexLower = "0123456789abcdef";
const urlSafe = alnum + "_-";
const base64 = alnum + "+/";

export interface SecretSample {
  /** The format, as in docs/reliability.md. */
  name: string;
  /** A payload string value that is this kind of secret on its own (a header, a URL, a token). */
  value: string;
  /** The same secret inside a longer line of free text. */
  text: string;
  /** Substrings that must never appear in the log or in any output. */
  needles: string[];
  /** Payload key to put `value` under (default "value"); a context word for some formats. */
  key?: string;
  /** A substring of `value` that span redaction keeps (for formats that redact a span). */
  kept?: string;
}

function token(name: string, secret: string, text = `deploy used ${secret} for the release`): SecretSample {
  return { name, value: secret, text, needles: [secret] };
}

const pemBody = [fakeChars(64, 71, base64), fakeChars(64, 72, base64), fakeChars(40, 73, base64) + "=="];

function pem(label: string): SecretSample {
  const block = [`-----BEGIN ${label}-----`, ...pemBody, `-----END ${label}-----`].join("\n");
  return { name: `PEM ${label}`, value: block, text: `wrote ~/.ssh/id_key:\n${block}\nthen chmod 600`, needles: pemBody };
}

function url(scheme: string, user: string, password: string, host: string): SecretSample {
  const value = `${scheme}://${user}:${password}@${host}`;
  return { name: `URL credentials ${scheme}://`, value, text: `connecting to ${value} failed: timeout`, needles: [password], kept: host };
}

const awsSecret = fakeChars(18, 81, alnum) + "/" + fakeChars(10, 82, alnum) + "+" + fakeChars(10, 83, alnum);
const basicCredential = btoa("deploy:" + fakeChars(16, 91));
const opaqueBearer = fakeChars(32, 92, urlSafe.replace("_", ""));
const uuid = [fakeChars(8, 93, hexLower), fakeChars(4, 94, hexLower), fakeChars(4, 95, hexLower), fakeChars(4, 96, hexLower), fakeChars(12, 97, hexLower)].join("-");
const passwordWithSpaces = "correct horse " + fakeChars(8, 98);

export const secretSamples: SecretSample[] = [
  token("GitHub personal access token (ghp_)", "gh" + "p_" + fakeChars(36, 1)),
  token("GitHub OAuth token (gho_)", "gh" + "o_" + fakeChars(36, 2)),
  token("GitHub user-to-server token (ghu_)", "gh" + "u_" + fakeChars(36, 3)),
  token("GitHub server-to-server token (ghs_)", "gh" + "s_" + fakeChars(36, 4)),
  token("GitHub refresh token (ghr_)", "gh" + "r_" + fakeChars(36, 5)),
  token("GitHub fine-grained token (github_pat_)", "github" + "_pat_" + fakeChars(22, 6) + "_" + fakeChars(59, 7)),
  token("GitLab personal access token (glpat-)", "gl" + "pat-" + fakeChars(20, 8, urlSafe)),
  token("Slack bot token (xoxb-)", "xo" + "xb-" + fakeChars(13, 9, "0123456789") + "-" + fakeChars(13, 10, "0123456789") + "-" + fakeChars(24, 11)),
  token("Slack user token (xoxp-)", "xo" + "xp-" + fakeChars(13, 12, "0123456789") + "-" + fakeChars(13, 13, "0123456789") + "-" + fakeChars(32, 14, hexLower)),
  {
    name: "Slack webhook URL",
    value: "https://hooks.slack.com/services/T" + fakeChars(8, 15, upperDigits) + "/B" + fakeChars(8, 16, upperDigits) + "/" + fakeChars(24, 17),
    text: "",
    needles: [fakeChars(24, 17)],
    kept: "hooks.slack.com/services/",
  },
  {
    name: "Discord webhook URL",
    value: "https://discord.com/api/webhooks/" + fakeChars(18, 18, "0123456789") + "/" + fakeChars(68, 19, urlSafe),
    text: "",
    needles: [fakeChars(68, 19, urlSafe)],
    kept: "discord.com/api/webhooks/",
  },
  token("Stripe live secret key (sk_live_)", "sk" + "_live_" + fakeChars(24, 20)),
  token("Stripe test secret key (sk_test_)", "sk" + "_test_" + fakeChars(24, 21)),
  token("Stripe restricted key (rk_live_)", "rk" + "_live_" + fakeChars(24, 22)),
  token("Stripe webhook secret (whsec_)", "wh" + "sec_" + fakeChars(32, 23)),
  token("Google API key (AIza)", "AI" + "za" + fakeChars(35, 24, urlSafe)),
  token("Google OAuth client secret (GOCSPX-)", "GOC" + "SPX-" + fakeChars(28, 25, urlSafe)),
  token("Google OAuth access token (ya29.)", "ya" + "29." + fakeChars(60, 26, urlSafe)),
  token("AWS access key id (AKIA, Python's rule)", "AK" + "IA" + fakeChars(16, 27, upperDigits)),
  token("AWS temporary access key id (ASIA)", "AS" + "IA" + fakeChars(16, 28, upperDigits)),
  { name: "AWS secret access key", value: awsSecret, key: "aws", text: `the AWS secret for prod is ${awsSecret} (rotate monthly)`, needles: [awsSecret] },
  {
    name: "Azure storage connection string (AccountKey=)",
    value: "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + fakeChars(86, 29, base64) + "==;EndpointSuffix=core.windows.net",
    text: "",
    needles: [fakeChars(86, 29, base64)],
    kept: "AccountName=acct",
  },
  {
    name: "Azure SAS signature (sig=)",
    value: "https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&sp=r&sig=" + fakeChars(43, 30, alnum) + "%3D",
    text: "",
    needles: [fakeChars(43, 30, alnum)],
    kept: "acct.blob.core.windows.net",
  },
  token("OpenAI project key (sk-proj-, Python's rule)", "sk" + "-proj-" + fakeChars(48, 31, urlSafe)),
  token("OpenAI key glued to non-ASCII text (sk-)", "sk" + "-" + fakeChars(48, 32), `clé日本sk-${fakeChars(48, 32)}`),
  token("Anthropic API key (sk-ant-, Python's rule)", "sk" + "-ant-api03-" + fakeChars(93, 33, urlSafe) + "AA"),
  token("PyPI token (pypi-, Python's rule)", "py" + "pi-AgEIcHlwaS5vcmc" + fakeChars(50, 34, urlSafe)),
  token("Twilio API key (SK + 32 hex)", "S" + "K" + fakeChars(32, 35, hexLower)),
  token("SendGrid API key (SG.)", "S" + "G." + fakeChars(22, 36, urlSafe) + "." + fakeChars(43, 37, urlSafe)),
  token("npm token (npm_)", "np" + "m_" + fakeChars(36, 38)),
  token("Hugging Face token (hf_)", "h" + "f_" + fakeChars(34, 39)),
  token("DigitalOcean token (dop_v1_)", "do" + "p_v1_" + fakeChars(64, 40, hexLower)),
  token("Shopify access token (shpat_)", "sh" + "pat_" + fakeChars(32, 41, hexLower)),
  token("Mailgun API key (key-)", "ke" + "y-" + fakeChars(32, 42, hexLower)),
  token("Mailchimp API key (-usN)", fakeChars(32, 43, hexLower) + "-us" + "14"),
  token("Heroku API key (HRKU-)", "HR" + "KU-" + fakeChars(60, 44, urlSafe)),
  { name: "Heroku API key (UUID after \"heroku\")", value: uuid, key: "heroku", text: `heroku auth token is ${uuid}`, needles: [uuid] },
  token("Discord bot token", "MT" + fakeChars(24, 45) + "." + fakeChars(6, 46, urlSafe) + "." + fakeChars(38, 47, urlSafe)),
  token("Telegram bot token", fakeChars(10, 48, "123456789") + ":A" + "A" + fakeChars(33, 49, urlSafe)),
  token("Atlassian API token (ATATT3)", "ATA" + "TT3" + fakeChars(180, 50, urlSafe)),
  token("age secret key (AGE-SECRET-KEY-1)", "AGE-" + "SECRET-KEY-1" + fakeChars(58, 51, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")),
  token("Databricks token (dapi)", "da" + "pi" + fakeChars(32, 52, hexLower)),
  token("Doppler token (dp.pt.)", "dp" + ".pt." + fakeChars(43, 53)),
  token("Grafana cloud token (glc_)", "gl" + "c_" + fakeChars(40, 54, base64) + "=="),
  token("Grafana service account token (glsa_)", "gl" + "sa_" + fakeChars(32, 55) + "_" + fakeChars(8, 56, hexLower)),
  token("HashiCorp Vault token (hvs.)", "hv" + "s." + fakeChars(90, 57, urlSafe)),
  token("Terraform Cloud token (.atlasv1.)", fakeChars(14, 58) + ".atlas" + "v1." + fakeChars(67, 59, urlSafe)),
  token("Linear API key (lin_api_)", "lin" + "_api_" + fakeChars(40, 60)),
  token("Notion token (ntn_)", "nt" + "n_" + fakeChars(46, 61)),
  token("Figma token (figd_)", "fi" + "gd_" + fakeChars(40, 62, urlSafe)),
  token("Supabase token (sbp_)", "sb" + "p_" + fakeChars(40, 63, hexLower)),
  token("Docker Hub token (dckr_pat_)", "dckr" + "_pat_" + fakeChars(27, 64, urlSafe)),
  token("Postman API key (PMAK-)", "PM" + "AK-" + fakeChars(24, 65, hexLower) + "-" + fakeChars(34, 66, hexLower)),
  token("Pulumi token (pul-)", "pu" + "l-" + fakeChars(40, 67, hexLower)),
  token("New Relic user key (NRAK-)", "NR" + "AK-" + fakeChars(27, 68, upperDigits)),
  token("Tailscale key (tskey-)", "tskey" + "-auth-" + fakeChars(40, 69, alnum + "-")),
  token("Sentry token (sntrys_)", "sntr" + "ys_" + fakeChars(80, 70, base64)),
  token("Square access token (sq0atp-)", "sq0" + "atp-" + fakeChars(22, 74, urlSafe)),
  token("Groq API key (gsk_)", "gs" + "k_" + fakeChars(52, 75)),
  token("Replicate token (r8_)", "r" + "8_" + fakeChars(37, 76)),
  token("Perplexity key (pplx-)", "pp" + "lx-" + fakeChars(48, 77)),
  token("xAI key (xai-)", "xa" + "i-" + fakeChars(80, 78)),
  token("JWT (Python's rule)", "eyJ" + fakeChars(33, 79, urlSafe) + ".eyJ" + fakeChars(60, 80, urlSafe) + "." + fakeChars(43, 84, urlSafe)),
  pem("RSA PRIVATE KEY"),
  pem("OPENSSH PRIVATE KEY"),
  pem("EC PRIVATE KEY"),
  pem("DSA PRIVATE KEY"),
  pem("PRIVATE KEY"),
  pem("ENCRYPTED PRIVATE KEY"),
  pem("PGP PRIVATE KEY BLOCK"),
  {
    name: "PEM private key cut off before its END line",
    value: `-----BEGIN RSA PRIVATE KEY-----\n${pemBody[0]}\n${pemBody[1]}`,
    text: `log tail: -----BEGIN RSA PRIVATE KEY-----\n${pemBody[0]}\n${pemBody[1]}`,
    needles: [pemBody[0], pemBody[1]],
  },
  url("postgres", "app", "Pg" + fakeChars(14, 85), "db.internal:5432/main"),
  url("postgresql", "app", "p@ss" + fakeChars(10, 86), "db.internal/main"),
  url("mysql", "root", fakeChars(16, 87), "10.0.0.5:3306/shop"),
  url("mongodb+srv", "svc", fakeChars(16, 88), "cluster0.mongodb.net/app"),
  url("amqp", "guest", fakeChars(12, 89), "rabbit:5672/vhost"),
  url("https", "deploy", fakeChars(12, 90), "registry.example.com/v2/"),
  { ...url("redis", "", "Rd" + fakeChars(14, 99), "cache:6379/0"), name: "URL credentials redis://:password@" },
  {
    name: "Authorization: Bearer <opaque token> header",
    value: `Authorization: Bearer ${opaqueBearer}`,
    text: `curl -s -H 'Authorization: Bearer ${opaqueBearer}' https://api.example.com/v1/items`,
    needles: [opaqueBearer],
    kept: "Authorization: Bearer ",
  },
  {
    name: "Authorization: token <opaque> header",
    value: `authorization: token ${fakeChars(40, 100, hexLower)}`,
    text: `sent "Authorization": "token ${fakeChars(40, 100, hexLower)}" upstream`,
    needles: [fakeChars(40, 100, hexLower)],
  },
  {
    name: "Authorization: <opaque token> header without a scheme",
    value: `Authorization: ${fakeChars(40, 111, urlSafe)}`,
    text: `headers {Authorization=${fakeChars(40, 111, urlSafe)}, Accept=*/*}`,
    needles: [fakeChars(40, 111, urlSafe)],
  },
  { name: "Opaque Bearer token in free text", value: `Bearer ${opaqueBearer}`, text: `retrying with bearer ${opaqueBearer} after 401`, needles: [opaqueBearer] },
  {
    name: "Basic credentials (Authorization: Basic base64(user:password))",
    value: `Authorization: Basic ${basicCredential}`,
    text: `proxy said 407; used Basic ${basicCredential} next`,
    needles: [basicCredential],
  },
  ...(
    [
      ["password=", "password=" + "Pw" + fakeChars(12, 101)],
      ["passwd:", "passwd: " + "Pw" + fakeChars(12, 102)],
      ["pwd=", "mysql -u root --pwd=" + "Pw" + fakeChars(12, 103)],
      ["passphrase=", "passphrase=" + "Pp" + fakeChars(12, 104)],
      ["secret=", "secret=" + "Sc" + fakeChars(12, 105)],
      ["api_key=", "api_key=" + "Ak" + fakeChars(20, 106)],
      ["client_secret:", "client_secret: " + "Cs" + fakeChars(20, 107)],
      ["access_token=", "access_token=" + "At" + fakeChars(20, 108)],
      ["DB_PASSWORD=", "DB_PASSWORD=" + "Db" + fakeChars(12, 109)],
      ["aws_secret_access_key =", "aws_secret_access_key = " + fakeChars(40, 110, alnum)],
    ] as const
  ).map(([label, line]) => {
    const secret = line.slice(line.search(/[=:] ?[A-Za-z0-9]+$/) + 1).trim();
    return { name: `Assignment in free text (${label})`, value: line, text: `config dump: ${line} (loaded)`, needles: [secret] };
  }),
  {
    name: "Quoted assignment with spaces in free text (\"password\": \"…\")",
    value: `{"user": "app", "password": "${passwordWithSpaces}"}`,
    text: `request body was {"user": "app", "password": "${passwordWithSpaces}"} and failed`,
    needles: [passwordWithSpaces, passwordWithSpaces.split(" ")[2]],
    kept: `"user": "app"`,
  },
  {
    name: "Quoted assignment with an escaped quote in free text",
    value: `{"password": "ab\\"${fakeChars(12, 112)} tail"}`,
    text: `log: {"password": "ab\\"${fakeChars(12, 112)} tail", "ok": true}`,
    needles: [fakeChars(12, 112)],
  },
  {
    name: "Assignment with a quote left open at the end of the text",
    value: `password="${fakeChars(6, 113)} ${fakeChars(10, 114)}`,
    text: `the line was cut: password='${fakeChars(6, 113)} ${fakeChars(10, 114)}`,
    needles: [fakeChars(10, 114)],
  },
].map((sample) => ({ ...sample, text: sample.text === "" ? `posting to ${sample.value} now` : sample.text }));

/** Keys whose values are redacted whole (Python's key regex misses them), with a fake value. */
export const secretKeySamples: Record<string, string> = {
  passwd: "Pw" + fakeChars(12, 201),
  pwd: "Pw" + fakeChars(12, 202),
  passphrase: "Pp" + fakeChars(12, 203),
  passcode: fakeChars(8, 204, "0123456789"),
  pass: "Pa" + fakeChars(12, 205),
  db_pass: "Pa" + fakeChars(12, 206),
  smtpPass: "Pa" + fakeChars(12, 207),
  dbPasswd: "Pw" + fakeChars(12, 208),
  PWD: "Pw" + fakeChars(12, 209),
  pw: "Pw" + fakeChars(12, 210),
  basic_auth: "user:" + fakeChars(12, 211),
  "x-auth": fakeChars(20, 212),
  access_key: fakeChars(20, 213),
  aws_access_key_id: "AS" + "IA" + fakeChars(16, 214, upperDigits),
  accessKey: fakeChars(20, 215),
  session_key: fakeChars(20, 216),
  signing_key: fakeChars(20, 217),
  encryption_key: fakeChars(32, 218, hexLower),
  master_key: fakeChars(20, 219),
  "private key": fakeChars(20, 220),
};
