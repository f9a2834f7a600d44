/**
 * Payload redaction before sealing (Python `security.secure_payload`, DESIGN §2.3). Secrets
 * never reach the log: values under secret-looking keys become "[REDACTED]", string values that
 * contain a secret are redacted, and every redacted path is recorded in
 * `security.redacted_paths` (sensitivity "restricted").
 *
 * Two layers, and the first must never change:
 * 1. Python's rules, byte for byte (so an event Python would redact hashes the same): the key
 *    regex with its token-count exemptions, and four value patterns (`sk-`, `pypi-`, `AKIA`,
 *    JWT-like) that replace the WHOLE string value.
 * 2. Additive rules for what Python misses: more secret-looking key names (passwd, pwd,
 *    passphrase, pass, auth, access_key, …), whose values are replaced whole; the formats of
 *    `secretFormats.ts`, which replace only the secret span inside the string; base64 runs that
 *    decode to text holding a secret; and object keys that are secrets themselves.
 *
 * Envelope fields (event type, actor, session id, producer_ref, ids) are never rewritten: they
 * name the event, its file and its citations. `secretFormatIn` lets the append refuse them.
 */
import type { JsonObject, JsonValue } from "../canonical/mod.ts";
import { inputError } from "../errors.ts";
import { closesPrivateKey, opensPrivateKey, type SecretFormat, secretFormats } from "./secretFormats.ts";

export const redactedValue = "[REDACTED]";

export interface SecurityBlock {
  sensitivity: "public" | "restricted";
  redacted_paths: string[];
}

// Python's (?i) folds case the Unicode way (the Kelvin sign matches "k", long s matches "s"):
// the `u` flag makes JS do the same.
const secretKeyPattern = /(api[_-]?key|authorization|bearer|cookie|credential|password|private[_-]?key|secret|token)/iu;

/**
 * Key names Python lets through. Matched on the key in snake case (`dbPasswd` → `db_passwd`)
 * as whole segments, so `passed`, `bypass`, `compass` and `pass_rate` stay readable; `pass`,
 * `pw` and `auth` only as the last segment (`db_pass`, `basic_auth`, not `auth_method`).
 */
const extraSecretKeyPattern =
  /(?:^|[^a-z0-9])(?:(?:passwd|pwd|passphrase|passcode|(?:access|session|signing|encryption|master)[_ .-]?key|private[ .]key)(?:$|[^a-z0-9])|(?:pass|pw|auth)$)/;

/** Metric keys that contain "token" but carry counts, not secrets. */
const tokenMetricKeys = new Set([
  "answer_at_5_per_1k_injected_tokens",
  "answer_at_5_per_1k_returned_tokens",
  "completion_tokens",
  "facts_per_1k_prompt_tokens",
  "mean_injected_tokens",
  "mean_returned_tokens",
  "prompt_tokens",
  "quality_per_1k_injected_tokens",
  "quality_per_1k_returned_tokens",
  "token_efficiency",
  "total_tokens",
]);

// Python's \b on str patterns is Unicode-aware (é and 日 are word characters); JS's \b is
// ASCII-only even with the `u` flag, so \b is spelled out over Unicode word characters.
const word = String.raw`[\p{L}\p{N}_]`;
const b = `(?:(?<=${word})(?!${word})|(?<!${word})(?=${word}))`;
// The JWT-like pattern is not run as a regex: `[A-Za-z0-9_-]{10,}\.` retried from every word
// boundary of a long run such as "a-a-a-…" is quadratic (80 KiB took 2.3 s). `hasJwtLikeToken`
// decides the same in one pass. These three are linear: a failing start fails within its run.
const pythonValuePatterns = [
  String.raw`sk-[A-Za-z0-9_-]{8,}`,
  String.raw`pypi-[A-Za-z0-9_-]{20,}`,
  String.raw`AKIA[0-9A-Z]{16}`,
].map((body) => new RegExp(`${b}${body}${b}`, "u"));
const wordCodePoint = new RegExp(`^${word}$`, "u");

function isJwtPartChar(code: number): boolean {
  return isAsciiWordChar(code) || code === 45;
}

function isAsciiWordChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

/** Whether the code point ending right before `index` is a Unicode word character. */
function isWordBefore(text: string, index: number): boolean {
  if (index <= 0) return false;
  const code = text.charCodeAt(index - 1);
  if (code < 128) return isAsciiWordChar(code);
  const start = code >= 0xdc00 && code <= 0xdfff && index >= 2 && (text.charCodeAt(index - 2) & 0xfc00) === 0xd800 ? index - 2 : index - 1;
  return wordCodePoint.test(String.fromCodePoint(text.codePointAt(start)!));
}

/** Whether the code point starting at `index` is a Unicode word character. */
function isWordAt(text: string, index: number): boolean {
  if (index >= text.length) return false;
  const code = text.charCodeAt(index);
  if (code < 128) return isAsciiWordChar(code);
  return wordCodePoint.test(String.fromCodePoint(text.codePointAt(index)!));
}

