/**
 * Secret formats redacted inside string values, beyond Python's four whole-value patterns
 * (DESIGN §2.3; the catalogue follows gitleaks' default rules and GitHub secret scanning's
 * supported patterns). Each format replaces only the secret span with "[REDACTED]", so a log
 * line or URL keeps its useful part: `postgres://app:[REDACTED]@db:5432/main`.
 *
 * Every pattern must stay linear on hostile input, because redaction runs on every append of
 * up to 1 MiB: each one starts with a literal or a bounded run, and anything unbounded is a
 * single greedy class that nothing after it can make backtrack (no trailing `\b`).
 *
 * Pattern shape: the named group `secret` is replaced; the optional group `keep` before it
 * stays; the match never extends past `secret` (trailing context is a lookahead).
 */

export interface SecretFormat {
  /** What the format is, as listed in docs/reliability.md. */
  name: string;
  /**
   * Lowercase substrings of which one must occur in the lowercased text or key for the pattern
   * to run (as gitleaks' keywords): most strings then skip most patterns.
   */
  keywords: readonly string[];
  /** Global regex with group `secret` (and optionally `keep` right before it). */
  pattern: RegExp;
  /**
   * Extra check on a found secret to keep prose and hashes out (shape, decoding, nearby words).
   * `key` is the payload key the string sits under: it counts as text right before the value.
   */
  accepts?: (secret: string, text: string, index: number, key: string) => boolean;
}

// Character tests for the shape checks below.
const hasDigit = /[0-9]/;
const hasLetter = /[A-Za-z]/;
const hasUpper = /[A-Z]/;
const hasLower = /[a-z]/;
const onlyHex = /^[0-9a-fA-F]+$/;

/** How far before a candidate the context words of a context-only format may appear. */
const contextChars = 80;

function nearbyBefore(text: string, index: number, key: string, words: RegExp): boolean {
  return words.test(text.slice(Math.max(0, index - contextChars), index)) || (index < contextChars && words.test(key));
}

/** An opaque bearer token, not an English word: prose says "Bearer authentication". */
function looksLikeToken(secret: string): boolean {
  return (hasDigit.test(secret) && hasLetter.test(secret)) || secret.length >= 24;
}

/** `Basic` credentials are base64 of `user:password`; "Basic authentication" is not. */
function isBasicCredential(secret: string): boolean {
  if (secret.length % 4 !== 0) return false;
  try {
    return atob(secret).includes(":");
  } catch {
    return false;
  }
}

/** AWS secret access keys: 40 base64 characters, mixed case, near "aws" or "secret". */
function isAwsSecretKey(secret: string, text: string, index: number, key: string): boolean {
  if (onlyHex.test(secret)) return false; // git SHA-1 and other hex digests
  const mixed = hasUpper.test(secret) && hasLower.test(secret) && (hasDigit.test(secret) || /[/+]/.test(secret));
  return mixed && nearbyBefore(text, index, key, /aws|amazon|secret/i);
}

/** Key names whose `=`/`:` assignment in free text is followed by a secret. */
const assignedSecretKeys = [
  String.raw`pass(?:word|wd|phrase|code)`,
  // Not a bare "pass": Go prints "--- PASS: TestName".
  String.raw`(?<![A-Za-z])pwd`,
  String.raw`secret[_-]?key[_-]?base`,
  String.raw`secret(?:[_-]?(?:access[_-]?)?key)?`,
  String.raw`client[_-]key[_-]data`,
  String.raw`rediscli[_-]auth`,
  // Docker's config.json: {"auths": {"<registry>": {"auth": "<base64 of user:password>"}}}.
  String.raw`(?<=["'])auth(?=["'])`,
  String.raw`api[_-]?key`,
  String.raw`access[_-]?key`,
  String.raw`private[_-]?key`,
  String.raw`(?:access|auth|refresh|id|api|bearer|session|csrf|oauth|bot)[_-]?token`,
  String.raw`token[_-]?secret`,
].join("|");

/**
 * Any name ending in "token" (`GITHUB_TOKEN`, `npm_token`, `identitytoken`, `_authToken`,
 * `token`): a separate format because counts share the suffix (`max_token: 4096`), so the value
 * must look like a credential. `prompt_tokens` and `token_count` never match (text follows).
 */
