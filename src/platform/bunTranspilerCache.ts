/**
 * Bun caches what it transpiles for large CommonJS files it `require`s from the real file system
 * (the Kuzu glue, and again in each of its pthread workers) under
 * `$HOME/.bun/install/cache/@t@/*.pile`. Zaxy never writes under `$HOME` uninvited, so before
 * the glue is loaded the cache is turned off, unless the user set
 * `BUN_RUNTIME_TRANSPILER_CACHE_PATH` themselves.
 *
 * Bun reads that variable from the C environment when it first needs the cache, and
 * `process.env` assignments in Bun do not reach the C environment, so it is set with libc's
 * `setenv` (checked: `zaxy graph sync` with a fresh HOME leaves it empty). Only Bun has the
 * cache; elsewhere this does nothing.
 */
import { runtimeName } from "./mod.ts";

let disabled = false;

export async function disableBunTranspilerCache(): Promise<void> {
  if (disabled || runtimeName !== "bun") return;
  disabled = true;
  const name = "BUN_RUNTIME_TRANSPILER_CACHE_PATH";
  if (process.env[name] !== undefined) return;
  const ffi = await import("bun:ffi");
  const lib = ffi.dlopen(process.platform === "darwin" ? "libc.dylib" : "libc.so.6", {
    setenv: { args: ["ptr", "ptr", "i32"], returns: "i32" },
  });
  try {
    lib.symbols.setenv(new TextEncoder().encode(`${name}\0`), new TextEncoder().encode("0\0"), 0);
    process.env[name] = "0";
  } finally {
    lib.close();
  }
}
