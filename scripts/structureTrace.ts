/**
 * Preloaded by scripts/structure.ts (`bun --preload scripts/structureTrace.ts src/bin/zaxy.ts
 * memory checkout …`) to trace which src/ files a checkout passes through, in call order.
 *
 * A Bun loader plugin rewrites every src/ module (not src/generated/) as it loads: each function,
 * method and arrow function with a body first calls a global hook with its file's number. Text is
 * only inserted, never moved, so line numbers and behaviour stay as they were. Constructors of
 * derived classes are left alone (nothing may run before `super()` touches `this`). The hook
 * records only while `MemoryService.checkout` runs: from its call until its promise settles. At
 * exit the files entered (repeats of the same file in a row folded) are written as JSON to
 * `ZAXY_STRUCTURE_TRACE_FILE`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";

const srcDir = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..", "src");
const repoDir = path.dirname(srcDir);
const traceFile = process.env.ZAXY_STRUCTURE_TRACE_FILE;
const hookName = "__zaxyStructureEnter";

const files: string[] = [];
const entered: number[] = [];
let recording = false;

(globalThis as Record<string, unknown>)[hookName] = (fileNumber: number): void => {
  if (recording && entered[entered.length - 1] !== fileNumber) entered.push(fileNumber);
};

/** Where to insert what in one module's text so that every function notes its file on entry. */
function instrument(fileName: string, text: string, fileNumber: number): string {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const inserts: { at: number; text: string }[] = [];
  const call = `${hookName}(${fileNumber})`;
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
      const body = node.body as ts.Node;
      const derivedConstructor = ts.isConstructorDeclaration(node) &&
        (node.parent as ts.ClassLikeDeclaration).heritageClauses?.some((h) => h.token === ts.SyntaxKind.ExtendsKeyword) === true;
      if (ts.isBlock(body)) {
        if (!derivedConstructor) inserts.push({ at: body.getStart(source) + 1, text: `${call};` });
      } else {
        inserts.push({ at: body.getStart(source), text: `(${call}, ` }, { at: body.getEnd(), text: ")" });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  inserts.sort((a, b) => b.at - a.at);
  let out = text;
  for (const { at, text: piece } of inserts) out = out.slice(0, at) + piece + out.slice(at);
  return out;
}

/** The part of Bun's runtime plugin API used here (src/types/ambient.d.ts declares only what src/ uses). */
interface BunPluginHost {
  plugin(plugin: {
    name: string;
    setup(build: { onLoad(options: { filter: RegExp }, load: (args: { path: string }) => { contents: string; loader: "ts" }): void }): void;
  }): void;
}

const escaped = srcDir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
(Reflect.get(globalThis, "Bun") as BunPluginHost).plugin({
  name: "zaxy-structure-trace",
  setup(build) {
    build.onLoad({ filter: new RegExp(`^${escaped}/(?!generated/).*\\.ts$`) }, (args) => {
      const text = fs.readFileSync(args.path, "utf8");
      const fileNumber = files.push(path.relative(repoDir, args.path).split(path.sep).join("/")) - 1;
      return { contents: instrument(args.path, text, fileNumber), loader: "ts" };
    });
  },
});

const { MemoryService } = await import(path.join(srcDir, "memory", "service.ts"));
const checkout = MemoryService.prototype.checkout;
MemoryService.prototype.checkout = async function (this: unknown, ...args: unknown[]): Promise<unknown> {
  recording = true;
  try {
    return await checkout.apply(this, args);
  } finally {
    recording = false;
  }
};

process.on("exit", () => {
  if (traceFile !== undefined) fs.writeFileSync(traceFile, JSON.stringify({ entered: entered.map((n) => files[n]) }));
});
