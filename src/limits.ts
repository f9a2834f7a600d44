/**
 * Every bound Zaxy enforces, in one place, each with the reason it exists.
 */

/** Python's `MAX_PAYLOAD_BYTES`: a payload is at most 1 MiB as compact UTF-8 JSON. */
export const payloadBytesMax = 1024 * 1024;

/**
 * Longest payload document read from `--payload-file` or stdin before parsing. The payload bound
 * is on compact UTF-8 JSON; the document may be pretty-printed and may write every non-ASCII or
 * control character as a 6-byte \u escape (Python's default `ensure_ascii`), so a valid 1 MiB
 * payload can take several times that. Past this bound no valid payload is possible, and reading
 * stops instead of buffering an endless input such as `/dev/zero`.
 */
export const payloadDocumentBytesMax = 16 * payloadBytesMax;

/**
 * Nesting depth of any JSON value we parse or canonicalise. Python's json module recurses and
 * gives up near its recursion limit (1000), so no log written by it is deeper than this.
 * Past it we fail cleanly instead of exhausting the stack.
 */
export const jsonDepthMax = 1000;

/**
 * Longest JSONL line accepted when reading a log. A 1 MiB payload can grow up to ~6x when
 * non-ASCII and control characters are written as \u escapes, plus the envelope.
 */
export const lineBytesMax = 16 * 1024 * 1024;

/**
 * Nesting depth of a payload we append. Python's json module recurses and fails near its
 * recursion limit (1000); with the envelope around it, a payload much deeper than this could be
 * written by us but not verified by Python.
 */
export const payloadDepthMax = 512;

/** Event type and actor: non-empty, no control characters, at most this many characters. */
export const eventTextCharsMax = 256;

/** Session ids: `^[A-Za-z0-9_.-]{1,128}$`. */
export const sessionIdCharsMax = 128;

/** Largest batch accepted by one ingest or append call; keeps one write bounded. */
export const batchEventsMax = 10_000;

/** Largest ingest file or stdin document read in one call. */
export const ingestBytesMax = 256 * 1024 * 1024;

/** How long append waits for the exclusive lock on a log before failing with `lock_timeout`. */
export const lockWaitMs = 30_000;

/** Python's `MAX_REPLAY_EVENTS`: MCP memory_replay returns at most this many events. */
export const replayEventsMax = 1000;

/**
 * Bytes read per chunk when streaming a log through the verifier. Each verifying thread holds
 * about 3x this (input, preimages) plus its tape; 2 MiB keeps a parallel verify of any log well
 * under 200 MB resident while calls into the kernel stay rare.
 */
export const verifyChunkBytes = 2 * 1024 * 1024;

/**
 * Read size when hashing a file (a log's verified prefix, a derived file, an intent's pinned
 * bytes): 4 MiB keeps native SHA-256 near its throughput (~1.8 GB/s) with few calls, in bounded
 * memory whatever the file size.
 */
export const fileHashChunkBytes = 4 * 1024 * 1024;

/** A verified checkpoint is one short JSON line (~300 bytes); a larger file is not one of ours. */
export const verifiedCheckpointBytesMax = 4096;

/**
 * Longest JSON-RPC line `zaxy serve` reads. A longer line is answered with -32600 and skipped
 * without being buffered whole, so one oversized message cannot exhaust memory or, as with the
 * SDK's own 10 MiB stdio buffer, close the connection. 32 MiB holds a `memory_ingest` call of
 * several 1 MiB payloads; bulk imports go through `zaxy memory ingest` (ingestBytesMax).
 */
export const mcpMessageBytesMax = 32 * 1024 * 1024;

/**
 * `zaxy serve --http`: an MCP session unused this long is closed (`--session-idle-timeout`).
 * Each session holds its own server and tool router (a few hundred KB); a client that never
 * sends DELETE must not keep that forever. 30 minutes outlasts an agent's pause for thought.
 */
export const httpSessionIdleMs = 30 * 60 * 1000;

/**
 * `zaxy serve --http`: MCP sessions open at once (`--max-sessions`). At the bound a new
 * `initialize` closes the least recently used idle session; when every session has a call
 * running it is refused (503). 1,000 sessions cost a few hundred MB at most.
 */
export const httpSessionsMax = 1000;

/**
 * `zaxy serve --http`: how long a request body may take to arrive (`--read-timeout`), counted
 * from the request's start. A peer sending a byte per second would otherwise hold a connection
 * (and its buffer) for as long as it likes; 30 s carries 8 MiB over a slow link.
 */
export const httpReadTimeoutMs = 30_000;

