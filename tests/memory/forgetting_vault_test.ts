/**
 * The erasure vault in one process while another destroys a key: a reader that opened the vault
 * earlier must see the destruction at its next read (openVault re-reads a vault file that changed).
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, test } from "node:test";
import { fromJs, type JsonObject } from "../../src/canonical/mod.ts";
import { kekFileName, openVault, revealPayload, sealPayload, Vault } from "../../src/eventloom/forgetting.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";

after(removeTempDirs);

test("a key destroyed by another vault instance (another process) is forgotten at this process's next openVault", async () => {
  const root = path.join(makeTempDir("zaxy-vault"), ".eventloom");
  const mine = openVault(root, true)!;
  const cellPayload = sealPayload(mine, "decision.made", fromJs({ decision: "zebra" }) as JsonObject);
  const lock = await mine.lock(1000);
  mine.commit();
  lock.release();
  assert.deepEqual([...revealPayload(cellPayload).entries()], [["decision", "zebra"]]);
  // Another process: its own Vault over the same files destroys the key.
  const kek = Buffer.from(fs.readFileSync(path.join(root, kekFileName), "utf8").trim(), "hex");
  const other = new Vault(root, kek);
  const cellId = (cellPayload.get("__zaxy_cipher") as JsonObject).get("cell_id") as string;
  const otherLock = await other.lock(1000);
  assert.deepEqual(other.destroy([cellId], { reason: "asked" }), [cellId]);
  otherLock.release();
  openVault(root); // what every read entry point calls
  assert.deepEqual([...revealPayload(cellPayload).entries()], [["content", "[FORGOTTEN]"], ["__zaxy_forgotten", true]]);
  assert.equal(fs.statSync(path.join(root, "__erasure_vault__.json")).mode & 0o777, 0o600);
  assert.ok(!fs.readFileSync(path.join(root, "__erasure_vault__.json"), "utf8").includes(`"${cellId}":{"wrapped_dek"`));
});

test("bookkeeping events are not sealed; a payload's producer ref stays outside the cell", async () => {
  const root = path.join(makeTempDir("zaxy-vault-kinds"), ".eventloom");
  const vault = openVault(root, true)!;
  const gate = fromJs({ op: "forget" }) as JsonObject;
  assert.equal(sealPayload(vault, "evolution.gate.evaluated", gate), gate);
  assert.equal(sealPayload(vault, "memory.forgotten", gate), gate);
  const sealed = sealPayload(vault, "task.proposed", fromJs({ title: "t", __zaxy_producer_ref: "p-1" }) as JsonObject);
  assert.deepEqual([...sealed.keys()], ["__zaxy_cipher", "__zaxy_producer_ref"]);
  const lock = await vault.lock(1000);
  vault.commit();
  lock.release();
  assert.deepEqual(Object.fromEntries(revealPayload(sealed)), { title: "t", __zaxy_producer_ref: "p-1" });
});
