/**
 * `zaxy doctor [--selftest]` (hidden): what this binary carries, and with `--selftest` an
 * end-to-end check of usearch and Kuzu. Exit 0 when everything passed, 1 when a check failed.
 * The diagnostics module is imported only when the command runs, so registering the command
 * costs nothing at start-up.
 */
import { ExitCode } from "../../../errors.ts";
import { booleanOption, defineCommand } from "../../command.ts";
import { emit } from "../../output.ts";
import type { EnvironmentReport, SelftestReport } from "../../../diagnostics/mod.ts";

function renderEnvironment(report: EnvironmentReport): string {
  const lines = [
    `zaxy ${report.version} on ${report.runtime.name} ${report.runtime.version} (${report.platform})`,
    report.embedded ? "embedded assets:" : "no embedded assets (running from source; loaders use node_modules)",
  ];
  for (const asset of report.assets) {
    const stored = asset.encoding === "gzip" && asset.stored_bytes !== null ? ` (${asset.stored_bytes} gzip)` : "";
    lines.push(`  ${asset.name.padEnd(24)} ${asset.bytes === null ? "?" : String(asset.bytes).padStart(10)} bytes${stored}  ${asset.path}`);
  }
  lines.push(`cache directory: ${report.cache_dir}`);
  if (report.kuzu_glue_cache !== null) {
    const state = report.kuzu_glue_cache.exists ? "present" : "not written yet";
    lines.push(`kuzu glue cache: ${report.kuzu_glue_cache.path} (${state})`);
  }
  return lines.join("\n");
}

function describeDetail(detail: Record<string, unknown> | undefined): string {
  if (detail === undefined) return "";
  return Object.entries(detail)
    .map(([key, value]) => `${key}=${typeof value === "object" && value !== null ? JSON.stringify(value) : String(value)}`)
    .join(" ");
}

function renderSelftest(report: SelftestReport): string {
  const lines = [`zaxy ${report.version} selftest on ${report.runtime.name} ${report.runtime.version} (${report.platform})`];
  const width = Math.max(...report.steps.map((s) => s.step.length));
  for (const step of report.steps) {
    const status = step.ok ? "ok  " : "FAIL";
    const ms = `${step.ms.toFixed(1)} ms`.padStart(10);
    const tail = step.ok ? describeDetail(step.detail) : `${step.message ?? ""}${step.hint ? ` (hint: ${step.hint})` : ""}`;
    lines.push(`  ${status} ${step.step.padEnd(width)} ${ms}  ${tail}`);
  }
  const failed = report.steps.filter((s) => !s.ok).length;
  lines.push(failed === 0 ? "all checks passed" : `${failed} check${failed === 1 ? "" : "s"} failed`);
  return lines.join("\n");
}

export const doctorCommand = defineCommand({
  name: "doctor",
  store: "self",
  summary: "Report embedded assets; --selftest checks usearch and Kuzu end to end",
  description:
    "Reports the runtime, the assets embedded in this binary and the cache file the Kuzu glue is\n" +
    "copied to. With --selftest, builds, saves and reloads a usearch index and writes, reopens\n" +
    "and reads a file-backed Kuzu database in a temporary directory, timing each step.",
  hidden: true,
  options: {
    selftest: { type: "boolean", description: "Run the usearch and Kuzu end-to-end checks" },
  },
  positionals: [],
  examples: ["zaxy doctor", "zaxy doctor --selftest --json"],
  async run(ctx) {
    const diagnostics = await import("../../../diagnostics/mod.ts");
    if (booleanOption(ctx, "selftest")) {
      const report = await diagnostics.runSelftest();
      emit(ctx, "zaxy.doctor.v1", { mode: "selftest", ...report }, () => renderSelftest(report));
      return report.ok ? ExitCode.ok : ExitCode.checkFailed;
    }
    let report: EnvironmentReport;
    try {
      report = diagnostics.environmentReport();
    } catch (error) {
      const failure = { ok: false, step: "environment", message: error instanceof Error ? error.message : String(error) };
      emit(ctx, "zaxy.doctor.v1", { mode: "environment", ...failure }, () => `FAIL environment: ${failure.message}`);
      return ExitCode.checkFailed;
    }
    emit(ctx, "zaxy.doctor.v1", { mode: "environment", ok: true, ...report }, () => renderEnvironment(report));
    return ExitCode.ok;
  },
});
