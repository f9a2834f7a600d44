/**
 * Instantiates the AssemblyScript kernels (wasm/canonical.ts, wasm/vector.ts, wasm/geometry.ts)
 * from the bytes build.ts embeds, base64-encoded, in `src/generated/<name>Wasm.ts`. Each owner
 * (src/canonical/wasmKernel.ts, src/vector/hashEmbedding.ts, src/vector/geometry.ts,
 * src/vector/tokenBuckets.ts) passes its own bytes, so loading one kernel never decodes
 * another's.
 *
 * A kernel's module is compiled once per process and cached by name; every instance gets its own
 * linear memory. The kernels import `env.abort`, AssemblyScript's failure hook: they are built
 * with `--noAssert`, so a call means a kernel bug, reported as "<name> kernel aborted". An owner
 * adds its other imports (the canonical kernel's `formatFloat`) in `env`.
 *
 * kuzu-wasm and TF.js's WebAssembly backend do not come through here: their Emscripten glue
 * compiles and instantiates its own module from a file (src/projection/kuzuRuntime.ts,
 * src/semantic/semanticEmbedder.ts).
 *
 * @example
 * ```ts
 * import { vectorWasmBase64 } from "../generated/vectorWasm.ts";
 * const kernel = instantiateWasmKernel<{ memory: WebAssembly.Memory; heapBase(): number }>("vector", vectorWasmBase64);
 * kernel.heapBase(); // first free byte of this instance's memory
 * ```
 */

/** Functions a kernel imports from `env` besides `abort`, by name. */
export type WasmKernelImports = Record<string, (...args: number[]) => number | void>;

const compiledKernels = new Map<string, WebAssembly.Module>();

/** The compiled module of kernel `name`, decoded from `base64` on first use. */
function compiledKernel(name: string, base64: string): WebAssembly.Module {
  let compiled = compiledKernels.get(name);
  if (compiled === undefined) {
    compiled = new WebAssembly.Module(new Uint8Array(Buffer.from(base64, "base64")) as BufferSource);
    compiledKernels.set(name, compiled);
  }
  return compiled;
}

/**
 * A new instance of kernel `name` (its own memory), its exports typed as `Exports`. `base64` is
 * the kernel's embedded module; `env` holds the kernel's imports other than `abort`.
 */
export function instantiateWasmKernel<Exports>(name: string, base64: string, env: WasmKernelImports = {}): Exports {
  const instance = new WebAssembly.Instance(compiledKernel(name, base64), {
    env: {
      ...env,
      abort: () => {
        throw new Error(`${name} kernel aborted`);
      },
    },
  });
  // The exports' names and signatures live in the compiled kernel, out of the type checker's sight.
  return instance.exports as Exports;
}
