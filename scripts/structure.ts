/**
 * `bun scripts/structure.ts [--json] [--no-route]`: how the library's folders depend on each
 * other, measured against the layer order below (lowest first; STYLE.md "layers only point down").
 *
 * It reports, for src/ without src/generated/ (files directly in src/ form the folder "src"):
 * - every import (static, `export … from`, dynamic `import()`, type-only included: a lower layer
 *   that names a higher layer's types still knows about it) from a folder of a lower layer to a
 *   folder of a higher one, file → file;
 * - folder-level import cycles: the strongly connected components of the folder graph, with the
 *   folder edges inside each;
 * - the route of a checkout: the distinct src/ files `zaxy memory checkout` passes through once
 *   `MemoryService.checkout` is entered, in call order, and how many times that route goes from a
 *   file of a lower layer to one of a higher layer ("returns to a higher layer").
 *
 * The route is a call trace, not a sampled profile: Bun's `--cpu-prof` on this machine takes
 * about one sample per millisecond whatever the interval asked, so a 10 ms checkout yields a
 * different handful of frames on every run, and an async continuation's samples lose the caller
 * anyway. Instead the CLI runs from source under Bun with scripts/structureTrace.ts preloaded: it
 * instruments every src/ function at load to note its file on entry, and records from the call of
 * `MemoryService.checkout` until its promise settles. The sequence of files entered is the
 * depth-first order of the call tree; it is exact and the same on every run. The checkout runs
 * on a small root generated under the system temp directory (12 notes, one session), after one
 * untraced checkout has written the session's read model: the route is that of a warm checkout.
 *
 * Exit code 0 whatever the figures (this measures; tests/meta/structure_test.ts checks the shape).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import ts from "typescript";
import { settledChangeMs } from "../src/eventloom/verifiedCheckpoint.ts";

/**
 * Layers, lowest first; folders in one layer may import each other (cycles among them still
 * count). Foundation (errors, limits, ambient types) < runtime platform (files, binary files,
 * workers, build info) < canonical JSON and Python-compatible text < hash embeddings < the log <
 * event schemas (event types, payload readers, the rules a derived event must meet and the
 * producers of derived events, and the one appender holding zaxy's event rules) < the shared
 * store < graph projection < recording (appending with the projection's inference producers) <
 * per-session folds (pure replays of a session's events into the state the read side needs:
 * causal edges, consolidation candidates, rule statuses) < semantic embedders < retrieval (owns the session index and BM25)
 * < read model (the on-disk implementation of retrieval's session index) < checkout assembly
 * (owns the feature interface) < features < git hooks < the memory service that orchestrates
 * them < benchmarks, demo, diagnostics (callers of the service, run by the CLI) < MCP < config
 * settings (which know the front ends' policies) < CLI < entry points. DESIGN.md
 * puts features above the engine: eventloom/ and retrieval/ never import causal/,
 * consolidation/ or governance/; bench/ sits below cli/, which runs the benchmarks.
 */
export const layers: readonly (readonly string[])[] = [
  ["src", "types"],
  ["platform"],
  ["canonical"],
  ["vector"],
  ["eventloom"],
  ["events"],
  ["store"],
  ["projection"],
  ["recording"],
  ["folds"],
  ["semantic"],
  ["retrieval"],
  ["readmodel"],
  ["checkout"],
  ["causal", "consolidation", "governance", "fleet", "compaction"],
  ["hooks"],
  ["memory"],
  ["bench", "demo", "diagnostics"],
  ["mcp"],
  ["settings"],
  ["cli"],
  ["bin"],
];

/** The figures the structure should meet. */
export const targets = {
  checkoutRouteFilesMax: 25,
  checkoutRouteReturnsMax: 10,
  upwardImportsMax: 4,
  folderCyclesMax: 0,
} as const;

export interface ImportEdge {
  /** Importing file, relative to the repository ("src/memory/service.ts"). */
  from: string;
  /** Imported file, relative to the repository. */
  to: string;
  typeOnly: boolean;
  dynamic: boolean;
}

export interface FolderEdge {
  from: string;
  to: string;
  count: number;
}

