/**
 * `zaxy memory export [filters] [--sign [--key FILE]] [--output FILE]` and
 * `zaxy memory verify-export FILE [--key-id ID | --public-key FILE]` (src/memory/exportBundle.ts).
 */
import { defineCommand } from "../../command.ts";

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
    const { runMemoryExport } = await import("./exportBundleRun.ts");
    return await runMemoryExport(ctx);
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
    const { runMemoryVerifyExport } = await import("./exportBundleRun.ts");
    return await runMemoryVerifyExport(ctx);
  },
});
