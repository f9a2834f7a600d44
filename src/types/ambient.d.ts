/**
 * What the type checker cannot find by itself (`npm run check`, tsconfig.json): Bun's FFI and
 * build API, used only where the code runs under Bun (src/platform/mod.ts's flock, build.ts), the
 * files the compiled binary embeds (`import path from "x.node" with { type: "file" }` gives the
 * file's path), kuzu-wasm's untyped JavaScript, which src/projection/kuzuRuntime.ts narrows
 * to the few members it calls, and TF.js as @energetic-ai/core bundles it. Only what the code
 * uses is declared.
 */

declare module "bun:ffi" {
  interface FfiSignature {
    args: string[];
    returns: string;
  }
  /** An argument of a foreign function: a number, or a typed array passed as a pointer to its bytes ("ptr"). */
  type FfiArgument = number | Uint8Array;
  export function dlopen<Symbols extends Record<string, FfiSignature>>(
    path: string,
    symbols: Symbols,
  ): { symbols: { [name in keyof Symbols]: (...args: FfiArgument[]) => number }; close(): void };
  export const read: { i32(pointer: never, byteOffset: number): number };
}

/** An embedded file: its path inside the binary (or on disk when run from source). */
/** A gzip-compressed embedded file (build.ts writes them to src/generated/assets/). */
declare module "*.gz" {
  const path: string;
  export default path;
}

declare module "*.node" {
  const path: string;
  export default path;
}

declare module "*.wasm" {
  const path: string;
  export default path;
}

/**
 * TF.js as bundled by @energetic-ai/core, the members src/semantic/semanticEmbedder.ts calls. The
 * package's own declarations re-export TF.js packages npm does not install, so they name none of
 * these; this declaration stands in for them.
 */
declare module "@energetic-ai/core" {
  export function env(): { set(flag: string, value: boolean): void };
  export function setWasmPaths(paths: Record<string, string>): void;
  export function setBackend(name: string): Promise<boolean>;
  export function ready(): Promise<void>;
  export function loadGraphModel(handler: unknown): Promise<unknown>;
  export const io: { fromMemory(artifacts: Record<string, unknown>): unknown };
  export function unregisterKernel(kernelName: string, backendName: string): void;
  export function registerKernel(config: { kernelName: string; backendName: string; kernelFunc: (args: never) => unknown }): void;
  export const util: { parseAxisParam(axis: number | number[], shape: number[]): number[] };
  export const backend_util: { prepareSplitSize(x: unknown, numOrSizeSplits: number | number[], axis: number): number[] };
}

declare module "*/kuzu-wasm/nodejs/kuzu/kuzu_wasm.js" {
  const moduleOrPath: unknown;
  export default moduleOrPath;
}

declare module "*/kuzu-wasm/nodejs/sync/index.js" {
  const sync: unknown;
  export default sync;
}

declare module "*/kuzu-wasm/nodejs/sync/kuzu.js" {
  const holder: unknown;
  export default holder;
}

interface ImportMeta {
  /** Bun: the directory of the current module (build.ts). */
  readonly dir: string;
}

/** Bun's bundler, as build.ts calls it. */
declare const Bun: {
  readonly version: string;
  build(options: Record<string, unknown>): Promise<{ success: boolean; logs: unknown[]; outputs: unknown[] }>;
};
