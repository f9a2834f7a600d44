/**
 * `zaxy memory export [filters] [--sign [--key FILE]] [--output FILE]` and
 * `zaxy memory verify-export FILE [--key-id ID | --public-key FILE]` (src/memory/exportBundle.ts).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { inputError, ioError } from "../../../errors.ts";
import { fileSystemReason } from "../../../eventloom/root.ts";
import { openRegularFile } from "../../../platform/regularFile.ts";

/** The largest bundle verify-export reads (exports are at most 100,000 lines). */
const bundleBytesMax = 4 * 2 ** 30;
import { intOption } from "../../args.ts";
import { booleanOption, defineCommand, listOption, stringOption } from "../../command.ts";
import { emit } from "../../output.ts";

export const memoryExportCommand = defineCommand({
  name: "export",
  summary: "Export a session as a portable, optionally signed bundle (as MCP memory_export)",
  description:
    "Verifies the session's log, then writes a zaxy.export.v1 bundle: each selected event's exact\n" +
    "line (its seal can be recomputed anywhere), the filters, what was left out, and with --sign\n" +
    "an Ed25519 signature (the root's export key <root>/keys/export-ed25519.pkcs8, created 0600 on\n" +
    "first use, or --key FILE). --output FILE is written atomically; without it the bundle goes to\n" +
    "stdout. Check a bundle with `zaxy memory verify-export`.",
  options: {
    "since-seq": { type: "string", valueName: "N", description: "First seq to include" },
    "max-seq": { type: "string", valueName: "N", description: "Last seq to include" },
    "since-time": { type: "string", valueName: "ISO", description: "Events at or after this time" },
    "until-time": { type: "string", valueName: "ISO", description: "Events at or before this time" },
    kind: { type: "string", multiple: true, valueName: "TYPE", description: "Event types to include (repeatable; default all)" },
    "exclude-sensitivity": { type: "string", multiple: true, valueName: "S", description: "Leave out events of this sensitivity (e.g. restricted)" },
    limit: { type: "string", valueName: "N", description: "Events at most, earliest first" },
    sign: { type: "boolean", description: "Sign the bundle with Ed25519" },
    key: { type: "string", valueName: "FILE", description: "Ed25519 private key (PKCS#8 DER or PEM) to sign with" },
    output: { type: "string", valueName: "FILE", description: "Write the bundle here (atomically) instead of stdout" },
  },
  positionals: [],
  examples: ["zaxy memory export --sign --output session.bundle.json", "zaxy memory export --kind decision.made --exclude-sensitivity restricted --since-time 2026-11-01T00:00:00Z"],
  async run(ctx) {
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
  },
});

export const memoryVerifyExportCommand = defineCommand({
  name: "verify-export",
  store: "self",
  summary: "Check an export bundle: every event's seal, the links, the signature",
  description:
    "Recomputes every event's seal from its line, checks the links between events with\n" +
    "consecutive seqs, the bundle's digest and its Ed25519 signature. --key-id ID or\n" +
    "--public-key FILE pins the signer (else the report says it is not pinned). Exit 1 when\n" +
    "anything does not verify. --json prints {ok, session_id, event_count, events_verified,\n" +
    "links_checked, signed, signature_valid, key_id, signer_pinned, problems}.",
  options: {
    "key-id": { type: "string", valueName: "ID", description: "The signer's key id (16 hex) the bundle must carry" },
    "public-key": { type: "string", valueName: "FILE", description: "The signer's Ed25519 public key (raw, base64 or PEM)" },
  },
  positionals: [{ name: "FILE", description: "An export bundle", required: true }],
  examples: ["zaxy memory verify-export session.bundle.json --key-id 3f2a9c0d11e4b7a8"],
  async run(ctx) {
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
  },
});
