/**
 * Self-diagnosis for `zaxy doctor`: what the process runs on and carries (`environmentReport`),
 * and an end-to-end check of usearch and Kuzu in a temporary directory (`runSelftest`).
 *
 * @example
 * ```ts
 * import { runSelftest } from "./src/diagnostics/mod.ts";
 * const report = await runSelftest();
 * if (!report.ok) console.error(report.steps.find((s) => !s.ok));
 * ```
 */
export { type EnvironmentReport, environmentReport, type RuntimeInfo, runtimeInfo } from "./environment.ts";
export { runSelftest, type SelftestReport, type SelftestStep } from "./selftest.ts";