/**
 * `zaxy serve --http`: after SIGTERM or SIGINT, how long calls already running may take to
 * finish before the server closes every connection and exits. An append takes milliseconds;
 * a lock held elsewhere is waited for at most this long, and the log's own recovery finishes
 * an append cut short.
 */
export const httpShutdownMs = 10_000;

/**
 * Summed log size of the sessions `zaxy serve` keeps warm (indexes, events, projection rows).
 * A warm session holds about ten times its log size in memory (a 0.9 MB, 1.7k-event log: ~9 MB),
 * so sixteen large sessions (cachedSessionsMax counts sessions, not bytes) could hold gigabytes;
 * past this bound the least recently used are dropped and re-read from disk when asked again.
 * One session larger than the bound is still kept while it is the one in use.
 */
export const cachedSessionLogBytesMax = 64 * 1024 * 1024;

/**
 * Uncited events `zaxy compact --audit` lists by seq, hash and type when citation coverage is
 * below 1 (the count is always exact). A log ingested without source paths can have every one
 * of its events uncited; listing them all would make the report as large as the log.
 */
export const auditUncitedEventsListedMax = 100;

/**
 * A LongMemEval dataset file `zaxy bench longmemeval` reads: it is parsed in memory as one JSON
 * document. `longmemeval_s.json` is about 265 MB; `longmemeval_m.json` (2.7 GB) is out of reach.
 */
export const longMemEvalDatasetBytesMax = 512 * 1024 * 1024;

/** A benchmark report the gates read (summary plus per-question rows: a few MiB for 500 questions). */
export const benchmarkReportBytesMax = 256 * 1024 * 1024;

/**
 * Longest query text (characters) a memory read or a causal query accepts: retrieval tokenises
 * and embeds the whole query, so its cost grows with it; real questions are far shorter.
 */
export const queryCharsMax = 4096;

/** Deepest graph traversal (hops) a memory read or a causal query accepts: each hop fans out. */
export const depthMax = 5;

/**
 * A fresh read whose log is at most this many events (and `readModelTailBytesMax` bytes) past the
 * session's read model folds them on top of it in memory (readmodel/tailCatchUp.ts) and writes
 * nothing; past either bound it catches the projection up and rewrites the read model. The
 * bound keeps the per-call fold small (about 20 ms per 1000 events at 10k) while the full
 * rewrite it defers costs seconds: an agent appending one event per turn pays for it once per
 * thousand turns.
 */
export const readModelTailEventsMax = 1000;
export const readModelTailBytesMax = 16 * 1024 * 1024;

/**
 * Longest `propose-from-log` window, in actionable events (seed 000: the CLI's `min=1, max=50`,
 * the MCP schema's `maximum: 50`). A window becomes one episode, claim and procedure that a
 * reviewer reads and accepts as a whole; past 50 events a candidate no longer says what happened.
 */
export const consolidationWindowSizeMax = 50;

/**
 * Most memories one `trigger_consolidation` analyses (seed 004: `max_memories` 1-10000). The
 * candidate pairs, alignments and sample are held in memory for the whole batch; a larger
 * session is analysed by its most recent memories.
 */
export const triggerMaxMemoriesMax = 10_000;

/**
 * Rows one graph query returns at most (`memory_graph_query` `limit`, `zaxy memory graph
 * --limit`; default 1,000): rows beyond are cut and the answer says `truncated: true`. The rows
 * travel from the query's worker and into one JSON answer, so they are bounded like any reply.
 */
export const graphQueryRowsMax = 10_000;

/**
 * Longest time limit a graph query may ask for (`timeout_ms`; default 10,000). The query runs on
 * a worker thread that is terminated at its limit, so a runaway Cypher statement (an UNWIND of a
 * huge range, a cross product) costs at most this long.
 */
export const graphQueryTimeoutMsMax = 60_000;

/**
 * Memory one graph query may add to the process (resident set, sampled every 50 ms) before its
 * worker is terminated with `query_memory_exceeded`. Kuzu's wasm heap lives outside the JS heap,
 * so a worker's `resourceLimits` would not bound it (and Bun ignores them); the worker's own Kuzu
 * costs about 100-200 MB, an ordinary query over a session's graph a few MB more. Past 4 GiB the
 * 32-bit wasm heap aborts the engine; this stops a query well before that.
 */
export const graphQueryMemoryBytesMax = 1024 * 1024 * 1024;

/**
 * How long a graph query's worker may take to load Kuzu and open the store before the query's
 * own time limit starts (compiling the 11 MB wasm module takes 0.3-4 s depending on the load).
 */
export const graphQueryStartMsMax = 60_000;

