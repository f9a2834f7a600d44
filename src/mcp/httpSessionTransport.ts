/**
 * One MCP session of `zaxy serve --http`, as the SDK's `Transport`: the HTTP server reads and
 * checks each POST body itself (jsonRpcLine.ts, as stdio does) and hands the one message here;
 * a request's answer is the response the SDK `Server` sends back for its id, written as the
 * HTTP response body (Streamable HTTP with JSON responses, no SSE).
 *
 * It replaces the SDK's `StreamableHTTPServerTransport`, which in JSON-response mode keeps one
 * stream record per request for the life of the session (a record that holds the request), so a
 * long-lived client grew the server by about 100 KB per call. Here an answered request leaves
 * nothing behind: `#waiting` holds only the requests still running.
 *
 * Server-initiated messages (notifications, requests to the client) have no stream to travel
 * on (GET is not served) and are dropped; zaxy's tools send none.
 *
 * @example
 * const transport = new HttpSessionTransport(randomUUID());
 * await server.connect(transport);
 * const response = await transport.exchange({ jsonrpc: "2.0", id: 1, method: "ping" });
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import type { JsonRpcId } from "./jsonRpcLine.ts";

/** JSON-RPC error code of a request the session could not answer (closed before its answer). */
export const sessionClosedCode = -32001;

export class HttpSessionTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly sessionId: string;

  /** Requests handed to the server and not yet answered, by id. */
  readonly #waiting = new Map<JsonRpcId, (message: JSONRPCMessage) => void>();
  #closed = false;
  #refusing = false;

  constructor(sessionId: string) {
    this.sessionId = sessionId;
  }

  async start(): Promise<void> {}

  /** Requests in flight: a session with any is busy and never expired or evicted. */
  get busyCount(): number {
    return this.#waiting.size;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Whether calls not yet started are refused (shutdown past its drain time). */
  get refusing(): boolean {
    return this.#refusing || this.#closed;
  }

  /** From now on calls not yet started are refused; the running one finishes and is answered. */
  refuseNewCalls(): void {
    this.#refusing = true;
  }

  /** Whether a request with this id is in flight (a second one with the same id is refused). */
  isWaiting(id: JsonRpcId): boolean {
    return this.#waiting.has(id);
  }

  /** Hands a request to the server; resolves with its response (or an error once the session closes). */
  exchange(request: JSONRPCRequest): Promise<JSONRPCMessage> {
    if (this.#closed) return Promise.resolve(closedReply(request.id));
    return new Promise((resolve) => {
      this.#waiting.set(request.id, resolve);
      this.onmessage?.(request);
    });
  }

  /** Hands a notification (or a response to a request of the server's) to the server. */
  deliver(message: JSONRPCMessage): void {
    if (!this.#closed) this.onmessage?.(message);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!("id" in message) || "method" in message) return;
    const id = message.id as JsonRpcId;
    const resolve = this.#waiting.get(id);
    if (resolve === undefined) return;
    this.#waiting.delete(id);
    resolve(message);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const [id, resolve] of this.#waiting) resolve(closedReply(id));
    this.#waiting.clear();
    this.onclose?.();
  }
}

function closedReply(id: JsonRpcId): JSONRPCMessage {
  return { jsonrpc: "2.0", id, error: { code: sessionClosedCode, message: "the MCP session was closed before this request was answered" } } as JSONRPCMessage;
}