const assignedTokenKey = String.raw`(?<![A-Za-z0-9])[A-Za-z0-9_.-]{0,64}token`;

/** A token value: not a number, a boolean or a placeholder word of a config template. */
function looksLikeAssignedToken(secret: string): boolean {
  const bare = secret.replace(/^["']|["']$/g, "");
  return bare.length >= 6 && !/^[0-9.]+$/.test(bare) && !/^(?:true|false|null|none|undefined|required|optional)$/i.test(bare);
}

/** Long command-line options that take a secret as the next argument (`--password PASS`). */
const secretOptions = String.raw`pass(?:word)?|passwd|passphrase|token|auth-token|access-token|api-key|apikey|secret|client-secret|secret-key|access-key|secret-access-key`;

/** A command-line argument: quoted, or unquoted up to whitespace; never the next option. */
const argumentValue = String.raw`"[^"\r\n]*"|'[^'\r\n]*'|[^\s"'-][^\s"']*`;

/** Up to this many characters of a command line between the program and the flag. */
const commandSpan = String.raw`[^\n|;&]{0,200}?`;

/**
 * Value of a free-text assignment: a quoted string (backslash escapes inside), a quote left
 * open up to the end of the line, or else everything up to whitespace, a quote or `&`.
 */
const assignedValue = String.raw`"(?:[^"\\\r\n]|\\.)*"|'(?:[^'\\\r\n]|\\.)*'|["'][^\r\n]*|[^\s"'&]+`;

const pemBegin = String.raw`-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----`;
const pemEnd = String.raw`-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----`;
const pemBeginPattern = new RegExp(pemBegin, "g");
const pemEndPattern = new RegExp(pemEnd);

/**
 * Whether `text` opens a private key block it does not close: the key goes on in the next
 * strings of an array of lines (`["-----BEGIN RSA PRIVATE KEY-----", "MIIE…", …]`).
 */
export function opensPrivateKey(text: string): boolean {
  let lastBeginEnd = -1;
  pemBeginPattern.lastIndex = 0;
  for (let found = pemBeginPattern.exec(text); found !== null; found = pemBeginPattern.exec(text)) lastBeginEnd = pemBeginPattern.lastIndex;
  return lastBeginEnd >= 0 && !pemEndPattern.test(text.slice(lastBeginEnd));
}

/** Whether `text` closes a private key block (an END line). */
export function closesPrivateKey(text: string): boolean {
  return pemEndPattern.test(text);
}

const g = "g";
const gi = "gi";

export const secretFormats: readonly SecretFormat[] = [
  {
    name: "PEM private key block (RSA, EC, DSA, OPENSSH, ENCRYPTED, PKCS#8, PGP PRIVATE KEY BLOCK)", keywords: ["private key"],
    // Up to the matching END line, or to the end of the text when the block is cut off.
    pattern: new RegExp(String.raw`(?<secret>${pemBegin}(?:[\s\S]*?${pemEnd}|[\s\S]*))`, g),
  },
  {
    name: "Credentials in URLs (scheme://user:password@host, scheme://:password@host)", keywords: ["://"],
    // The password runs to the last `@` of the authority, so an unescaped `@` in it is covered.
    pattern: new RegExp(String.raw`(?<keep>(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,31}://[^\s:/?#@]*:)(?<secret>[^\s/?#]+)(?=@)`, g),
  },
  { name: "GitHub tokens (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_)", keywords: ["gh", "github_pat_"], pattern: new RegExp(String.raw`(?<secret>gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})`, g) },
  { name: "GitLab tokens (glpat-, gldt-, glrt-, glptt-, glsoat-, glcbt-, glffct-, glimt-, gloas-, glagent-)", keywords: ["gl"], pattern: new RegExp(String.raw`(?<secret>gl(?:pat|dt|rt|ptt|soat|cbt|ffct|imt|oas|agent)-[A-Za-z0-9_-]{20,})`, g) },
  { name: "Slack tokens (xoxb-, xoxp-, xoxa-, xoxr-, xoxs-, xoxo-, xoxe-, xapp-)", keywords: ["xox", "xapp-"], pattern: new RegExp(String.raw`(?<secret>xox[abposre]-[A-Za-z0-9-]{10,}|xapp-[0-9]-[A-Za-z0-9-]{10,})`, g) },
  { name: "Slack webhook URLs (hooks.slack.com/services|workflows|triggers/…)", keywords: ["hooks.slack.com/"], pattern: new RegExp(String.raw`(?<keep>hooks\.slack\.com/(?:services|workflows|triggers)/)(?<secret>[A-Za-z0-9+/_-]{20,})`, g) },
  { name: "Discord webhook URLs (discord.com/api/webhooks/<id>/<token>)", keywords: ["/api/webhooks/"], pattern: new RegExp(String.raw`(?<keep>discord(?:app)?\.com/api/webhooks/[0-9]{5,30}/)(?<secret>[A-Za-z0-9_-]{20,})`, g) },
  { name: "Stripe secret and restricted keys (sk_live_, sk_test_, rk_live_, rk_test_), webhook secrets (whsec_)", keywords: ["k_live_", "k_test_", "k_prod_", "whsec_"], pattern: new RegExp(String.raw`(?<secret>[sr]k_(?:live|test|prod)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9+/=]{24,})`, g) },
  { name: "Google API keys (AIza…)", keywords: ["aiza"], pattern: new RegExp(String.raw`(?<secret>AIza[A-Za-z0-9_-]{35})`, g) },
  { name: "Google OAuth client secrets (GOCSPX-) and access tokens (ya29.)", keywords: ["gocspx-", "ya29."], pattern: new RegExp(String.raw`(?<secret>GOCSPX-[A-Za-z0-9_-]{20,}|ya29\.[A-Za-z0-9_-]{20,})`, g) },
  { name: "AWS access key ids (AKIA, ASIA, ABIA, ACCA, A3T…)", keywords: ["a3t", "akia", "asia", "abia", "acca"], pattern: new RegExp(String.raw`(?<![A-Z0-9])(?<secret>(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16})`, g) },
  {
    name: "AWS secret access keys in free text (40 base64 characters after \"aws\" or \"secret\")", keywords: ["aws", "amazon", "secret"],
    pattern: new RegExp(String.raw`(?<![A-Za-z0-9/+=])(?<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])`, g),
    accepts: isAwsSecretKey,
  },
  { name: "Azure storage and service bus keys (AccountKey=, SharedAccessKey=) and SAS signatures (sig=)", keywords: ["accountkey=", "sharedaccesskey=", "sig="], pattern: new RegExp(String.raw`(?<keep>(?:AccountKey|SharedAccessKey)=|[?&]sig=)(?<secret>[A-Za-z0-9%+/=]{20,})`, g) },
  { name: "OpenAI and Anthropic keys (sk-, sk-proj-, sk-ant-) next to non-ASCII text", keywords: ["sk-"], pattern: new RegExp(String.raw`(?<![A-Za-z0-9])(?<secret>sk-[A-Za-z0-9_-]{20,})`, g) },
  { name: "PyPI tokens (pypi-) next to non-ASCII text", keywords: ["pypi-"], pattern: new RegExp(String.raw`(?<![A-Za-z0-9])(?<secret>pypi-[A-Za-z0-9_-]{20,})`, g) },
  { name: "Twilio API keys (SK + 32 hex)", keywords: ["sk"], pattern: new RegExp(String.raw`(?<![A-Za-z0-9])(?<secret>SK[0-9a-fA-F]{32})`, g) },
  { name: "SendGrid API keys (SG.….…)", keywords: ["sg."], pattern: new RegExp(String.raw`(?<secret>SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})`, g) },
  { name: "npm tokens (npm_)", keywords: ["npm_"], pattern: new RegExp(String.raw`(?<secret>npm_[A-Za-z0-9]{36})`, g) },
  { name: "Hugging Face tokens (hf_, api_org_)", keywords: ["hf_", "api_org_"], pattern: new RegExp(String.raw`(?<secret>(?:hf|api_org)_[A-Za-z0-9]{30,})`, g) },
  { name: "DigitalOcean tokens (dop_v1_, doo_v1_, dor_v1_)", keywords: ["_v1_"], pattern: new RegExp(String.raw`(?<secret>do[opr]_v1_[a-f0-9]{64})`, g) },
  { name: "Shopify tokens (shpat_, shpca_, shppa_, shpss_)", keywords: ["shp"], pattern: new RegExp(String.raw`(?<secret>shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32})`, g) },
  { name: "Mailgun API keys (key-…)", keywords: ["key-"], pattern: new RegExp(String.raw`(?<![A-Za-z0-9])(?<secret>key-[0-9a-zA-Z]{32})`, g) },
  { name: "Mailchimp API keys (32 hex + -usN)", keywords: ["-us"], pattern: new RegExp(String.raw`(?<![0-9a-f])(?<secret>[0-9a-f]{32}-us[0-9]{1,2})`, g) },
  { name: "Heroku API keys (HRKU-)", keywords: ["hrku-"], pattern: new RegExp(String.raw`(?<secret>HRKU-[A-Za-z0-9_-]{20,})`, g) },
  {
    name: "Heroku API keys (UUID after \"heroku\")", keywords: ["heroku"],
    pattern: new RegExp(String.raw`(?<![0-9a-fA-F])(?<secret>[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})`, g),
    accepts: (_secret, text, index, key) => nearbyBefore(text, index, key, /heroku/i),
  },
  { name: "Discord bot tokens", keywords: ["."], pattern: new RegExp(String.raw`(?<![A-Za-z0-9_-])(?<secret>[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,})`, g) },
  { name: "Telegram bot tokens (<bot id>:A…)", keywords: [":a"], pattern: new RegExp(String.raw`(?<![0-9])(?<secret>[0-9]{5,16}:A[A-Za-z0-9_-]{34})`, g) },
  { name: "Atlassian API tokens (ATATT3)", keywords: ["atatt3"], pattern: new RegExp(String.raw`(?<secret>ATATT3[A-Za-z0-9_=-]{100,})`, g) },
  { name: "age secret keys (AGE-SECRET-KEY-1)", keywords: ["age-secret-key-1"], pattern: new RegExp(String.raw`(?<secret>AGE-SECRET-KEY-1[0-9A-Z]{58})`, g) },
  { name: "Databricks tokens (dapi)", keywords: ["dapi"], pattern: new RegExp(String.raw`(?<![A-Za-z0-9])(?<secret>dapi[a-f0-9]{32}(?:-[0-9])?)`, g) },
  { name: "Doppler tokens (dp.pt., dp.st., dp.sa., dp.ct.)", keywords: ["dp."], pattern: new RegExp(String.raw`(?<secret>dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,})`, g) },
  { name: "Grafana tokens (glc_, glsa_)", keywords: ["glc_", "glsa_"], pattern: new RegExp(String.raw`(?<secret>glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})`, g) },
  { name: "HashiCorp Vault tokens (hvs., hvb.) and Terraform Cloud tokens (.atlasv1.)", keywords: ["hvs.", "hvb.", ".atlasv1."], pattern: new RegExp(String.raw`(?<secret>hv[sb]\.[A-Za-z0-9_-]{24,}|[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,})`, g) },
  { name: "Linear (lin_api_), Notion (ntn_), Figma (figd_), Supabase (sbp_) and Docker Hub (dckr_pat_) tokens", keywords: ["lin_api_", "ntn_", "figd_", "sbp_", "dckr_pat_"], pattern: new RegExp(String.raw`(?<secret>lin_api_[A-Za-z0-9]{40}|ntn_[A-Za-z0-9]{40,}|figd_[A-Za-z0-9_-]{40,}|sbp_[a-f0-9]{40}|dckr_pat_[A-Za-z0-9_-]{27,})`, g) },
  { name: "Postman (PMAK-), Pulumi (pul-), New Relic (NRAK-) and Tailscale (tskey-) keys", keywords: ["pmak-", "pul-", "nrak-", "tskey-"], pattern: new RegExp(String.raw`(?<secret>PMAK-[a-f0-9]{24}-[a-f0-9]{34}|pul-[a-f0-9]{40}|NRAK-[A-Z0-9]{27}|tskey-(?:api|auth|client|webhook)-[A-Za-z0-9-]{20,})`, g) },
  { name: "Sentry tokens (sntrys_, sntryu_)", keywords: ["sntry"], pattern: new RegExp(String.raw`(?<secret>sntry[su]_[A-Za-z0-9+/=_]{40,})`, g) },
  { name: "Square tokens (sq0atp-, sq0csp-, EAAA…)", keywords: ["sq0", "eaaa"], pattern: new RegExp(String.raw`(?<secret>sq0(?:atp|csp)-[A-Za-z0-9_-]{22,}|EAAA[A-Za-z0-9_+=-]{60,})`, g) },
  { name: "Groq (gsk_), Replicate (r8_), Perplexity (pplx-) and xAI (xai-) API keys", keywords: ["gsk_", "r8_", "pplx-", "xai-"], pattern: new RegExp(String.raw`(?<secret>gsk_[A-Za-z0-9]{48,}|r8_[A-Za-z0-9]{37,}|pplx-[A-Za-z0-9]{40,}|xai-[A-Za-z0-9]{70,})`, g) },
  {
    name: "Authorization header values in free text (Authorization: Bearer|Basic|Token|Bot|Digest <credential>)", keywords: ["authorization"],
    pattern: new RegExp(
      String.raw`(?<keep>\b(?:proxy-)?authorization["']?[ \t]*[:=][ \t]*["']?(?:bearer|basic|token|bot|digest|apikey|sso-key)[ \t]+)(?<secret>[^\s"',;]+)`,
      gi,
    ),
  },
  {
    // Without a scheme word the value must look like a credential: "Authorization: required".
    name: "Authorization header values without a scheme (Authorization: <opaque token>)", keywords: ["authorization"],
    pattern: new RegExp(String.raw`(?<keep>\b(?:proxy-)?authorization["']?[ \t]*[:=][ \t]*["']?)(?<secret>[^\s"',;]+)`, gi),
    accepts: looksLikeToken,
  },
  { name: "Opaque Bearer tokens in free text (Bearer <token>)", keywords: ["bearer"], pattern: new RegExp(String.raw`(?<keep>\bbearer[ \t]+)(?<secret>[A-Za-z0-9._~+/=-]{8,})`, gi), accepts: looksLikeToken },
  { name: "Basic credentials in free text (Basic <base64 of user:password>)", keywords: ["basic"], pattern: new RegExp(String.raw`(?<keep>\bbasic[ \t]+)(?<secret>[A-Za-z0-9+/]{4,}={0,2})`, gi), accepts: isBasicCredential },
  {
    name: "Token assignments in free text (GITHUB_TOKEN=, GH_TOKEN=, NPM_TOKEN=, HF_TOKEN=, TOKEN=, any *_TOKEN= or *_token:, identitytoken, _authToken=)", keywords: ["token"],
    pattern: new RegExp(String.raw`(?<keep>${assignedTokenKey}["']?[ \t]*(?:=>|:=|=|:)[ \t]*)(?<secret>${assignedValue})`, gi),
    accepts: looksLikeAssignedToken,
  },
  {
    name: "Secret command-line options (--password PASS, --pass, --token, --api-key, --secret, …)", keywords: ["--"],
    pattern: new RegExp(String.raw`(?<keep>(?<![A-Za-z0-9-])--(?:${secretOptions})[ \t]+)(?<secret>${argumentValue})`, gi),
  },
  {
    name: "MySQL and MariaDB passwords on the command line (mysql -pPASS, mysqldump -pPASS)", keywords: ["mysql", "mariadb"],
    pattern: new RegExp(String.raw`(?<keep>\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlshow|mariadb|mariadb-dump)\b${commandSpan}[ \t]-p)(?<secret>${argumentValue})`, g),
  },
  {
    name: "Registry logins on the command line (docker|podman|buildah|skopeo|nerdctl|helm|oras login -p PASS)", keywords: ["login"],
    pattern: new RegExp(String.raw`(?<keep>\b(?:docker|podman|buildah|skopeo|nerdctl|helm|oras)\b${commandSpan}\blogin\b${commandSpan}[ \t]-p[ \t]*)(?<secret>${argumentValue})`, g),
  },
  { name: "sshpass passwords (sshpass -p PASS)", keywords: ["sshpass"], pattern: new RegExp(String.raw`(?<keep>\bsshpass\b${commandSpan}[ \t]-p[ \t]*)(?<secret>${argumentValue})`, g) },
  { name: "redis-cli passwords (redis-cli -a PASS)", keywords: ["redis-cli"], pattern: new RegExp(String.raw`(?<keep>\bredis-cli\b${commandSpan}[ \t]-a[ \t]+)(?<secret>${argumentValue})`, g) },
  {
    name: "htpasswd batch passwords (htpasswd -b FILE USER PASS)", keywords: ["htpasswd"],
    pattern: new RegExp(String.raw`(?<keep>\bhtpasswd(?:[ \t]+-[A-Za-z]+)+(?:[ \t]+[^\s-]\S*){2}[ \t]+)(?<secret>[^\s]+)`, g),
  },
  {
    name: "user:password options (curl -u user:PASS, --user, --proxy-user)", keywords: ["-u", "--user", "--proxy-user"],
    pattern: new RegExp(String.raw`(?<keep>(?<!\S)(?:-u|--user|--proxy-user)(?:[ \t]+|=)["']?[^\s:"']{1,128}:)(?<secret>[^\s"']+)`, g),
  },
  { name: ".netrc passwords (machine HOST login USER password PASS)", keywords: ["password"], pattern: new RegExp(String.raw`(?<keep>\blogin[ \t]+\S+[ \t]+password[ \t]+)(?<secret>\S+)`, g) },
  {
    name: "XML elements holding secrets (<password>, <secret>, <token>, <apiKey>, <privateKey>, <credentials>)", keywords: ["pass", "secret", "token", "key", "credential"],
    pattern: new RegExp(
      String.raw`(?<keep><(?<tag>[A-Za-z0-9_.:-]{0,32}(?:password|passwd|secret|token|api[_-]?key|private[_-]?key|credentials?)[A-Za-z0-9_.:-]{0,32})(?:[ \t][^<>]{0,256})?>)(?<secret>[^<]+)(?=</\k<tag>>)`,
      gi,
    ),
  },
  {
    name: ".NET appSettings secrets (<add key=\"Password\" value=\"…\">)", keywords: ["<add"],
    pattern: new RegExp(String.raw`(?<keep><add[ \t]+key="[^"]{0,64}(?:password|pwd|secret|token|apikey|api_key|connectionstring)[^"]{0,64}"[ \t]+value=")(?<secret>[^"]+)`, gi),
  },
  {
    name: "Twilio account SIDs (AC + 32 hex)", keywords: ["ac"],
    pattern: new RegExp(String.raw`(?<![A-Za-z0-9])(?<secret>AC[0-9a-f]{32})(?![A-Za-z0-9])`, g),
  },
  {
    name: "Twilio auth tokens (32 hex after \"twilio\" or \"auth token\")", keywords: ["twilio", "auth"],
    pattern: new RegExp(String.raw`(?<![A-Za-z0-9])(?<secret>[0-9a-f]{32})(?![A-Za-z0-9])`, g),
    accepts: (_secret, text, index, key) => nearbyBefore(text, index, key, /twilio|auth[ _-]?token/i),
  },
  {
    name: "PuTTY private keys (PuTTY-User-Key-File-… through Private-MAC)", keywords: ["putty-user-key-file-"],
    // Up to the MAC line, or to the end of the text when the file is cut off (as PEM blocks).
    pattern: new RegExp(String.raw`(?<secret>PuTTY-User-Key-File-[0-9]+:(?:[\s\S]*?Private-MAC:[ \t]*[0-9a-fA-F]*|[\s\S]*))`, g),
  },
  {
    name: "Password-like assignments in free text (password=, passwd:, pwd=, passphrase=, passcode=, secret=, client_secret=, api_key=, access_key=, private_key=, access_token=, …)", keywords: ["pass", "pwd", "secret", "key", "token", "auth"],
    pattern: new RegExp(String.raw`(?<keep>(?:${assignedSecretKeys})["']?[ \t]*(?:=>|:=|=|:)[ \t]*)(?<secret>${assignedValue})`, gi),
  },
];