/**
 * Most entity versions the semantic lane compares a query with: the newest current facts. Each is
 * embedded once (about 10 ms of CPU) and kept on disk (semantic/vectorStore.ts); comparing a query
 * with all of them costs a few milliseconds. Older facts are found by the other lanes only.
 */
export const semanticPoolEntitiesMax = 4096;

/**
 * Most facts one read embeds (those without a stored vector, newest first). The bundled model
 * takes 10-40 ms per fact (longer texts cost more) and its working memory grows with the batch, so
 * 16 keep a cold read within a few tenths of a second and its memory near that of a read that
 * embeds nothing: facts appended since the last read fit, a large import does not. Such a session's
 * first reads cover it step by step and say how much they compared; `zaxy serve` embeds the rest
 * while it is idle, and `zaxy memory embed` embeds all of it at once.
 */
export const semanticEmbedPerReadMax = 16;
/**
 * And at most this many characters of fact text, at least one fact: the model's time and working
 * memory grow with the text (a 600-character fact costs it about six times a 100-character one), so
 * a session of long notes would otherwise pay seconds per read where one of short decisions pays
 * tenths. 16 facts of up to 128 characters fit.
 */
export const semanticEmbedPerReadCharsMax = 2048;

/**
 * The bundled model collects garbage once it has embedded this many characters since it last did.
 * Its load and each batch leave tens of MB of garbage, which the collector, tuned to a large
 * session's heap, lets pile onto a read's peak: a read that embeds facts gets a collection (one,
 * 20-50 ms at 1M events; 1M-event first reads peak at ~275 MB instead of ~310), a query alone does not.
 */
export const semanticEmbedCollectCharsMin = 512;

/**
 * `zaxy serve` embeds the facts reads left without a vector while idle, this many per step: a call
 * that arrives during a step waits for it (about 0.1 s with the bundled model).
 */
export const semanticIdleEmbedBatchMax = 4;

/** How long no read may have started before `zaxy serve` embeds while idle: a burst of calls is answered first. */
export const semanticIdleEmbedDelayMs = 250;

/**
 * Most texts in one request to an embedding server. OpenAI accepts up to 2048 inputs per request
 * but caps the tokens of a whole request, and a small Ollama host runs one batch at a time: 64
 * short facts stay far below both, while a cold pool of 4096 facts still takes only 64 requests.
 */
export const embeddingServerBatchTextsMax = 64;

/**
 * After a request to an embedding server fails, further reads fail at once (and fall back to the
 * bundled model) for this long instead of each waiting out the timeout against a server that is
 * down; then one read tries the server again.
 */
export const endpointRetryAfterMs = 30_000;

/**
 * Longest response body read from an embedding server: 64 vectors of 4096 dimensions written as
 * JSON decimals take about 6 MiB; a server streaming without end is cut off here.
 */
export const embeddingResponseBytesMax = 64 * 1024 * 1024;

/**
 * Logs smaller than this are read by the compaction audit's pass one on one thread: each worker
 * warms up its own parser and token cache and holds its own heap, which a small log does not
 * repay (a 92 MB log of 100,000 long events took longer on two workers than on one thread, and
 * ~90 MB more memory).
 */
export const auditParallelMinBytes = 256 * 1024 * 1024;

/**
 * Bytes of log from which `zaxy reproject` builds a session's vector index on a worker thread
 * while it writes the read model (projection/vectorIndexBuild.ts). The worker embeds the texts
 * twice and holds a heap of its own (~150 MB more at the peak), which repays only in a session
 * with a lot of text: a million long-payload events (927 MB: 14 s of vectors on one thread) ran
 * ~8 % faster at 1.80–1.83 GB peak instead of 1.73, while the bench generator's million short
 * events (546 MB: 9 s) peaked at 1.80 GB instead of 1.64 for a smaller gain.
 */
export const vectorWorkerLogBytesMin = 768 * 1024 * 1024;

/**
 * Bytes of log per range of the audit's parallel pass one: small enough that the parts waiting
 * to be merged (one more than the workers, rows of ~half the range's bytes each at long payloads) stay tens of MB,
 * large enough that a range's fixed costs (a message, its chunks) are negligible.
 */
export const auditRangeBytes = 16 * 1024 * 1024;

/**
 * Bytes of log per range when the audit's pass one runs on one thread: a range's strings are
 * slices that keep its lines' text alive until the range is merged, so ranges stay small here
 * (16 MB ranges held ~70 MB more at the peak of a 92 MB log than 1 MB ones, for the same time).
 */
export const auditOneThreadRangeBytes = 1024 * 1024;
