/**
 * Verified forgetting (reference core §1.13, features §2.9; docs/forgetting.md). Opt-in per root
 * (`config.json` `forgetting_enabled: true`). From then on the payload of every memory event
 * (every type but zaxy's own bookkeeping, `isBookkeepingType`) is sealed as an AES-256-GCM cell:
 *
 *   payload = {"__zaxy_cipher": {v: 1, alg: "AES-256-GCM", cell_id (32 hex), nonce (base64),
 *              ciphertext (base64 of ciphertext || tag), content_address (SHA-256 hex of those
 *              bytes)}[, "__zaxy_producer_ref": ref]}
 *
 * under a per-cell data key (DEK), itself wrapped (AES-256-GCM) by the root's key-encryption key
 * `<root>/__erasure_kek__.key` (32 bytes as hex, mode 0600) and kept in the vault
 * `<root>/__erasure_vault__.json` (mode 0600), written and fsynced before the event is. The hash
 * chain covers the cell, so forgetting never touches the log: destroying the wrapped DEK makes
 * the content unrecoverable, and every reader then sees `{"content": "[FORGOTTEN]",
 * "__zaxy_forgotten": true}` in its place.
 *
 * Readers decrypt in `recordFromLine` through `revealPayload`, which finds the cell's key in the
 * vaults this process opened (`openVault`); the log's own bytes (verification, hashing) are
 * never changed. node:crypto does the cryptography; nothing here is hand-written crypto.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { isJsonObject, JsonNumber, type JsonObject, type JsonValue, parseJsonBytes, writeJson } from "../canonical/mod.ts";
import { inputError, ioError } from "../errors.ts";

export const cipherKey = "__zaxy_cipher";
export const forgottenKey = "__zaxy_forgotten";
export const forgottenContent = "[FORGOTTEN]";
const producerRefKey = "__zaxy_producer_ref";
export const vaultFileName = "__erasure_vault__.json";
export const kekFileName = "__erasure_kek__.key";
const vaultSchema = "zaxy.erasure_vault.v1";

/** Zaxy's own records about memory, never sealed as cells (they cite events, they are not memory). */
export function isBookkeepingType(type: string): boolean {
  return type === "memory.forgotten" || type === "memory.rolled_back" || type === "memory.reinforcement" ||
    /^(evolution\.gate|metacognition|memory\.bootstrap|compaction|consolidation|fleet|inference|causal\.edge)\./.test(type);
}

interface VaultCell {
  wrapped_dek: string;
  nonce: string;
}

interface VaultFile {
  schema: string;
  cells: { [cellId: string]: VaultCell };
  destroyed: { [cellId: string]: { at: string; reason: string } };
}

/** One root's vault, as this process knows it (re-read when the file changes). */
export class Vault {
  readonly root: string;
  #kek: Buffer;
  #file: VaultFile = { schema: vaultSchema, cells: {}, destroyed: {} };
  #stamp = "";
  #pending: { [cellId: string]: VaultCell } = {};

  constructor(root: string, kek: Buffer) {
    this.root = root;
    this.#kek = kek;
    this.reload();
  }

  get path(): string {
    return path.join(this.root, vaultFileName);
  }

