/**
 * scripts/structure.ts measures the layering of src/: imports from a lower layer to a higher one,
 * folder-level cycles and the files a checkout passes through. Its functions are checked on a tiny
 * synthetic tree, and its --json report on the real tree has the documented shape with every
 * folder placed in a layer.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import {
  folderCycles,
  folderEdges,
  folderOf,
  importEdges,
  layerIndex,
  routeSummary,
  sourceFiles,
  type StructureReport,
  upwardImports,
} from "../../scripts/structure.ts";

const repoDir = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..", "..");
const work = fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-structure-test-"));
after(() => fs.rmSync(work, { recursive: true, force: true }));

/** A tree: base ← mid ← top, plus mid/up.ts importing top (upward) and a type-only base → mid. */
function syntheticTree(): string {
  const dir = path.join(work, "tree");
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  };
  write("src/limits.ts", "export const max = 1;\n");
  write("src/base/a.ts", 'import { max } from "../limits.ts";\nimport type { M } from "../mid/m.ts";\nexport const a = max;\n');
  write("src/mid/m.ts", 'import { a } from "../base/a.ts";\nexport type M = number;\nexport const m = a;\n');
  write("src/mid/up.ts", 'export async function up() { return (await import("../top/t.ts")).t; }\n');
  write("src/top/t.ts", 'export { m } from "../mid/m.ts";\nimport * as fs from "node:fs";\nexport const t = fs.sep;\n');
  write("src/generated/g.ts", 'import { t } from "../top/t.ts";\nexport const g = t;\n');
  return dir;
}

describe("structure script", () => {
  const dir = syntheticTree();
  const files = sourceFiles(dir);
  const edges = importEdges(files, (file) => fs.readFileSync(path.join(dir, file), "utf8"));
  const index = layerIndex([["src"], ["base"], ["mid"], ["top"]]);

  test("sourceFiles lists src/ without src/generated/, and files directly in src/ form the folder src", () => {
    assert.deepEqual(files, ["src/base/a.ts", "src/limits.ts", "src/mid/m.ts", "src/mid/up.ts", "src/top/t.ts"]);
    assert.equal(folderOf("src/limits.ts"), "src");
    assert.equal(folderOf("src/mid/deeper/x.ts"), "mid");
  });

  test("importEdges finds static, type-only, re-export and dynamic imports, not packages", () => {
    assert.deepEqual(edges, [
      { from: "src/base/a.ts", to: "src/limits.ts", typeOnly: false, dynamic: false },
      { from: "src/base/a.ts", to: "src/mid/m.ts", typeOnly: true, dynamic: false },
      { from: "src/mid/m.ts", to: "src/base/a.ts", typeOnly: false, dynamic: false },
      { from: "src/mid/up.ts", to: "src/top/t.ts", typeOnly: false, dynamic: true },
      { from: "src/top/t.ts", to: "src/mid/m.ts", typeOnly: false, dynamic: false },
    ]);
  });

  test("upwardImports lists each import from a lower layer to a higher one", () => {
    assert.deepEqual(upwardImports(edges, index).map((e) => `${e.from} -> ${e.to}`), [
      "src/base/a.ts -> src/mid/m.ts",
      "src/mid/up.ts -> src/top/t.ts",
    ]);
  });

  test("folderCycles reports each strongly connected set of folders with its edges", () => {
    assert.deepEqual(folderCycles(folderEdges(edges)), [
      {
        folders: ["base", "mid", "top"],
        edges: [
          { from: "base", to: "mid", count: 1 },
          { from: "mid", to: "base", count: 1 },
          { from: "mid", to: "top", count: 1 },
          { from: "top", to: "mid", count: 1 },
        ],
      },
    ]);
    assert.deepEqual(folderCycles([{ from: "top", to: "mid", count: 2 }, { from: "mid", to: "base", count: 1 }]), []);
  });

  test("routeSummary keeps first entries in order and counts steps up a layer", () => {
    const route = routeSummary(["src/top/t.ts", "src/mid/m.ts", "src/base/a.ts", "src/mid/m.ts", "src/mid/up.ts", "src/top/t.ts", "src/limits.ts"], index);
    assert.deepEqual(route.files.map((f) => f.file), ["src/top/t.ts", "src/mid/m.ts", "src/base/a.ts", "src/mid/up.ts", "src/limits.ts"]);
    assert.equal(route.fileCount, 5);
    assert.equal(route.returnsToHigherLayer, 1);
  });

  test("--json on the real tree: every folder has a layer, the checkout route is traced, four targets", () => {
    const bun = path.join(repoDir, "node_modules", ".bin", "bun");
    const result = spawnSync(bun, [path.join(repoDir, "scripts", "structure.ts"), "--json"], { cwd: repoDir, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
    assert.equal(result.status, 0, result.stderr);
    const report = JSON.parse(result.stdout) as StructureReport;
    assert.equal(report.schema, "zaxy.structure.v1");
    assert.deepEqual(report.unrankedFolders, []);
    assert.ok(report.fileCount > 100 && report.importCount > report.fileCount);
    assert.equal(report.upwardImports.count, report.upwardImports.imports.length);
    for (const e of report.upwardImports.imports) {
      assert.ok(report.layers.findIndex((l) => l.includes(e.fromFolder)) < report.layers.findIndex((l) => l.includes(e.toFolder)), `${e.from} -> ${e.to}`);
    }
    assert.equal(report.folderCycles.count, report.folderCycles.cycles.length);
    const route = report.checkoutRoute;
    assert.ok(route !== null);
    assert.equal(route.files[0].file, "src/memory/service.ts");
    assert.equal(route.fileCount, route.files.length);
    assert.ok(route.files.some((f) => f.folder === "checkout"), "the route reaches the checkout assembly");
    assert.ok(route.files.every((f) => f.file.startsWith("src/") && !f.file.startsWith("src/generated/") && f.layer >= 0));
    assert.deepEqual(report.targets.map((t) => t.name), [
      "checkout route files",
      "checkout route returns to a higher layer",
      "lower-to-higher imports",
      "folder-level cycles",
    ]);
    for (const t of report.targets) assert.equal(t.met, (t.actual as number) <= t.limit);
  });
});
