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
 * vaults the process's root handles opened (`openVault`, rootHandle.ts); the log's own bytes
 * (verification, hashing) are never changed. node:crypto does the cryptography; nothing here is hand-written crypto.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { isJsonObject, JsonNumber, type JsonObject, type JsonValue, parseJsonBytes, writeJson } from "../canonical/mod.ts";
import { inputError, ioError } from "../errors.ts";
import { type FileLock, lockFile } from "../platform/mod.ts";
import { defineRootSlot, Root } from "./rootHandle.ts";

export const cipherKey = "__zaxy_cipher";
export const forgottenKey = "__zaxy_forgotten";
export const forgottenContent = "[FORGOTTEN]";
const producerRefKey = "__zaxy_producer_ref";
export const vaultFileName = "__erasure_vault__.json";
export const kekFileName = "__erasure_kek__.key";
/**
 * The vault's lock: every read-change-write of the vault (an append committing new keys, a
 * forget destroying one) holds it, always after the log lock of the session it appends to, so
 * two writers can never both start from the same vault and drop each other's keys.
 */
export const vaultLockFileName = "__erasure_vault__.lock";
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

/**
 * What the vault keeps about a destroyed key: when, why, and (since forgets record them here
 * before the log's `memory.forgotten`) who, in which session, and which event, so an
 * interrupted forget's record can be written from it later.
 */
export interface DestroyedCell {
  at: string;
  reason: string;
  actor?: string;
  session_id?: string;
  target?: { seq: number; hash: string };
  /** The quote cells (copies of the target's content in other events) destroyed with it. */
  copies?: string[];
}

interface VaultFile {
  schema: string;
  cells: { [cellId: string]: VaultCell };
  destroyed: { [cellId: string]: DestroyedCell };
}

/** One root's vault, as this process knows it (re-read when the file changes). */
export class Vault {
  readonly root: string;
  #kek: Buffer;
  #file: VaultFile = { schema: vaultSchema, cells: {}, destroyed: {} };
  #stamp = "";
  #pending: { [cellId: string]: VaultCell } = {};
  #lockDepth = 0;

  constructor(root: string, kek: Buffer) {
    this.root = root;
    this.#kek = kek;
    this.reload();
  }

  get path(): string {
    return path.join(this.root, vaultFileName);
  }