function isBoundary(text: string, index: number): boolean {
  return isWordBefore(text, index) !== isWordAt(text, index);
}

/**
 * Python's `\b[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\b`, in one pass. The
 * text splits into runs of [A-Za-z0-9_-]; a match spans three runs joined by single dots: a
 * suffix of the first (from a word boundary, ≥ 10 long), the whole second (≥ 10), and a prefix
 * of the third (≥ 10, ending at a word boundary).
 */
function hasJwtLikeToken(text: string): boolean {
  const minPart = 10;
  // The run before the current one: where it ends, whether a match can start in it, and whether
  // it can be a match's middle (it follows, by one dot, a run where a match can start).
  let previous: { end: number; canStart: boolean; canMiddle: boolean } | undefined;
  let index = 0;
  while (index < text.length) {
    if (!isJwtPartChar(text.charCodeAt(index))) {
      index++;
      continue;
    }
    const start = index;
    while (index < text.length && isJwtPartChar(text.charCodeAt(index))) index++;
    const end = index;
    const joined = previous !== undefined && previous.end === start - 1 && text.charCodeAt(start - 1) === 46;
    if (joined && previous!.canMiddle && end - start >= minPart) {
      for (let at = start + minPart; at <= end; at++) if (isBoundary(text, at)) return true;
    }
    let canStart = false;
    for (let at = start; at <= end - minPart && !canStart; at++) canStart = isBoundary(text, at);
    previous = { end, canStart, canMiddle: joined && previous!.canStart && end - start >= minPart };
  }
  return false;
}

function isPythonSecretValue(value: string): boolean {
  return pythonValuePatterns.some((pattern) => pattern.test(value)) || hasJwtLikeToken(value);
}

function isSecretKey(key: string): boolean {
  if (tokenMetricKeys.has(key.toLowerCase())) return false;
  return secretKeyPattern.test(key) || extraSecretKeyPattern.test(key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase());
}

/**
 * `text` with every secret span of `secretFormats` replaced by "[REDACTED]"; `key` is the
 * payload key it sits under (context for formats that need a nearby word, such as "aws").
 *
 * @example
 * redactSecretSpans("curl -H 'Authorization: Bearer 9f8e7d6c5b4a'") // "curl -H 'Authorization: Bearer [REDACTED]'"
 */
export function redactSecretSpans(text: string, key = ""): string {
  return redactEncodedSecrets(redactFormats(text, key));
}

/** Base64 runs worth decoding: long enough to hold a token, short enough to decode cheaply. */
const encodedRun = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{20,8192}={0,2}(?![A-Za-z0-9+/=_-])/g;
const printableText = /^[\t\n\r\x20-\x7e]*$/;

/**
 * `text` with every base64 (or base64url) run whose decoded text is printable and holds a
 * secret replaced by "[REDACTED]": `echo Z2hwX…== | base64 -d`, a kubeconfig's
 * `client-key-data`. One level deep: what a decoded run holds is not decoded again.
 */
function redactEncodedSecrets(text: string): string {
  encodedRun.lastIndex = 0;
  return text.replace(encodedRun, (run) => {
    const decoded = decodeBase64Text(run);
    if (decoded === undefined) return run;
    return isPythonSecretValue(decoded) || redactFormats(decoded, "") !== decoded ? redactedValue : run;
  });
}

/** The printable ASCII text `run` encodes, or undefined when it is not base64 of such text. */
function decodeBase64Text(run: string): string | undefined {
  const bare = run.replace(/=+$/, "").replace(/-/g, "+").replace(/_/g, "/");
  if (bare.length % 4 === 1) return undefined;
  try {
    const decoded = atob(bare + "=".repeat((4 - (bare.length % 4)) % 4));
    return printableText.test(decoded) ? decoded : undefined;
  } catch {
    return undefined;
  }
}

/** `text` with every secret span of `secretFormats` redacted (no decoding). */
function redactFormats(text: string, key: string): string {
  return redactFormatsWith(secretFormats, text, key);
}

function redactFormatsWith(formats: readonly SecretFormat[], text: string, key: string): string {
  const lowerText = text.toLowerCase();
  const lowerKey = key.toLowerCase();
  let out = text;
  for (const format of formats) {
    // Replacing with "[REDACTED]" never adds a keyword, so the original text decides.
    if (!format.keywords.some((keyword) => lowerText.includes(keyword) || lowerKey.includes(keyword))) continue;
    format.pattern.lastIndex = 0;
    out = out.replace(format.pattern, (...args) => {
      const match = args[0] as string;
      const groups = args[args.length - 1] as { keep?: string; secret: string };
      const index = args[args.length - 3] as number;
      const keep = groups.keep ?? "";
      // An earlier format already redacted it (`password=[REDACTED]`): leave it be.
      if (groups.secret.startsWith(redactedValue)) return match;
      if (format.accepts !== undefined && !format.accepts(groups.secret, args[args.length - 2] as string, index + keep.length, key)) return match;
      return keep + redactedValue;
    });
  }
  return out;
}

function childPath(parent: string, key: string): string {
  return parent === "" ? key : `${parent}.${key}`;
}