export interface FolderCycle {
  folders: string[];
  edges: FolderEdge[];
}

export interface CheckoutRoute {
  files: { file: string; folder: string; layer: number }[];
  fileCount: number;
  returnsToHigherLayer: number;
}

export interface StructureReport {
  schema: "zaxy.structure.v1";
  layers: string[][];
  unrankedFolders: string[];
  fileCount: number;
  importCount: number;
  upwardImports: { count: number; imports: (ImportEdge & { fromFolder: string; toFolder: string })[] };
  folderCycles: { count: number; cycles: FolderCycle[] };
  checkoutRoute: (CheckoutRoute & { method: string }) | null;
  targets: { name: string; limit: number; actual: number | null; met: boolean | null }[];
}

/** The folder a repository-relative src/ file belongs to: `src/a/b.ts` → "a", `src/x.ts` → "src". */
export function folderOf(file: string): string {
  const parts = file.split("/");
  return parts.length <= 2 ? "src" : parts[1];
}

/** Folder → layer index (0 lowest). */
export function layerIndex(order: readonly (readonly string[])[] = layers): Map<string, number> {
  const index = new Map<string, number>();
  order.forEach((folders, i) => folders.forEach((f) => index.set(f, i)));
  return index;
}

/** Every .ts file under `repoDir/src`, repository-relative, without src/generated/, sorted. */
export function sourceFiles(repoDir: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const rel = path.relative(repoDir, full).split(path.sep).join("/");
      if (entry.isDirectory()) {
        if (rel !== "src/generated") walk(full);
      } else if (entry.name.endsWith(".ts")) {
        out.push(rel);
      }
    }
  };
  walk(path.join(repoDir, "src"));
  return out.sort();
}

