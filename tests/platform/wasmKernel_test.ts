/**
 * The one loader of the AssemblyScript kernels: each instance gets its own memory, the
 * kernel's failure hook throws "<name> kernel aborted", and an owner's extra imports reach it.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { canonicalWasmBase64 } from "../../src/generated/canonicalWasm.ts";
import { geometryWasmBase64 } from "../../src/generated/geometryWasm.ts";
import { vectorWasmBase64 } from "../../src/generated/vectorWasm.ts";
import { instantiateWasmKernel, type WasmKernelImports } from "../../src/platform/mod.ts";

interface KernelBase {
  memory: WebAssembly.Memory;
  heapBase(): number;
}

/**
 * A hand-assembled module shaped like a kernel: it imports `env.abort(i32, i32, i32, i32)` and
 * `env.twice(i32) -> i32`, and exports `trip()`, which calls abort, and `useTwice(x)`.
 */
const trippingModuleBase64 = Buffer.from([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  // types: 0 (i32 i32 i32 i32) -> (), 1 () -> (), 2 (i32) -> i32
  0x01, 0x10, 0x03, 0x60, 0x04, 0x7f, 0x7f, 0x7f, 0x7f, 0x00, 0x60, 0x00, 0x00, 0x60, 0x01, 0x7f, 0x01, 0x7f,
  // imports: env.abort (type 0), env.twice (type 2)
  0x02, 0x19, 0x02,
  0x03, 0x65, 0x6e, 0x76, 0x05, 0x61, 0x62, 0x6f, 0x72, 0x74, 0x00, 0x00,
  0x03, 0x65, 0x6e, 0x76, 0x05, 0x74, 0x77, 0x69, 0x63, 0x65, 0x00, 0x02,
  // functions: trip (type 1), useTwice (type 2)
  0x03, 0x03, 0x02, 0x01, 0x02,
  // exports: trip = func 2, useTwice = func 3
  0x07, 0x13, 0x02,
  0x04, 0x74, 0x72, 0x69, 0x70, 0x00, 0x02,
  0x08, 0x75, 0x73, 0x65, 0x54, 0x77, 0x69, 0x63, 0x65, 0x00, 0x03,
  // code: trip calls abort(0, 0, 0, 0); useTwice returns twice(x)
  0x0a, 0x15, 0x02,
  0x0c, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x10, 0x00, 0x0b,
  0x06, 0x00, 0x20, 0x00, 0x10, 0x01, 0x0b,
]).toString("base64");

describe("instantiateWasmKernel", () => {
  for (const [name, base64] of [["canonical", canonicalWasmBase64], ["vector", vectorWasmBase64], ["geometry", geometryWasmBase64]] as const) {
    test(`the ${name} kernel instantiates with its memory, a new memory per instance`, () => {
      const imports: WasmKernelImports = name === "canonical" ? { formatFloat: () => 0 } : {};
      const first = instantiateWasmKernel<KernelBase>(name, base64, imports);
      const second = instantiateWasmKernel<KernelBase>(name, base64, imports);
      assert.ok(first.memory instanceof WebAssembly.Memory);
      assert.ok(first.heapBase() > 0);
      assert.notEqual(first.memory, second.memory);
    });
  }

  test("a kernel's abort throws '<name> kernel aborted'; the owner's imports are called", () => {
    const kernel = instantiateWasmKernel<{ trip(): void; useTwice(x: number): number }>("tripping", trippingModuleBase64, {
      twice: (x: number) => 2 * x,
    });
    assert.throws(() => kernel.trip(), { message: "tripping kernel aborted" });
    assert.equal(kernel.useTwice(21), 42);
  });
});
