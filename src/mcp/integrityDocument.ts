/** The integrity report as MCP tools return it (the library report without its byte count). */
import type { IntegrityReport } from "../eventloom/mod.ts";

export interface IntegrityDocument {
  ok: boolean;
  total_events: number;
  broken_at_seq: number | null;
  broken_reason: string | null;
  code: IntegrityReport["code"];
  line: number | null;
  torn_tail: boolean;
  errors: IntegrityReport["errors"];
  /** Present when an append died mid-batch: its bytes are not committed (see the library report). */
  interrupted_append?: IntegrityReport["interrupted_append"];
}

export function integrityDocument(report: IntegrityReport): IntegrityDocument {
  return {
    ok: report.ok,
    total_events: report.total_events,
    broken_at_seq: report.broken_at_seq,
    broken_reason: report.broken_reason,
    code: report.code,
    line: report.line,
    torn_tail: report.torn_tail,
    errors: report.errors,
    ...(report.interrupted_append === undefined ? {} : { interrupted_append: report.interrupted_append }),
  };
}
