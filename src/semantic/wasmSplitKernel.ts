/**
 * TF.js's `SplitV` for its WASM backend, copying each part straight from the input's place in
 * the WASM heap. The kernel TF.js ships reads the whole input back into a fresh JavaScript array
 * once per part (three 3 MB copies per transformer layer for a read's 11 facts), garbage that
 * lands on the peak of a read that embeds facts: on the bench's 1,000,000-event session memory rose
 * ~45 MB during such a batch with it and ~20 MB without; a first read of the long-note 1M session
 * peaked 10-15 MB higher with it. The parts hold the same float32 bits either way: both kernels
 * only copy (tests/semantic/semanticEmbedder_test.ts holds the vectors frozen).
 *
 * Registered by semanticEmbedder.ts once the backend is up (`registerWasmSplitKernel`).
 *
 * @example
 * await tf.setBackend("wasm");
 * registerWasmSplitKernel(tf);
 */

/** A tensor as a kernel sees it. */
interface KernelTensor {
  shape: number[];
  dtype: string;
  dataId: object;
}

/** The WASM backend's members the kernel uses. */
interface WasmBackend {
  makeOutput(shape: number[], dtype: string): KernelTensor;
  /** A view of the tensor's bytes in the WASM heap (valid until the heap grows). */
  typedArrayFromHeap(tensor: KernelTensor): Float32Array | Int32Array | Uint8Array;
}

/** The TF.js functions registering the kernel needs (`@energetic-ai/core` exports them). */
export interface TfKernelRegistry {
  unregisterKernel(kernelName: string, backendName: string): void;
  registerKernel(config: { kernelName: string; backendName: string; kernelFunc: (args: never) => unknown }): void;
  util: { parseAxisParam(axis: number | number[], shape: number[]): number[] };
  backend_util: { prepareSplitSize(x: KernelTensor, numOrSizeSplits: number | number[], axis: number): number[] };
}

function product(values: readonly number[]): number {
  return values.reduce((total, value) => total * value, 1);
}

/** Replaces the WASM backend's `SplitV` with the copy-in-place one (see the module comment). */
export function registerWasmSplitKernel(tf: TfKernelRegistry): void {
  const kernelFunc = (args: { inputs: { x: KernelTensor }; attrs: { numOrSizeSplits: number | number[]; axis: number | number[] }; backend: WasmBackend }) => {
    const { inputs: { x }, attrs, backend } = args;
    if (x.dtype === "string") throw new Error("SplitV: string tensors are not supported by this kernel");
    const axis = tf.util.parseAxisParam(attrs.axis, x.shape)[0];
    const sizes = tf.backend_util.prepareSplitSize(x, attrs.numOrSizeSplits, axis);
    const outerCount = product(x.shape.slice(0, axis));
    const innerCount = product(x.shape.slice(axis + 1));
    const axisLength = x.shape[axis];
    let begin = 0;
    return sizes.map((size) => {
      const shape = x.shape.slice();
      shape[axis] = size;
      const out = backend.makeOutput(shape, x.dtype);
      // Views only after makeOutput: allocating may grow the heap, which detaches older views.
      const from = backend.typedArrayFromHeap(x);
      const to = backend.typedArrayFromHeap(out);
      for (let outer = 0; outer < outerCount; outer++) {
        const start = (outer * axisLength + begin) * innerCount;
        to.set(from.subarray(start, start + size * innerCount), outer * size * innerCount);
      }
      begin += size;
      return out;
    });
  };
  tf.unregisterKernel("SplitV", "wasm");
  tf.registerKernel({ kernelName: "SplitV", backendName: "wasm", kernelFunc });
}
