/**
 * Frozen format. If one of these values changes, we broke compatibility with every log already
 * written (by zaxy or by the Python implementation): do not update them to make a test pass.
 *
 * The expected hashes and ids were computed by python3 from the values alone (hashlib + json,
 * the published rules), not copied from zaxy's output; the legacy file bytes are what pydantic's
 * model_dump_json writes and the v1 line is Python's json.dumps(envelope, separators=(",",":")).
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { canonicalJson, fromJs, type JsonObject, parseJson } from "../../src/canonical/mod.ts";
import { type AppendItem, legacyPreimage, writeConfig } from "../../src/eventloom/mod.ts";
import { appendEvents } from "../../src/events/append.ts";
import { makeTempDir, readLines, removeTempDirs, sha256Hex } from "./testkit.ts";

after(removeTempDirs);

const items: AppendItem[] = [
  {
    type: "goal.created",
    actor: "planner",
    payload: fromJs({ title: "Ship zaxy", "café": "naïve 😀", n: 1.5, big: 12345678901234567890n, list: [null, true, 0.0001, 1e16] }),
  },
  { type: "task.started", actor: "worker", payload: fromJs({ task_id: "t1", api_key: "hunter2", note: "token sk-abcdefgh123" }) },
  { type: "task.completed", actor: "worker", payload: fromJs({ task_id: "t1" }) },
];

/** 2026-01-01T00:00:00Z, then every 1.5 s. */
function frozenClock(): () => number {
  let n = 0;
  return () => Date.UTC(2026, 0, 1) * 1000 + n++ * 1_500_000;
}

async function writeFrozen(envelope: "legacy" | "v1"): Promise<{ file: string; hashes: string[]; ids: string[] }> {
  const root = path.join(makeTempDir("frozen"), envelope);
  writeConfig(root, { envelope });
  const { events } = await appendEvents(root, "frozen", items, { clock: frozenClock() });
  return { file: path.join(root, "frozen.jsonl"), hashes: events.map((e) => e.hash), ids: events.map((e) => e.event_id) };
}

const frozenIds = ["evt_zaxy_000000000001_07ed90cd992606b1", "evt_zaxy_000000000002_f841c921769e0e2b", "evt_zaxy_000000000003_395eedd666519493"];

describe("frozen Eventloom format", () => {
  test("legacy: chain hashes, generated ids and the exact file bytes are pinned", async () => {
    const { file, hashes, ids } = await writeFrozen("legacy");
    assert.deepEqual(hashes, [
      "81de62c5f9cb0b35a70cb7e247cab39ba1737dc9d0d325752e6a58e6b9422a08",
      "27e59880d5dd6e9227bd74b57afffa6dc8484560d2ee882a2bcef2964a7af42a",
      "8b555cee042496eb90a5b26f2a4588dd5db2436fb9a547b88d487fa98ec24600",
    ]);
    assert.deepEqual(ids, frozenIds);
    assert.equal(
      readLines(file)[0],
      '{"seq":1,"timestamp":"2026-01-01T00:00:00Z","type":"goal.created","actor":"planner","thread":"frozen",' +
        '"payload":{"title":"Ship zaxy","café":"naïve 😀","n":1.5,"big":12345678901234567890,"list":[null,true,0.0001,1e+16]},' +
        '"security":{"sensitivity":"public","redacted_paths":[]},"prev_hash":null,' +
        '"hash":"81de62c5f9cb0b35a70cb7e247cab39ba1737dc9d0d325752e6a58e6b9422a08"}',
    );
    assert.equal(
      readLines(file)[1],
      '{"seq":2,"timestamp":"2026-01-01T00:00:01.500000Z","type":"task.started","actor":"worker","thread":"frozen",' +
        '"payload":{"task_id":"t1","api_key":"[REDACTED]","note":"[REDACTED]"},' +
        '"security":{"sensitivity":"restricted","redacted_paths":["api_key","note"]},' +
        '"prev_hash":"81de62c5f9cb0b35a70cb7e247cab39ba1737dc9d0d325752e6a58e6b9422a08",' +
        '"hash":"27e59880d5dd6e9227bd74b57afffa6dc8484560d2ee882a2bcef2964a7af42a"}',
    );
    assert.equal(sha256Hex(fs.readFileSync(file)), "4157fac95b30c12cd6662a58ea4e6897df890fc108f0d60442b77a87f23a717f");
  });

  test("legacy: the hash preimage is canonical JSON of the hashed fields, security included", async () => {
    const { file, hashes } = await writeFrozen("legacy");
    const preimage = legacyPreimage(parseJson(readLines(file)[0]) as JsonObject);
    assert.equal(
      preimage,
      '{"actor":"planner","payload":{"big":12345678901234567890,"caf\\u00e9":"na\\u00efve \\ud83d\\ude00","list":[null,true,0.0001,1e+16],"n":1.5,"title":"Ship zaxy"},' +
        '"prev_hash":null,"security":{"redacted_paths":[],"sensitivity":"public"},"seq":1,"thread":"frozen","timestamp":"2026-01-01T00:00:00Z","type":"goal.created"}',
    );
    assert.equal(sha256Hex(preimage), hashes[0]);
  });

  test("v1: chain hashes and generated ids are pinned", async () => {
    const { hashes, ids } = await writeFrozen("v1");
    assert.deepEqual(hashes, [
      "6acb87245d5715889ca4e54e2b11a3f9356f18743d8bcaedb48a8419e690a429",
      "ee2c92cbfda212ac969227c5ea569f6ab2f6ab293b4f1272c8ec0db9dc38867a",
      "913d51db7cd6bd4f6a02b2889e380d2fe6d0d683028c277363b5defd2190100e",
    ]);
    assert.deepEqual(ids, frozenIds);
  });

  test("v1: the first line is byte-identical to Python's json.dumps(envelope) (insertion order, __zaxy_security last)", async () => {
    const { file } = await writeFrozen("v1");
    assert.equal(
      readLines(file)[0],
      '{"id":"evt_zaxy_000000000001_07ed90cd992606b1","type":"goal.created","actorId":"planner","threadId":"frozen",' +
        '"parentEventId":null,"causedBy":[],"timestamp":"2026-01-01T00:00:00Z",' +
        '"payload":{"title":"Ship zaxy","caf\\u00e9":"na\\u00efve \\ud83d\\ude00","n":1.5,"big":12345678901234567890,' +
        '"list":[null,true,0.0001,1e+16],"__zaxy_security":{"sensitivity":"public","redacted_paths":[]}},' +
        '"integrity":{"hash":"sha256:6acb87245d5715889ca4e54e2b11a3f9356f18743d8bcaedb48a8419e690a429","previousHash":null}}',
    );
  });

  test("canonical JSON test vectors of DESIGN §3", () => {
    const vectors: Array<[string, string]> = [
      ["5.0", "5.0"],
      ["1e16", "1e+16"],
      ["1e-7", "1e-07"],
      ["0.1", "0.1"],
      ["-0.0", "-0.0"],
      ["9223372036854775809", "9223372036854775809"],
      ['"café"', '"caf\\u00e9"'],
      ['"😀"', '"\\ud83d\\ude00"'],
      ['{"b":1,"a":[1,2.50]}', '{"a":[1,2.5],"b":1}'],
      ['{"\\ud83d\\ude00":1,"\\ufb01":2}', '{"\\ufb01":2,"\\ud83d\\ude00":1}'],
    ];
    for (const [input, expected] of vectors) assert.equal(canonicalJson(parseJson(input)), expected, input);
  });
});