  /**
   * Takes the vault's exclusive lock (`vaultLockFileName`). `commit` and `destroy` require it;
   * callers take it after the log lock they hold, never before.
   */
  async lock(waitMs: number): Promise<FileLock> {
    const file = await lockFile(path.join(this.root, vaultLockFileName), "exclusive", waitMs, true);
    this.#lockDepth++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.#lockDepth--;
        file.release();
      },
    };
  }

  /** Re-reads the vault file when it changed since the last read (always, with `force`). */
  reload(force = false): void {
    const stat = fs.statSync(this.path, { throwIfNoEntry: false });
    const stamp = stat === undefined ? "" : `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
    if (stamp === this.#stamp && !force) return;
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
    this.#assertLocked("commit");
    // Under the lock the file is the truth: re-read it whatever the stamp says (an inode can be reused).
    this.reload(true);
    const next: VaultFile = { ...this.#file, cells: { ...this.#file.cells, ...this.#pending } };
    this.#write(next);
    this.#pending = {};
  }

  /** Forgets a staged batch that was not appended. */
  discard(): void {
    this.#pending = {};
  }

  /** Destroys cells' wrapped keys in one durable write, recording `record` for each; returns the ids that were there. */
  destroy(cellIds: readonly string[], record: Omit<DestroyedCell, "at">): string[] {
    this.#assertLocked("destroy");
    this.reload(true);
    const cells = { ...this.#file.cells };
    const destroyed = { ...this.#file.destroyed };
    const at = new Date().toISOString();
    const gone: string[] = [];
    for (const cellId of cellIds) {
      if (cells[cellId] === undefined) continue;
      delete cells[cellId];
      destroyed[cellId] = { at, ...record };
      gone.push(cellId);
    }
    if (gone.length > 0) this.#write({ ...this.#file, cells, destroyed });
    return gone;
  }

  isDestroyed(cellId: string): boolean {
    return this.destroyedEntry(cellId) !== undefined;
  }

  /** What the vault recorded when the cell's key was destroyed; undefined while it is not. */
  destroyedEntry(cellId: string): DestroyedCell | undefined {
    this.reload();
    return this.#file.destroyed[cellId];
  }

  #assertLocked(what: string): void {
    if (this.#lockDepth === 0) throw new Error(`vault ${what} without the vault lock`);
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
      // Created afresh and exclusively: a link planted at the temp name is never written through.
      fs.rmSync(temp, { force: true });
      const fd = fs.openSync(temp, "wx", 0o600);
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

/** The root's vault once opened; `vault` stays unset while the root has no key. */
const vaultSlot = defineRootSlot("erasure vault", (): { vault?: Vault } => ({}));

/** The vaults the process's root handles opened: a reader with no root in hand tries each. */
function* openedVaults(): Generator<Vault> {
  for (const root of Root.opened()) {
    const vault = root.peekSlot(vaultSlot)?.vault;
    if (vault !== undefined) yield vault;
  }
}

/**
 * Set once this process opens a vault. Most processes never do (forgetting is opt-in), so a reader
 * answers "nothing to reveal" from this flag without walking the root handles for every event.
 */
let vaultEverOpened = false;

/** Whether any root handle of the process opened a vault (most never do: nothing to reveal). */
function anyVaultOpened(): boolean {
  return vaultEverOpened && !openedVaults().next().done;
}

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
export function openVault(root: string | Root, create = false): Vault | undefined {
  const handle = Root.of(root);
  const held = handle.slot(vaultSlot);
  if (held.vault !== undefined) {
    // Another process may have destroyed a key since: a long-running reader must see it.
    held.vault.reload();
    return held.vault;
  }
  const kek = readKek(handle.resolvedPath, create);
  if (kek === undefined) return undefined;
  held.vault = new Vault(handle.resolvedPath, kek);
  vaultEverOpened = true;
  return held.vault;
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
  if (!anyVaultOpened()) return payload;
  const cell = payload.get(cipherKey);
  if (!isJsonObject(cell)) return revealQuotes(payload);
  for (const vault of openedVaults()) {
    const plaintext = vault.open(cell);
    if (plaintext === undefined) continue;
    try {
      const parsed = parseJsonBytes(plaintext);
      if (isJsonObject(parsed)) {
        const producerRef = payload.get(producerRefKey);
        if (producerRef !== undefined) parsed.set(producerRefKey, producerRef);
        return revealQuotes(parsed);
      }
    } catch {
      // A cell that does not hold a JSON object is not ours to show.
    }
  }
  return forgottenPayload();
}

const entityRefText = [["source", "name"], ["source", "summary"], ["target", "name"], ["target", "summary"]] as const;

/**
 * Content an event copies from another event, or user text a bookkeeping event carries, by event
 * type: each is sealed as its own cell (`{"__zaxy_cipher": cell}` in the value's place, inside
 * the event's own cell when it has one), so forgetting the event it was copied from can erase the
 * copy without touching the rest, and a bookkeeping event's text can be forgotten by itself
 * (docs/forgetting.md "Copies"). A correction's `previous_content` and `entity_name` quote the
 * fact it corrects (a fact's name is often its text); a rollback's `reverts.restore_content` and
 * `reverts.entity_name` quote the correction's; a consolidation candidate's title and summary
 * restate its source events (a `merge_concepts` title is built from their names); inferred and
 * causal edges name the entities of the event they were derived from; a fleet promotion restates
 * its origin session's events, and the gate decision about it names it.
 */
export const quotedContentPaths: { readonly [type: string]: readonly (readonly string[])[] } = {
  "memory.corrected": [["previous_content"], ["entity_name"]],
  "memory.rolled_back": [["reverts", "restore_content"], ["reverts", "entity_name"]],
  "consolidation.candidate.created": [["title"], ["summary"]],
  "consolidation.candidate.reviewed": [["rationale"]],
  "causal.edge.generated": entityRefText,
  "inference.edge.generated": entityRefText,
  "inference.edge.retracted": [...entityRefText, ["evidence", "reason"]],
  "inference.edge.contradicted": [...entityRefText, ["reason"]],
  "fleet.outcome.propagated": [["summary"]],
  "fleet.rule.propagated": [["rule"], ["trigger"]],
  "fleet.promotion.reviewed": [["rationale"]],
  // A gate decision names what it decided about: a promotion's summary, a candidate's title.
  "evolution.gate.evaluated": [["candidate_ref", "name"]],
};

function isQuoteCell(value: JsonValue | undefined): boolean {
  return isJsonObject(value) && value.size === 1 && isJsonObject(value.get(cipherKey));
}

/** A payload with its quote cells (two levels deep at most) opened, or shown as forgotten. */
function revealQuotes(payload: JsonObject): JsonObject {
  let out = payload;
  for (const [key, value] of payload) {
    if (!isJsonObject(value)) continue;
    let revealed: JsonValue = value;
    if (isQuoteCell(value)) revealed = openQuote(value as JsonObject);
    else {
      for (const [inner, nested] of value) {
        if (!isQuoteCell(nested)) continue;
        if (revealed === value) revealed = new Map(value);
        (revealed as JsonObject).set(inner, openQuote(nested as JsonObject));
      }
    }
    if (revealed === value) continue;
    if (out === payload) out = new Map(payload);
    out.set(key, revealed);
  }
  return out;
}

function openQuote(quote: JsonObject): JsonValue {
  const cell = quote.get(cipherKey) as JsonObject;
  for (const vault of openedVaults()) {
    const plaintext = vault.open(cell);
    if (plaintext === undefined) continue;
    try {
      return parseJsonBytes(plaintext);
    } catch {
      // Not ours to show.
    }
  }
  return forgottenContent;
}

/**
 * The ids of the quote cells in a payload as its line holds it (opening the event's own cell
 * with `vault` to find those inside it). A quote inside an event cell whose key is gone is
 * unreadable already and not listed.
 */
export function quoteCellIds(vault: Vault, linePayload: JsonObject): string[] {
  let payload = linePayload;
  const cell = linePayload.get(cipherKey);
  if (isJsonObject(cell)) {
    const plaintext = vault.open(cell);
    if (plaintext === undefined) return [];
    try {
      const parsed = parseJsonBytes(plaintext);
      if (!isJsonObject(parsed)) return [];
      payload = parsed;
    } catch {
      return [];
    }
  }
  const ids: string[] = [];
  const add = (value: JsonValue | undefined) => {
    if (!isQuoteCell(value)) return;
    const id = ((value as JsonObject).get(cipherKey) as JsonObject).get("cell_id");
    if (typeof id === "string") ids.push(id);
  };
  for (const value of payload.values()) {
    if (!isJsonObject(value)) continue;
    add(value);
    for (const nested of value.values()) add(nested);
  }
  return ids;
}

function sealQuotes(vault: Vault, type: string, payload: JsonObject): JsonObject {
  const paths = quotedContentPaths[type];
  if (paths === undefined) return payload;
  let out = payload;
  for (const keys of paths) {
    const parent = keys.length === 1 ? out : out.get(keys[0]);
    if (!isJsonObject(parent)) continue;
    const value = parent.get(keys[keys.length - 1]);
    if (value === undefined || value === null || isQuoteCell(value)) continue;
    const quote: JsonObject = new Map<string, JsonValue>([[cipherKey, vault.seal(new TextEncoder().encode(writeJson(value, { sortKeys: false, asciiOnly: false })))]]);
    if (out === payload) out = new Map(payload);
    if (keys.length === 1) out.set(keys[0], quote);
    else out.set(keys[0], new Map(parent).set(keys[1], quote));
  }
  return out;
}

/** Seals a payload for the log when the root forgets: returns the cell payload (or the payload unchanged). */
export function sealPayload(vault: Vault | undefined, type: string, payload: JsonObject): JsonObject {
  if (vault === undefined) return payload;
  const quoted = sealQuotes(vault, type, payload);
  if (isBookkeepingType(type)) return quoted;
  const plain: JsonObject = new Map(quoted);
  const producerRef = plain.get(producerRefKey);
  plain.delete(producerRefKey);
  const cell = vault.seal(new TextEncoder().encode(writeJson(plain, { sortKeys: false, asciiOnly: false })));
  const sealed: JsonObject = new Map<string, JsonValue>([[cipherKey, cell]]);
  if (producerRef !== undefined) sealed.set(producerRefKey, producerRef);
  return sealed;
}
