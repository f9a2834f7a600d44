/**
 * The few PostgreSQL v3 protocol pieces the line reader (lineReader.ts) speaks: frontend
 * messages (startup, password, SASL, Parse/Bind/Execute/Sync), the ErrorResponse decoder and
 * SCRAM-SHA-256 (RFC 5802/7677, without channel binding, as PostgreSQL and libpq do it).
 * Errors carry a SQLSTATE or a socket-style code in `code`, as the general client's do.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes } from "node:crypto";

/** An error as the general client reports it: `code` is a SQLSTATE or a socket error code. */
export function wireError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

/** The startup message: protocol 3.0, then name/value pairs. */
export function startupMessage(params: Record<string, string>): Buffer {
  const body = Buffer.from(`${Object.entries(params).flat().join("\0")}\0\0`, "utf8");
  const out = Buffer.alloc(8 + body.length);
  out.writeInt32BE(out.length, 0);
  out.writeInt32BE(196608, 4);
  body.copy(out, 8);
  return out;
}

/** SSLRequest: asks the server whether it speaks TLS (it answers one byte, S or N). */
export function sslRequestMessage(): Buffer {
  return int32Pair(8, 80877103);
}

export function terminateMessage(): Buffer {
  return Buffer.from([0x58, 0, 0, 0, 4]);
}

/** A PasswordMessage with the cleartext password, or its MD5 form for `salt` (4 bytes). */
export function passwordMessage(password: string, md5: { user: string; salt: Buffer } | null): Buffer {
  if (md5 === null) return framed(0x70, Buffer.from(`${password}\0`, "utf8"));
  const inner = createHash("md5").update(password + md5.user).digest("hex");
  const outer = createHash("md5").update(Buffer.concat([Buffer.from(inner), md5.salt])).digest("hex");
  return framed(0x70, Buffer.from(`md5${outer}\0`));
}

/** SASLInitialResponse for SCRAM-SHA-256 carrying the client-first message. */
export function saslInitialMessage(clientFirst: string): Buffer {
  const first = Buffer.from(clientFirst, "utf8");
  const payload = Buffer.alloc(14 + 4 + first.length);
  payload.write("SCRAM-SHA-256\0", 0, "utf8");
  payload.writeInt32BE(first.length, 14);
  first.copy(payload, 18);
  return framed(0x70, payload);
}

function int32Pair(a: number, b: number): Buffer {
  const out = Buffer.alloc(8);
  out.writeInt32BE(a, 0);
  out.writeInt32BE(b, 4);
  return out;
}

/** SASLResponse: the client-final message. */
export function saslResponseMessage(clientFinal: string): Buffer {
  return framed(0x70, Buffer.from(clientFinal, "utf8"));
}

/** A frontend message: type byte, length, body. */
function framed(type: number, body: Buffer): Buffer {
  const out = Buffer.alloc(5 + body.length);
  out[0] = type;
  out.writeInt32BE(4 + body.length, 1);
  body.copy(out, 5);
  return out;
}

/** Parse: the statement (unnamed unless `name`), the query, no parameter types given (the server infers them). */
export function parseMessage(sql: string, name = ""): Buffer {
  return framed(0x50, Buffer.concat([Buffer.from(`${name}\0${sql}\0`, "utf8"), Buffer.from([0, 0])]));
}

/** Bind: the unnamed portal to `statement` (unnamed unless given) with text parameters, text results. */
export function bindMessage(values: string[], statement = ""): Buffer {
  const parts: Buffer[] = [Buffer.from(`\0${statement}\0`, "utf8"), Buffer.from([0, 0])];
  const count = Buffer.alloc(2);
  count.writeInt16BE(values.length, 0);
  parts.push(count);
  for (const value of values) {
    const bytes = Buffer.from(value, "utf8");
    const length = Buffer.alloc(4);
    length.writeInt32BE(bytes.length, 0);
    parts.push(length, bytes);
  }
  parts.push(Buffer.from([0, 0])); // text results
  return framed(0x42, Buffer.concat(parts));
}

export function executeMessage(): Buffer {
  return framed(0x45, Buffer.from([0, 0, 0, 0, 0])); // unnamed portal, every row
}

export function syncMessage(): Buffer {
  return Buffer.from([0x53, 0, 0, 0, 4]);
}

/** An ErrorResponse as an Error with the SQLSTATE in `code`. */
export function errorFromFields(body: Buffer): Error {
  const fields = new Map<string, string>();
  for (let at = 0; at < body.length && body[at] !== 0; ) {
    const end = body.indexOf(0, at + 1);
    fields.set(String.fromCharCode(body[at]), body.toString("utf8", at + 1, end === -1 ? body.length : end));
    at = end === -1 ? body.length : end + 1;
  }
  return wireError(fields.get("M") ?? "the server reported an error", fields.get("C") ?? "XX000");
}

export interface ScramState {
  nonce: string;
  clientFirst: string;
  serverSignature: string;
}

export function scramStart(): ScramState {
  const nonce = randomBytes(18).toString("base64");
  return { nonce, clientFirst: `n,,n=*,r=${nonce}`, serverSignature: "" };
}

/** The client-final message for the server-first message `serverFirst` (RFC 5802, no channel binding). */
export function scramContinue(state: ScramState, serverFirst: string, password: string): string {
  const fields = new Map(serverFirst.split(",").map((part) => [part[0], part.slice(2)] as const));
  const serverNonce = fields.get("r") ?? "";
  const salt = fields.get("s");
  const iterations = Number(fields.get("i"));
  if (!serverNonce.startsWith(state.nonce) || salt === undefined || !Number.isSafeInteger(iterations) || iterations < 1) {
    throw wireError("the server sent a malformed SCRAM challenge", "28000");
  }
  const salted = pbkdf2Sync(password, Buffer.from(salt, "base64"), iterations, 32, "sha256");
  const clientKey = createHmac("sha256", salted).update("Client Key").digest();
  const storedKey = createHash("sha256").update(clientKey).digest();
  const finalWithoutProof = `c=biws,r=${serverNonce}`;
  const authMessage = `n=*,r=${state.nonce},${serverFirst},${finalWithoutProof}`;
  const signature = createHmac("sha256", storedKey).update(authMessage).digest();
  const proof = Buffer.alloc(clientKey.length);
  for (let i = 0; i < proof.length; i++) proof[i] = clientKey[i] ^ signature[i];
  const serverKey = createHmac("sha256", salted).update("Server Key").digest();
  state.serverSignature = createHmac("sha256", serverKey).update(authMessage).digest("base64");
  return `${finalWithoutProof},p=${proof.toString("base64")}`;
}