  /** Re-reads the vault file when it changed since the last read. */
  reload(): void {
    const stat = fs.statSync(this.path, { throwIfNoEntry: false });
    const stamp = stat === undefined ? "" : `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
    if (stamp === this.#stamp) return;
    this.#stamp = stamp;
    if (stat === undefined) return;
    try {
      const parsed = JSON.parse(fs.readFileSync(this.path, "utf8")) as VaultFile;
      this.#file = { schema: vaultSchema, cells: parsed.cells ?? {}, destroyed: parsed.destroyed ?? {} };
    } catch (error) {
      throw ioError("unreadable_vault", `Cannot read the erasure vault ${this.path}: ${(error as Error).message}`);
    }
  }

  /** Seals `plaintext` as a new cell (its key staged until `commit`); returns the cell object. */
  seal(plaintext: Uint8Array): JsonObject {
    const cellId = randomBytes(16).toString("hex");
    const dek = randomBytes(32);
    const nonce = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", dek, nonce);
    const body = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
    const wrapNonce = randomBytes(12);
    const wrapper = createCipheriv("aes-256-gcm", this.#kek, wrapNonce);
    const wrapped = Buffer.concat([wrapper.update(dek), wrapper.final(), wrapper.getAuthTag()]);
    this.#pending[cellId] = { wrapped_dek: wrapped.toString("base64"), nonce: wrapNonce.toString("base64") };
    return new Map<string, JsonValue>([
      ["v", JsonNumber.int(1)],
      ["alg", "AES-256-GCM"],
      ["cell_id", cellId],
      ["nonce", nonce.toString("base64")],
      ["ciphertext", body.toString("base64")],
      ["content_address", createHash("sha256").update(body).digest("hex")],
    ]);
  }

  /** Writes the staged keys durably (atomic rename, fsync) before the events that need them. */
  commit(): void {
    if (Object.keys(this.#pending).length === 0) return;
    this.reload();
    const next: VaultFile = { ...this.#file, cells: { ...this.#file.cells, ...this.#pending } };
    this.#write(next);
    this.#pending = {};
  }

  /** Forgets a staged batch that was not appended. */
  discard(): void {
    this.#pending = {};
  }

  /** Destroys a cell's wrapped key; true when it was there. */
  destroy(cellId: string, reason: string): boolean {
    this.reload();
    if (this.#file.cells[cellId] === undefined) return false;
    const cells = { ...this.#file.cells };
    delete cells[cellId];
    this.#write({ ...this.#file, cells, destroyed: { ...this.#file.destroyed, [cellId]: { at: new Date().toISOString(), reason } } });
    return true;
  }

  isDestroyed(cellId: string): boolean {
    this.reload();
    return this.#file.destroyed[cellId] !== undefined;
  }

  /** The plaintext of a cell, or undefined when its key is gone (forgotten) or unknown. */
  open(cell: JsonObject): Uint8Array | undefined {
    const cellId = cell.get("cell_id");
    if (typeof cellId !== "string") return undefined;
    let entry = this.#file.cells[cellId] ?? this.#pending[cellId];
    if (entry === undefined) {
      this.reload();
      entry = this.#file.cells[cellId];
    }
    if (entry === undefined) return undefined;
    try {
      const wrapped = Buffer.from(entry.wrapped_dek, "base64");
      const unwrap = createDecipheriv("aes-256-gcm", this.#kek, Buffer.from(entry.nonce, "base64"));
      unwrap.setAuthTag(wrapped.subarray(wrapped.length - 16));
      const dek = Buffer.concat([unwrap.update(wrapped.subarray(0, wrapped.length - 16)), unwrap.final()]);
      const body = Buffer.from(String(cell.get("ciphertext")), "base64");
      const decipher = createDecipheriv("aes-256-gcm", dek, Buffer.from(String(cell.get("nonce")), "base64"));
      decipher.setAuthTag(body.subarray(body.length - 16));
      return new Uint8Array(Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]));
    } catch {
      return undefined;
    }
  }

  #write(file: VaultFile): void {
    const temp = `${this.path}.tmp-${process.pid}`;
    try {
      const fd = fs.openSync(temp, "w", 0o600);
      try {
        fs.writeSync(fd, JSON.stringify(file));
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(temp, this.path);
    } catch (error) {
      fs.rmSync(temp, { force: true });
      throw ioError("write_failed", `Cannot write the erasure vault ${this.path}: ${(error as Error).message}; nothing was appended`);
    }
    this.#file = file;
    const stat = fs.statSync(this.path);
    this.#stamp = `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
  }
}

const vaults = new Map<string, Vault>();

function readKek(root: string, create: boolean): Buffer | undefined {
  const file = path.join(root, kekFileName);
  if (!fs.existsSync(file)) {
    if (!create) return undefined;
    const kek = randomBytes(32);
    fs.mkdirSync(root, { recursive: true });
    fs.writeFileSync(file, kek.toString("hex") + "\n", { mode: 0o600, flag: "wx" });
    return kek;
  }
  const text = fs.readFileSync(file, "utf8").trim();
  if (!/^[0-9a-f]{64}$/.test(text)) throw inputError("invalid_kek", `${file} must hold 32 bytes as 64 hex characters`, { field: kekFileName });
  return Buffer.from(text, "hex");
}

/**
 * The root's vault, opened once per process; undefined when the root has no key (forgetting was
 * never enabled). `create` makes the key when forgetting is enabled and there is none yet.
 */
export function openVault(root: string, create = false): Vault | undefined {
  const key = path.resolve(root);
  const known = vaults.get(key);
  if (known !== undefined) {
    // Another process may have destroyed a key since: a long-running reader must see it.
    known.reload();
    return known;
  }
  const kek = readKek(key, create);
  if (kek === undefined) return undefined;
  const vault = new Vault(key, kek);
  vaults.set(key, vault);
  return vault;
}

/** The forgotten sentinel every reader sees in place of a destroyed cell's payload. */
export function forgottenPayload(): JsonObject {
  return new Map<string, JsonValue>([["content", forgottenContent], [forgottenKey, true]]);
}

/**
 * A payload as readers see it: a cell is opened with its key from the vaults this process
 * opened, or becomes the forgotten sentinel when its key is gone. Other payloads are unchanged.
 */
export function revealPayload(payload: JsonObject): JsonObject {
  const cell = payload.get(cipherKey);
  if (!isJsonObject(cell)) return payload;
  for (const vault of vaults.values()) {
    const plaintext = vault.open(cell);
    if (plaintext === undefined) continue;
    try {
      const parsed = parseJsonBytes(plaintext);
      if (isJsonObject(parsed)) {
        const producerRef = payload.get(producerRefKey);
        if (producerRef !== undefined) parsed.set(producerRefKey, producerRef);
        return parsed;
      }
    } catch {
      // A cell that does not hold a JSON object is not ours to show.
    }
  }
  return forgottenPayload();
}

/** Seals a payload for the log when the root forgets: returns the cell payload (or the payload unchanged). */
export function sealPayload(vault: Vault | undefined, type: string, payload: JsonObject): JsonObject {
  if (vault === undefined || isBookkeepingType(type)) return payload;
  const plain: JsonObject = new Map(payload);
  const producerRef = plain.get(producerRefKey);
  plain.delete(producerRefKey);
  const cell = vault.seal(new TextEncoder().encode(writeJson(plain, { sortKeys: false, asciiOnly: false })));
  const sealed: JsonObject = new Map<string, JsonValue>([[cipherKey, cell]]);
  if (producerRef !== undefined) sealed.set(producerRefKey, producerRef);
  return sealed;
}
