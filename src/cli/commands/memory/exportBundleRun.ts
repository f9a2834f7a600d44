/** What exportBundle.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import type { CommandContext } from "../../command.ts";
import * as fs from "node:fs";
import * as path from "node:path";
import { inputError, ioError } from "../../../errors.ts";
import { fileSystemReason } from "../../../eventloom/root.ts";
import { openRegularFile } from "../../../platform/mod.ts";
import { intOption } from "../../args.ts";
import { booleanOption, listOption, stringOption } from "../../command.ts";
import { emit } from "../../output.ts";

/** The largest bundle verify-export reads (exports are at most 100,000 lines). */
const bundleBytesMax = 4 * 2 ** 30;

export async function runMemoryExport(ctx: CommandContext): Promise<number> {
  const { exportSession } = await import("../../../memory/exportBundle.ts");
  const keyFile = stringOption(ctx, "key");
  if (keyFile !== undefined && !booleanOption(ctx, "sign")) throw inputError("usage", "zaxy memory export: --key goes with --sign", { field: "--key" });
  const bundle = await exportSession(ctx.global.eventloomPath, ctx.global.sessionId, {
    sinceSeq: intOption(ctx, "since-seq", 1),
    maxSeq: intOption(ctx, "max-seq", 1),
    sinceTime: stringOption(ctx, "since-time"),
    untilTime: stringOption(ctx, "until-time"),
    kinds: listOption(ctx, "kind"),
    excludeSensitivities: listOption(ctx, "exclude-sensitivity"),
    limit: intOption(ctx, "limit", 1, 100_000),
  }, { sign: booleanOption(ctx, "sign"), keyFile });
  const output = stringOption(ctx, "output");
  const text = JSON.stringify(bundle) + "\n";
  if (output === undefined) {
    ctx.io.stdout(text);
    return 0;
  }
  const temp = path.join(path.dirname(path.resolve(output)), `.${path.basename(output)}.tmp-${process.pid}`);
  try {
    fs.writeFileSync(temp, text, { mode: 0o600 });
    fs.renameSync(temp, output);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw ioError("write_failed", `Cannot write ${output}: ${fileSystemReason(error)}`, { field: "--output" });
  }
  emit(ctx, "zaxy.memory.export.v1", { output, session_id: bundle.session_id, event_count: bundle.event_count, excluded: bundle.excluded, signed: bundle.signature !== undefined, key_id: bundle.signature?.key_id ?? null }, () =>
    `Exported ${bundle.event_count} events of session ${bundle.session_id} to ${output}${bundle.signature === undefined ? "" : ` (signed, key ${bundle.signature.key_id})`}`);
  return 0;
}

export async function runMemoryVerifyExport(ctx: CommandContext): Promise<number> {
  const { keyIdOfPublicKeyFile, verifyExportBundle } = await import("../../../memory/exportBundle.ts");
  const file = ctx.positionals[0];
  // A FIFO or a device (/dev/zero) would block or never end: only a regular file of bounded size is read.
  const opened = openRegularFile(file);
  if (!opened.ok) throw inputError("invalid_bundle", `Cannot read ${file}: ${opened.reason}`, { field: "FILE", expected: "a regular file" });
  let bundle: unknown;
  try {
    if (opened.sizeBytes > bundleBytesMax) throw new Error(`it is ${opened.sizeBytes} bytes; bundles are at most ${bundleBytesMax}`);
    bundle = JSON.parse(fs.readFileSync(opened.fd, "utf8"));
  } catch (error) {
    throw inputError("invalid_bundle", `Cannot read ${file} as a JSON export bundle: ${(error as Error).message}`, { field: "FILE" });
  } finally {
    fs.closeSync(opened.fd);
  }
  const publicKey = stringOption(ctx, "public-key");
  const expectedKeyId = stringOption(ctx, "key-id") ?? (publicKey === undefined ? undefined : keyIdOfPublicKeyFile(publicKey));
  const report = await verifyExportBundle(bundle, { expectedKeyId });
  emit(ctx, "zaxy.memory.verify_export.v1", report, () =>
    report.ok
      ? `OK  ${report.event_count} events (${report.links_checked} links)${report.signed ? `, signature valid (key ${report.key_id}${report.signer_pinned ? ", pinned" : ", not pinned: pass --key-id or --public-key"})` : ", unsigned"}`
      : `BROKEN  ${report.problems.join("; ")}`);
  return report.ok ? 0 : 1;
}
