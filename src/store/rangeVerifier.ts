/**
 * Verifies line-aligned byte ranges handed over as they arrive from the store, on worker
 * threads, while the main thread goes on receiving rows: the network and the verifiers overlap.
 * Each range starts from what precedes it (event count, lines, the previous line's stored hash),
 * so ranges are independent, are verified side by side (each by whichever worker is free), and
 * the merged result is the one a sequential pass would give. Small inputs (one chunk) are
 * verified inline: a worker costs more than it saves there.
 */
import { WebWorker, workerSpecifier } from "../platform/process.ts";
import { type ChainStart, type RangeResult, scanBytes, verifyWorkersMax } from "../eventloom/verify.ts";

/**
 * Workers verifying ranges side by side (ranges are independent; results are merged in order):
 * as many as a file's verification uses, so a machine with more cores verifies a store's rows
 * as widely as a file.
 */
const workersMax = verifyWorkersMax();
/** Given-back buffers kept for reuse. */
const spareBuffersMax = 8;

export class RangeVerifier {
  readonly #allErrors: boolean;
  readonly #workers: Worker[] = [];
  /** Workers with no range, and ranges waiting for one. */
  readonly #idle: Worker[] = [];
  readonly #waiting: { message: unknown; transfer: Transferable[]; bytes: number; index: number }[] = [];
  #running = 0;
  readonly #allDone: (() => void)[] = [];
  /** In dispatch order; a range's slot stays undefined until its worker is done. */
  readonly #results: (RangeResult | undefined)[] = [];
  #failure: Error | undefined;
  #pendingBytes = 0;
  /** Buffers the workers handed back once verified, to be filled again (no fresh memory to fault in). */
  readonly #spare: ArrayBuffer[] = [];
  #drainWaiters: { maxBytes: number; resolve: () => void }[] = [];

  constructor(allErrors: boolean) {
    this.#allErrors = allErrors;
  }

  /**
   * Queues line-aligned bytes for verification; `inline` verifies them here and now instead.
   * Unless inline, the bytes are handed to the worker: with `ownsBuffer` (nothing else uses
   * `bytes.buffer`) or a buffer that is all of its ArrayBuffer, the ArrayBuffer is transferred
   * (unusable here after); anything else is copied.
   */
  addBytes(bytes: Uint8Array, chain: ChainStart, inline: boolean, ownsBuffer = false): void {
    if (inline && this.#workers.length === 0) {
      this.#results.push(scanBytes(bytes, chain, { allErrors: this.#allErrors }));
      return;
    }
    const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
    const sent = (ownsBuffer || whole) && bytes.buffer instanceof ArrayBuffer ? bytes : new Uint8Array(bytes);
    const length = sent.byteLength;
    this.#pendingBytes += length;
    this.#dispatch({ kind: "verifyBytes", bytes: sent, chain, allErrors: this.#allErrors }, [sent.buffer as ArrayBuffer], length);
  }

  /**
   * Resolves once no more than `maxBytes` handed over by `addBytes` wait for a worker: a producer
   * faster than the verifiers awaits it, so memory stays bounded.
   */
  drained(maxBytes: number): Promise<void> | undefined {
    if (this.#pendingBytes <= maxBytes) return undefined;
    return new Promise((resolve) => this.#drainWaiters.push({ maxBytes, resolve }));
  }

  /** An ArrayBuffer of at least `bytes` a worker gave back, or a new one. */
  buffer(bytes: number): ArrayBuffer {
    const index = this.#spare.findIndex((spare) => spare.byteLength >= bytes);
    return index === -1 ? new ArrayBuffer(bytes) : this.#spare.splice(index, 1)[0];
  }

  #settled(bytes: number): void {
    this.#pendingBytes -= bytes;
    this.#drainWaiters = this.#drainWaiters.filter((waiter) => {
      if (this.#pendingBytes > waiter.maxBytes && this.#failure === undefined) return true;
      waiter.resolve();
      return false;
    });
  }

  /** Starts the workers now, so they are ready when the first range comes (for large inputs). */
  prestart(): void {
    while (this.#workers.length < workersMax) this.#spawn();
  }

  #spawn(): Worker {
    const worker = new WebWorker(workerSpecifier(new URL("../eventloom/verifyWorker.ts", import.meta.url), "eventloom/verifyWorker.ts"), { type: "module" });
    this.#workers.push(worker);
    this.#idle.push(worker);
    return worker;
  }

  /** Queues a range; the first idle worker takes it (not a fixed one: a slower worker gets fewer). */
  #dispatch(message: unknown, transfer: Transferable[], bytes = 0): void {
    const index = this.#results.length;
    this.#results.push(undefined);
    this.#waiting.push({ message, transfer, bytes, index });
    if (this.#idle.length === 0 && this.#workers.length < workersMax) this.#spawn();
    this.#pump();
  }

  #pump(): void {
    while (this.#idle.length > 0 && this.#waiting.length > 0) {
      const worker = this.#idle.shift() as Worker;
      const job = this.#waiting.shift() as { message: unknown; transfer: Transferable[]; bytes: number; index: number };
      this.#running++;
      const finish = () => {
        this.#running--;
        this.#settled(job.bytes);
        this.#idle.push(worker);
        this.#pump();
        if (this.#running === 0 && this.#waiting.length === 0) for (const resolve of this.#allDone.splice(0)) resolve();
      };
      worker.onmessage = (event: MessageEvent) => {
        const data = event.data as { kind: string; result?: RangeResult; message?: string; bytes?: Uint8Array };
        if (data.kind === "progress") return;
        if (data.kind === "done") this.#results[job.index] = data.result as RangeResult;
        else this.#failure ??= new Error(`verify worker failed: ${data.message}`);
        if (data.bytes?.buffer instanceof ArrayBuffer && this.#spare.length < spareBuffersMax) this.#spare.push(data.bytes.buffer);
        finish();
      };
      worker.onerror = (event: Event) => {
        this.#failure ??= new Error(`verify worker failed: ${(event as ErrorEvent).message ?? "unknown error"}`);
        finish();
      };
      worker.postMessage(job.message, job.transfer);
    }
  }

  /** Every range's result, in order, once all are verified. */
  async results(): Promise<RangeResult[]> {
    try {
      if (this.#running > 0 || this.#waiting.length > 0) await new Promise<void>((resolve) => this.#allDone.push(resolve));
    } finally {
      for (const worker of this.#workers) worker.terminate();
      this.#workers.length = 0;
      this.#idle.length = 0;
    }
    if (this.#failure !== undefined) throw this.#failure;
    return this.#results.map((result, index) => {
      if (result === undefined) throw new Error(`verify worker finished range ${index} without a result`);
      return result;
    });
  }
}
