/**
 * The one failure a read-model file reports: it is not what its writer wrote (bad magic or
 * version, offsets outside the file, a checksum that does not match, segments that do not follow
 * one another). The read model is derived from the log, so the caller's remedy is always the
 * same: rebuild the file from the log, with a warning, and never answer from it.
 */
import { ExitCode, ZaxyError } from "../errors.ts";

export class ReadModelCorruptError extends ZaxyError {
  /** The file that was refused, as the caller named it. */
  readonly file: string;

  constructor(file: string, reason: string) {
    super("read_model_corrupt", `Cannot read read-model file "${file}": ${reason}`, ExitCode.ioError, {
      hint: "the read model is derived from the log; rebuild it",
    });
    this.name = "ReadModelCorruptError";
    this.file = file;
  }
}