/** `key` is the nearest enclosing object key ("" at the root). */
function redactValue(value: JsonValue, at: string, key: string, paths: string[]): JsonValue {
  if (typeof value === "string") {
    if (isPythonSecretValue(value)) {
      paths.push(at === "" ? "$" : at);
      return redactedValue;
    }
    const spansRedacted = redactSecretSpans(value, key);
    if (spansRedacted !== value) paths.push(at === "" ? "$" : at);
    return spansRedacted;
  }
  if (Array.isArray(value)) return redactArray(value, at === "" ? "$" : at, key, paths);
  if (value instanceof Map) return redactObject(value, at, paths);
  return value;
}

/**
 * Items one by one, except that a private key split over an array of lines is redacted from the
 * item that opens it (BEGIN without END) through the item that closes it.
 */
function redactArray(items: JsonValue[], at: string, key: string, paths: string[]): JsonValue[] {
  let insidePrivateKey = false;
  return items.map((item, index) => {
    const itemPath = `${at}[${index}]`;
    if (insidePrivateKey && typeof item === "string") {
      insidePrivateKey = !closesPrivateKey(item);
      paths.push(itemPath);
      return redactedValue;
    }
    if (typeof item === "string" && opensPrivateKey(item)) insidePrivateKey = true;
    return redactValue(item, itemPath, key, paths);
  });
}

/**
 * The name of the secret format `text` holds, or undefined. For envelope fields (actor, event
 * type, session id, producer_ref, ids), which are refused rather than rewritten when they hold a
 * secret: redaction there would change the event's identity. Python's JWT-like rule is not used
 * here (a long dotted event type would match it); a JWT is recognised by its `eyJ` header.
 *
 * @example
 * secretFormatIn("deploy-bot") // undefined
 */
export function secretFormatIn(text: string): string | undefined {
  if (jwtHeaded.test(text)) return "JWT";
  for (const format of secretFormats) if (redactFormatsWith([format], text, "") !== text) return format.name;
  if (redactEncodedSecrets(text) !== text) return "base64 of a secret";
  return undefined;
}

/**
 * Throws `secret_in_session_id` (exit 2) when a session id holds a secret: the id names the
 * log file and every citation, so it is refused rather than rewritten.
 */
export function refuseSecretSessionId(sessionId: string): void {
  const secret = secretFormatIn(sessionId);
  if (secret === undefined) return;
  throw inputError("secret_in_session_id", `Cannot append: the session id holds a secret (${secret}); session ids name the log file and every citation, so they are never redacted`, {
    field: "session_id",
    hint: "Choose a session id without credentials; put secrets in the payload, where they are redacted",
  });
}

const jwtHeaded = /eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]/;

/**
 * A key that is itself a secret (a token used as a map key) is redacted like a value; a key
 * already present gets a suffix (`[REDACTED] (2)`) so that no entry is lost.
 */
function redactKey(key: string, taken: JsonObject): string {
  const redacted = isPythonSecretValue(key) ? redactedValue : redactSecretSpans(key, "");
  if (redacted === key) return key;
  let unique = redacted;
  for (let n = 2; taken.has(unique); n++) unique = `${redacted} (${n})`;
  return unique;
}

function redactObject(object: JsonObject, at: string, paths: string[]): JsonObject {
  const out: JsonObject = new Map();
  for (const [originalKey, value] of object) {
    const key = redactKey(originalKey, out);
    const keyPath = childPath(at, key);
    if (key !== originalKey) paths.push(keyPath);
    if (isSecretKey(key)) {
      paths.push(keyPath);
      out.set(key, redactedValue);
    } else {
      out.set(key, redactValue(value, keyPath, key, paths));
    }
  }
  return out;
}

/**
 * Returns a redacted copy of `payload` and its security block; the input is not changed.
 *
 * @example
 * securePayload(new Map([["api_key", "x"]])).security // {sensitivity: "restricted", redacted_paths: ["api_key"]}
 * securePayload(new Map([["dsn", "postgres://app:pw@db/main"]])).payload.get("dsn") // "postgres://app:[REDACTED]@db/main"
 */
export function securePayload(payload: JsonObject): { payload: JsonObject; security: SecurityBlock } {
  const paths: string[] = [];
  const redacted = redactObject(payload, "", paths);
  // A redacted key whose value is redacted too is listed once.
  const unique = [...new Set(paths)];
  return { payload: redacted, security: { sensitivity: unique.length > 0 ? "restricted" : "public", redacted_paths: unique } };
}

/**
 * The payload paths a sealed event's security block lists as redacted (`EventRecord.security`),
 * [] for none or for a line without the block. Paths only, never the values they held.
 *
 * @example
 * redactedPathsOf(new Map([["sensitivity", "restricted"], ["redacted_paths", ["api_key"]]])) // ["api_key"]
 */
export function redactedPathsOf(security: JsonValue): string[] {
  const paths = security instanceof Map ? security.get("redacted_paths") : undefined;
  return Array.isArray(paths) ? paths.filter((path): path is string => typeof path === "string") : [];
}
