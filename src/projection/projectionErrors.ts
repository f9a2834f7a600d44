/**
 * Expected failures of the graph projection store. The projection is derived from the log, so
 * a corrupt store is recoverable (delete and rebuild); a busy one means another process holds it.
 */
import { ExitCode, ZaxyError, type ZaxyErrorDetails } from "../errors.ts";

/** The Kuzu database file cannot be opened or read, or was written with another schema version. */
export class ProjectionCorruptError extends ZaxyError {
  constructor(message: string, details: ZaxyErrorDetails = {}) {
    super("projection_corrupt", message, ExitCode.ioError, {
      hint: "the projection is derived from the log; run `zaxy reproject` to rebuild it",
      ...details,
    });
    this.name = "ProjectionCorruptError";
  }
}

/** Another process holds the store's lock for longer than we were willing to wait. */
export class ProjectionBusyError extends ZaxyError {
  constructor(message: string, details: ZaxyErrorDetails = {}) {
    super("projection_busy", message, ExitCode.ioError, {
      hint: "another zaxy process is using the projection; retry when it has finished",
      ...details,
    });
    this.name = "ProjectionBusyError";
  }
}

/** A query the store issues failed for a reason other than corruption (a bug, a full disk). */
export class ProjectionQueryError extends ZaxyError {
  constructor(message: string, details: ZaxyErrorDetails = {}) {
    super("projection_query_failed", message, ExitCode.ioError, details);
    this.name = "ProjectionQueryError";
  }
}

/**
 * The file system refused a write of the store (a full disk, a quota): nothing is wrong with
 * the file, and a read answers from the log instead of rebuilding the store into the same wall.
 */
export class ProjectionWriteError extends ZaxyError {
  constructor(message: string, details: ZaxyErrorDetails = {}) {
    super("projection_write_failed", message, ExitCode.ioError, {
      hint: "free space where the projections live; the next read catches the projection up",
      ...details,
    });
    this.name = "ProjectionWriteError";
  }
}

/**
 * A write to the store stopped at a safe point because the process was asked to stop (SIGINT,
 * SIGTERM): the store is left at its previous head, or for a rebuild with rows but no head.
 */
export class ProjectionInterruptedError extends ZaxyError {
  constructor(message: string, details: ZaxyErrorDetails = {}) {
    super("interrupted", message, ExitCode.ioError, {
      hint: "the projection is left at its previous head; the next read catches up again",
      ...details,
    });
    this.name = "ProjectionInterruptedError";
  }
}
