/**
 * Verifies line-aligned ranges of a file as they are written, on a worker thread, while the main
 * thread goes on receiving rows from the store: the network and the verifier overlap. Each
 * range starts from what precedes it (event count, lines, the previous line's stored hash), so
 * ranges are independent and the merged result is the one a sequential pass would give. Small
 * inputs (one chunk) are verified inline: a worker costs more than it saves there.
 */
import { WebWorker, workerSpecifier } from "../platform/process.ts";
import { type ChainStart, type RangeResult, scanRange } from "../eventloom/verify.ts";

export class RangeVerifier {
  readonly #path: string;
  readonly #fd: number;
  readonly #allErrors: boolean;
  #worker: Worker | undefined;
  #queue: Promise<void> = Promise.resolve();
  readonly #results: RangeResult[] = [];
  #failure: Error | undefined;

  constructor(path: string, fd: number, allErrors: boolean) {
    this.#path = path;
    this.#fd = fd;
    this.#allErrors = allErrors;
  }

  /** Queues [start, end) for verification; `inline` verifies it here and now instead. */
  add(start: number, end: number, chain: ChainStart, inline: boolean): void {
    const index = this.#results.length;
    this.#results.push(undefined as unknown as RangeResult);
    if (inline && this.#worker === undefined) {
      this.#results[index] = scanRange(this.#fd, start, end, false, chain, { allErrors: this.#allErrors });
      return;
    }
    const worker = (this.#worker ??= new WebWorker(workerSpecifier(new URL("../eventloom/verifyWorker.ts", import.meta.url), "eventloom/verifyWorker.ts"), { type: "module" }));
    const message = { kind: "verify", path: this.#path, start, end, isLast: false, chain, allErrors: this.#allErrors };
    this.#queue = this.#queue.then(() =>
      new Promise<void>((resolve) => {
        worker.onmessage = (event: MessageEvent) => {
          const data = event.data as { kind: string; result?: RangeResult; message?: string };
          if (data.kind === "progress") return;
          if (data.kind === "done") this.#results[index] = data.result as RangeResult;
          else this.#failure ??= new Error(`verify worker failed: ${data.message}`);
          resolve();
        };
        worker.onerror = (event: Event) => {
          this.#failure ??= new Error(`verify worker failed: ${(event as ErrorEvent).message ?? "unknown error"}`);
          resolve();
        };
        worker.postMessage(message);
      })
    );
  }

  /** Every range's result, in order, once all are verified. */
  async results(): Promise<RangeResult[]> {
    try {
      await this.#queue;
    } finally {
      this.#worker?.terminate();
      this.#worker = undefined;
    }
    if (this.#failure !== undefined) throw this.#failure;
    return this.#results;
  }
}
