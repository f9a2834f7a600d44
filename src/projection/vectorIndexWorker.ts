/**
 * A vector index worker (vectorIndexBuild.ts): writes a session's vector postings file from
 * scratch from its entity versions' names, types and summaries (the summaries read from the
 * fold's scratch file, opened by its path), while the main thread writes the read model. Runs the
 * same embedding code as the single-threaded path (`writeTextPostingsFile`).
 * Protocol (structured-clone messages):
 *   in:  {kind: "build", temp, dim, count, names, types, summaries, scratchFile} (the texts as
 *        `SharedTexts`, their places in the scratch file at `scratchFile`; buffers transferred)
 *   out: {kind: "done", bytes, sha256, ms} 
 *   out on any failure: {kind: "error", message}
 */
import * as fs from "node:fs";
import { sha256OfFile } from "../platform/mod.ts";
import { writeFileAtomically } from "../platform/atomicFile.ts";
import { workerScope } from "../platform/workerScope.ts";
import { entityEmbeddingText } from "../vector/hashEmbedding.ts";
import { type SharedTexts, SharedTextsReader } from "./scratchTexts.ts";
import { writeTextPostingsFile } from "./vectorIndex.ts";

const scope = workerScope();

scope.onmessage = (event: MessageEvent) => {
  const message = event.data as { kind: "build"; temp: string; dim: number; count: number; names: SharedTexts; types: SharedTexts; summaries: SharedTexts; scratchFile: string };
  let fd: number | null = null;
  try {
    const started = performance.now();
    // The main thread's descriptor path of the unlinked file: this thread's own open file.
    fd = fs.openSync(message.scratchFile, "r");
    const { count, dim } = message;
    const names = new SharedTextsReader(message.names, fd);
    const types = new SharedTextsReader(message.types, fd);
    const summaries = new SharedTextsReader(message.summaries, fd);
    let bytes = 0;
    writeFileAtomically(message.temp, (out) => {
      bytes = writeTextPostingsFile(out, count, (i) => entityEmbeddingText(names.text(i)!, types.text(i)!, summaries.text(i)), dim);
    });
    const sha256 = sha256OfFile(message.temp)!;
    scope.postMessage({ kind: "done", bytes, sha256, ms: performance.now() - started });
  } catch (error) {
    scope.postMessage({ kind: "error", message: error instanceof Error ? error.message : String(error) });
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
};
