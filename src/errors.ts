/**
 * Expected failures are values with a fixed snake_case `code`, never derived from message text.
 * The CLI maps them to exit codes; MCP maps them to `{error: {code, message, remediation}}`.
 */

/** Process exit codes shared by every command. */
export const ExitCode = {
  ok: 0,
  /** The check said no: broken chain, torn tail, unsafe audit, rejected promotion. */
  checkFailed: 1,
  /** Bad input or usage. Nothing was written. */
  badInput: 2,
  /** I/O or internal error. */
  ioError: 3,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export interface ZaxyErrorDetails {
  /**
   * Field or argument the error is about. Library code names it by its key (`from_seq`, as MCP
   * arguments and JSON documents do) and quotes that key in the message (`` `from_seq` ``); each
   * front door renames it (`fieldsNamedBy`): the CLI to its flag (`--from-seq`).
   */
  field?: string;
  /** 1-based line number in a JSONL file. */
  line?: number;
  expected?: string;
  actual?: string;
  hint?: string;
}

/** An expected failure: bad input, corrupt log, busy lock, unreadable file. */
export class ZaxyError extends Error {
  readonly code: string;
  readonly exitCode: ExitCode;
  readonly details: ZaxyErrorDetails;

  constructor(code: string, message: string, exitCode: ExitCode, details: ZaxyErrorDetails = {}) {
    super(message);
    this.name = "ZaxyError";
    this.code = code;
    this.exitCode = exitCode;
    this.details = details;
  }

  get hint(): string | undefined {
    return this.details.hint;
  }

  toJSON(): { code: string; message: string; hint?: string; field?: string; line?: number } {
    const out: { code: string; message: string; hint?: string; field?: string; line?: number } = {
      code: this.code,
      message: this.message,
    };
    if (this.details.hint !== undefined) out.hint = this.details.hint;
    if (this.details.field !== undefined) out.field = this.details.field;
    if (this.details.line !== undefined) out.line = this.details.line;
    return out;
  }
}

/** Bad input (exit 2). */
export function inputError(code: string, message: string, details: ZaxyErrorDetails = {}): ZaxyError {
  return new ZaxyError(code, message, ExitCode.badInput, details);
}

/** I/O failure (exit 3). */
export function ioError(code: string, message: string, details: ZaxyErrorDetails = {}): ZaxyError {
  return new ZaxyError(code, message, ExitCode.ioError, details);
}

/** The check said no (exit 1). */
export function checkError(code: string, message: string, details: ZaxyErrorDetails = {}): ZaxyError {
  return new ZaxyError(code, message, ExitCode.checkFailed, details);
}

/** How a front door names a field key (`from_seq` → `--from-seq`); undefined keeps the key. */
export type FieldNamer = (key: string) => string | undefined;

const quotedFieldKey = /`([a-z][a-z0-9]*(?:_[a-z0-9]+)*)`/g;

/**
 * The error as a front door shows it: each quoted field key in the message, and `field`, named
 * by `name`; a quoted key it does not name loses its quotes only when it is the error's field.
 * Hints are left alone (they quote commands, not fields).
 *
 * @example
 * fieldsNamedBy(inputError("invalid_option", "`max_records` must be >= 1", { field: "max_records" }), (key) => `--${key.replaceAll("_", "-")}`)
 * // message "--max-records must be >= 1", field "--max-records"
 */
export function fieldsNamedBy(error: ZaxyError, name: FieldNamer): ZaxyError {
  const field = error.details.field;
  const message = error.message.replace(quotedFieldKey, (quoted, key: string) => name(key) ?? (key === field ? key : quoted));
  const namedField = field === undefined ? undefined : name(field) ?? field;
  if (message === error.message && namedField === field) return error;
  const named = new ZaxyError(error.code, message, error.exitCode, { ...error.details, field: namedField });
  named.stack = error.stack;
  return named;
}

export function isZaxyError(value: unknown): value is ZaxyError {
  return value instanceof ZaxyError;
}