/** The relative module specifiers a file imports, with how. */
function importSpecifiers(file: string, text: string): { specifier: string; typeOnly: boolean; dynamic: boolean }[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: { specifier: string; typeOnly: boolean; dynamic: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly = clause !== undefined && (clause.isTypeOnly ||
        (clause.name === undefined && clause.namedBindings !== undefined && ts.isNamedImports(clause.namedBindings) &&
          clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      out.push({ specifier: node.moduleSpecifier.text, typeOnly, dynamic: false });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
      out.push({ specifier: node.moduleSpecifier.text, typeOnly: node.isTypeOnly, dynamic: false });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg !== undefined && ts.isStringLiteralLike(arg)) out.push({ specifier: arg.text, typeOnly: false, dynamic: true });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      out.push({ specifier: node.argument.literal.text, typeOnly: true, dynamic: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/**
 * The imports between the given src/ files (relative specifiers that land on one of them; npm
 * packages, node: modules and src/generated/ are left out). `readText` reads a
 * repository-relative file.
 */
export function importEdges(files: readonly string[], readText: (file: string) => string): ImportEdge[] {
  const known = new Set(files);
  const edges: ImportEdge[] = [];
  for (const file of files) {
    for (const { specifier, typeOnly, dynamic } of importSpecifiers(file, readText(file))) {
      if (!specifier.startsWith(".")) continue;
      let target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
      if (target.endsWith(".js") && !known.has(target)) target = target.slice(0, -3) + ".ts";
      if (known.has(target)) edges.push({ from: file, to: target, typeOnly, dynamic });
    }
  }
  return edges;
}

/** Imports from a folder of a lower layer to a folder of a higher one; unranked folders are skipped. */
export function upwardImports(edges: readonly ImportEdge[], index: Map<string, number>): (ImportEdge & { fromFolder: string; toFolder: string })[] {
  const out: (ImportEdge & { fromFolder: string; toFolder: string })[] = [];
  for (const edge of edges) {
    const fromFolder = folderOf(edge.from);
    const toFolder = folderOf(edge.to);
    const a = index.get(fromFolder);
    const b = index.get(toFolder);
    if (a !== undefined && b !== undefined && a < b) out.push({ ...edge, fromFolder, toFolder });
  }
  return out;
}

/** Folder → folder import counts, without a folder's imports of itself, sorted. */
export function folderEdges(edges: readonly ImportEdge[]): FolderEdge[] {
  const counts = new Map<string, FolderEdge>();
  for (const edge of edges) {
    const from = folderOf(edge.from);
    const to = folderOf(edge.to);
    if (from === to) continue;
    const key = `${from}\0${to}`;
    const entry = counts.get(key) ?? { from, to, count: 0 };
    entry.count += 1;
    counts.set(key, entry);
  }
  return [...counts.values()].sort((x, y) => (x.from === y.from ? (x.to < y.to ? -1 : 1) : x.from < y.from ? -1 : 1));
}

/** The strongly connected components of the folder graph with more than one folder (Tarjan). */
export function folderCycles(edges: readonly FolderEdge[]): FolderCycle[] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) {
    next.set(from, [...(next.get(from) ?? []), to]);
    if (!next.has(to)) next.set(to, []);
  }
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  // The folder graph has a few dozen nodes, so recursion depth is bounded by that.
  const connect = (v: string): void => {
    order.set(v, order.size);
    low.set(v, order.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v)!) {
      if (!order.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, order.get(w)!));
      }
    }
    if (low.get(v) === order.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const v of [...next.keys()].sort()) if (!order.has(v)) connect(v);
  return components
    .sort((a, b) => b.length - a.length || (a[0] < b[0] ? -1 : 1))
    .map((folders) => ({ folders, edges: edges.filter((e) => folders.includes(e.from) && folders.includes(e.to)) }));
}

/**
 * A route's figures from the files entered in call order (repeats allowed): the distinct files in
 * order of first entry, and how many times that sequence steps from a lower layer to a higher one.
 */
export function routeSummary(entered: readonly string[], index: Map<string, number>): CheckoutRoute {
  const seen = new Set<string>();
  const files: CheckoutRoute["files"] = [];
  for (const file of entered) {
    if (seen.has(file)) continue;
    seen.add(file);
    const folder = folderOf(file);
    files.push({ file, folder, layer: index.get(folder) ?? -1 });
  }
  let returnsToHigherLayer = 0;
  for (let i = 1; i < files.length; i++) if (files[i].layer > files[i - 1].layer) returnsToHigherLayer += 1;
  return { files, fileCount: files.length, returnsToHigherLayer };
}

/** Runs a `zaxy` command from source under Bun; throws with its stderr when it fails. */
function runZaxy(repoDir: string, args: string[], env: NodeJS.ProcessEnv, input?: string, preload?: string): void {
  const bun = path.join(repoDir, "node_modules", ".bin", "bun");
  const argv = [...(preload === undefined ? [] : ["--preload", preload]), path.join(repoDir, "src", "bin", "zaxy.ts"), ...args];
  const result = spawnSync(bun, argv, { cwd: repoDir, env, input, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`zaxy ${args.join(" ")} exited ${result.status}: ${result.stderr}`);
}

/** The files `zaxy memory checkout` enters once MemoryService.checkout is called, in call order. */
export function traceCheckoutRoute(repoDir: string): string[] {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-structure-"));
  try {
    const root = path.join(work, "root");
    const traceFile = path.join(work, "trace.json");
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: work, ZAXY_STRUCTURE_TRACE_FILE: traceFile };
    delete env.EVENTLOOM_PATH;
    delete env.ZAXY_STORE;
    runZaxy(repoDir, ["init", "--eventloom-path", root, "-q"], env);
    const notes = Array.from({ length: 12 }, (_, i) =>
      JSON.stringify({ event_type: "task.note", actor: "agent", payload: { title: `note ${i + 1} about caching and the release`, detail: `step ${i + 1}` } }));
    runZaxy(repoDir, ["memory", "ingest", "-", "--eventloom-path", root, "--session-id", "s1", "-q"], env, `${notes.join("\n")}\n`);
    const checkout = ["memory", "checkout", "release caching", "--eventloom-path", root, "--session-id", "s1", "--json", "-q"];
    // The route traced is the steady state: the first read of a session writes its read model,
    // and the verified checkpoint records the log's file identity only once the log's last change
    // is settledChangeMs old, so that read runs after it (else the traced read would record it).
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, settledChangeMs + 200);
    runZaxy(repoDir, checkout, env);
    runZaxy(repoDir, checkout, env, undefined, path.join(repoDir, "scripts", "structureTrace.ts"));
    const trace = JSON.parse(fs.readFileSync(traceFile, "utf8")) as { entered: string[] };
    return trace.entered;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** The whole report for the repository at `repoDir`; the route only when `withRoute`. */
export function structureReport(repoDir: string, withRoute: boolean): StructureReport {
  const files = sourceFiles(repoDir);
  const edges = importEdges(files, (file) => fs.readFileSync(path.join(repoDir, file), "utf8"));
  const index = layerIndex();
  const folders = [...new Set(files.map(folderOf))].sort();
  const upward = upwardImports(edges, index);
  const cycles = folderCycles(folderEdges(edges));
  const route = withRoute ? { method: "call trace (scripts/structureTrace.ts under Bun)", ...routeSummary(traceCheckoutRoute(repoDir), index) } : null;
  const check = (name: string, limit: number, actual: number | null) => ({ name, limit, actual, met: actual === null ? null : actual <= limit });
  return {
    schema: "zaxy.structure.v1",
    layers: layers.map((l) => [...l]),
    unrankedFolders: folders.filter((f) => !index.has(f)),
    fileCount: files.length,
    importCount: edges.length,
    upwardImports: { count: upward.length, imports: upward },
    folderCycles: { count: cycles.length, cycles },
    checkoutRoute: route,
    targets: [
      check("checkout route files", targets.checkoutRouteFilesMax, route?.fileCount ?? null),
      check("checkout route returns to a higher layer", targets.checkoutRouteReturnsMax, route?.returnsToHigherLayer ?? null),
      check("lower-to-higher imports", targets.upwardImportsMax, upward.length),
      check("folder-level cycles", targets.folderCyclesMax, cycles.length),
    ],
  };
}

/** The report as text for a person. */
export function renderReport(report: StructureReport): string {
  const lines: string[] = [];
  lines.push(`Layers (lowest first): ${report.layers.map((l) => l.join("/")).join(" < ")}`);
  if (report.unrankedFolders.length > 0) lines.push(`Folders without a layer: ${report.unrankedFolders.join(", ")}`);
  lines.push(`${report.fileCount} files, ${report.importCount} imports between them`, "");
  lines.push(`Lower-to-higher imports: ${report.upwardImports.count}`);
  for (const e of report.upwardImports.imports) {
    lines.push(`  ${e.from} -> ${e.to}${e.typeOnly ? " (type only)" : ""}${e.dynamic ? " (dynamic)" : ""}`);
  }
  lines.push("", `Folder-level cycles: ${report.folderCycles.count}`);
  for (const cycle of report.folderCycles.cycles) {
    lines.push(`  ${cycle.folders.length} folders: ${cycle.folders.join(", ")}`);
    lines.push(`    edges: ${cycle.edges.map((e) => `${e.from}->${e.to} ${e.count}`).join(", ")}`);
  }
  if (report.checkoutRoute !== null) {
    const route = report.checkoutRoute;
    lines.push("", `Checkout route (${route.method}): ${route.fileCount} files, ${route.returnsToHigherLayer} returns to a higher layer`);
    let previous = -1;
    for (const f of route.files) {
      lines.push(`  ${f.layer > previous && previous >= 0 ? "^" : " "} [${f.layer}] ${f.file}`);
      previous = f.layer;
    }
  }
  lines.push("", "Targets:");
  for (const t of report.targets) {
    const verdict = t.met === null ? "not measured" : t.met ? "met" : "NOT met";
    lines.push(`  ${t.name}: ${t.actual ?? "-"} (at most ${t.limit}) ${verdict}`);
  }
  return lines.join("\n");
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const unknown = args.filter((a) => a !== "--json" && a !== "--no-route");
  if (unknown.length > 0) {
    console.error(`structure: unknown argument ${JSON.stringify(unknown[0])}; expected --json and/or --no-route`);
    process.exit(2);
  }
  const repoDir = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
  const report = structureReport(repoDir, !args.includes("--no-route"));
  console.log(args.includes("--json") ? JSON.stringify(report, null, 2) : renderReport(report));
}
