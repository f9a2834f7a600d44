/**
 * Shared helpers for the Eventloom and CLI tests (not a test file itself): temporary
 * directories, the Python reference verifier, python3 one-liners for independent hash and id
 * computations, and the interop fixtures.
 *
 * The reference verifier is `../shared/tools/ref_verify.py` when the shared workspace sits next
 * to the repository, else the copy in `fixtures/tools/ref_verify.py`. Tests that need python3
 * are skipped with a message when it is not installed.
 */
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { repoRoot } from "../cli/zaxy.ts";

export { repoRoot };

export const interopDir = path.join(repoRoot, "fixtures", "interop");

/** Interop logs written by the Python implementation, byte-exact (see fixtures/interop/README.md). */
export const interopLogs: string[] = fs.existsSync(interopDir)
  ? fs.readdirSync(interopDir).filter((name) => name.endsWith(".jsonl")).sort()
  : [];

export const refVerifyPath: string = (() => {
  const shared = path.resolve(repoRoot, "../shared/tools/ref_verify.py");
  return fs.existsSync(shared) ? shared : path.join(repoRoot, "fixtures", "tools", "ref_verify.py");
})();

/** `false` when python3 runs, else the reason to skip (for `test(name, { skip }, fn)`). */
/**
 * The real python3 executable (a pyenv shim costs ~150 ms per start), run with `-S` (no site
 * import: only the standard library is used) so each call starts in ~30 ms. Empty when absent.
 */
const pythonExe: string = (() => {
  const probe = spawnSync("python3", ["-c", "import hashlib, json, sys; print(sys.executable)"], { encoding: "utf8" });
  return probe.error || probe.status !== 0 ? "" : probe.stdout.trim();
})();

export const skipWithoutPython: false | string = (() => {
  if (pythonExe === "") {
    const reason = "python3 is not installed: the cross-checks against the reference verifier need it";
    console.error(`skipping: ${reason}`);
    return reason;
  }
  return false;
})();

const tempDirs: string[] = [];

/** A fresh empty directory under the OS temp dir; removed by `removeTempDirs`. */
export function makeTempDir(label = "zaxy-test"): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${label}-`));
  tempDirs.push(dir);
  return dir;
}

/** Removes every directory made by `makeTempDir` in this process (call from `after`). */
export function removeTempDirs(): void {
  for (const dir of tempDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

export interface Verdict {
  ok: boolean;
  total_events: number;
  broken_at_seq: number | null;
  broken_reason: string | null;
}

/** Runs the Python reference verifier: its exit code and its `--json` verdict. */
export function refVerify(file: string): { code: number | null; verdict: Verdict } {
  const run = spawnSync(pythonExe, ["-S", refVerifyPath, file, "--json"], { encoding: "utf8" });
  if (run.error) throw run.error;
  if (run.status !== 0 && run.status !== 1) throw new Error(`ref_verify.py exited ${run.status}: ${run.stderr}`);
  return { code: run.status, verdict: JSON.parse(run.stdout) as Verdict };
}

/** The reference verifier's verdicts for many files, from one python3 process. */
export function refVerifyMany(files: string[]): Verdict[] {
  const program =
    "import json, sys\n" +
    `sys.path.insert(0, ${JSON.stringify(path.dirname(refVerifyPath))})\n` +
    "import ref_verify\n" +
    "print(json.dumps([ref_verify.verify(f) for f in json.load(sys.stdin)]))\n";
  return JSON.parse(python(program, JSON.stringify(files))) as Verdict[];
}

/** Runs a python3 program with `input` on stdin and returns its stdout (throws on failure). */
export function python(program: string, input = ""): string {
  const run = spawnSync(pythonExe, ["-S", "-B", "-c", program], {
    input,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, PYTHONIOENCODING: "utf-8", PYTHONUTF8: "1" },
  });
  if (run.error) throw run.error;
  if (run.status !== 0) throw new Error(`python3 failed (${run.status}): ${run.stderr}`);
  return run.stdout;
}

/** Python helpers prepended to programs given to `pythonWith`. */
const pythonPrelude = `
import hashlib, json, sys
def canon(o): return json.dumps(o, sort_keys=True, separators=(",", ":"))
def sha(t): return hashlib.sha256(t.encode("utf-8")).hexdigest()
def legacy_hash(rec):
    obj = {k: rec.get(k) for k in ("seq", "timestamp", "type", "actor", "thread", "payload", "prev_hash")}
    if rec.get("security") is not None:
        obj["security"] = rec["security"]
    return sha(canon(obj))
def v1_hash(rec, prev):
    unsigned = {k: rec.get(k) for k in ("id", "type", "actorId", "threadId", "parentEventId", "causedBy", "timestamp", "payload")}
    return sha(canon({"event": unsigned, "previousHash": None if prev is None else "sha256:" + prev}))
def event_id(actor, seq, timestamp, type_):
    return "evt_zaxy_%012d_%s" % (seq, sha(canon({"actor": actor, "seq": seq, "timestamp": timestamp, "type": type_}))[:16])
`;

/**
 * For each line of a log, what python3 computes independently: the envelope, whether the line
 * is byte-identical to Python's own serialisation of its values (v1: `json.dumps(rec,
 * separators=(",",":"))`; legacy: the same with `ensure_ascii=False`), the expected hash
 * (bare hex, chained over the computed hashes) and the generated event id for its position.
 */
export interface PythonLineCheck {
  v1: boolean;
  same_bytes: boolean;
  hash: string;
  prev: string | null;
  id: string;
}

export function pythonLineChecks(file: string): PythonLineCheck[] {
  const program = `
prev = None
out = []
for i, line in enumerate([l for l in sys.stdin.read().split("\\n") if l.strip()], 1):
    rec = json.loads(line)
    if "integrity" in rec:
        h = v1_hash(rec, prev)
        same = line == json.dumps(rec, separators=(",", ":"))
        eid = event_id(rec["actorId"], i, rec["timestamp"], rec["type"])
    else:
        h = legacy_hash(rec)
        same = line == json.dumps(rec, ensure_ascii=False, separators=(",", ":"))
        eid = event_id(rec["actor"], i, rec["timestamp"], rec["type"])
    out.append({"v1": "integrity" in rec, "same_bytes": same, "hash": h, "prev": prev, "id": eid})
    prev = h
print(json.dumps(out))
`;
  return JSON.parse(pythonWith(program, fs.readFileSync(file, "utf8"))) as PythonLineCheck[];
}

/** `python(program)` with canon/sha/legacy_hash/v1_hash/event_id defined. */
export function pythonWith(program: string, input = ""): string {
  return python(pythonPrelude + program, input);
}

export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The file's lines without their newlines (a final newline gives no empty last entry). */
export function readLines(file: string): string[] {
  const text = fs.readFileSync(file, "utf8");
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** Writes lines, each followed by a newline. */
export function writeLines(file: string, lines: string[]): void {
  fs.writeFileSync(file, lines.map((line) => line + "\n").join(""));
}

/** Keys of a JSON object line in file order (JSON.parse keeps string-key insertion order). */
export function keysOf(line: string): string[] {
  return Object.keys(JSON.parse(line) as Record<string, unknown>);
}
