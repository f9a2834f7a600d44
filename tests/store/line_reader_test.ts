/**
 * The line reader (src/store/lineReader.ts) against a scripted server speaking the PostgreSQL
 * v3 protocol: the rows' bytes come out exactly, however the stream is cut into socket reads;
 * every login it claims (trust, cleartext, MD5, SCRAM-SHA-256) is checked by the server side
 * as PostgreSQL checks it; server errors, protocol violations, a server that goes away, a
 * refused TLS request and a deadline all reject with the code `storeError` maps. Against a real
 * server it runs in store_cli_test.ts (verify and export through it and through the pool).
 */
import assert from "node:assert/strict";
import { createHash, createHmac, pbkdf2Sync, randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { LineReader, type LineReaderTarget, lineReaderTarget } from "../../src/store/lineReader.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";

after(removeTempDirs);

type Login = "trust" | "cleartext" | "md5" | "scram" | "scram-bad-signature";

interface Script {
  login: Login;
  password?: string;
  /** Answers the query: the bytes sent after ParseComplete/BindComplete/RowDescription. */
  rows?: (Buffer | null)[];
  /** Instead of rows: an ErrorResponse (code, message), then ReadyForQuery. */
  queryError?: { code: string; message: string };
  /** Close the connection after this many bytes of the answer. */
  cutAfterBytes?: number;
  /** Send the answer in reads of at most this many bytes (1 = byte by byte). */
  sliceBytes?: number;
  /** Raw bytes to send as the answer instead of well-formed rows. */
  rawAnswer?: Buffer;
  /** Answer the SSLRequest (when one comes) with this byte. */
  sslAnswer?: "N";
  /** Never answer the query. */
  silent?: boolean;
  /** The one row that answers an unnamed statement (a prelude before the pages). */
  preludeRow?: (string | null)[];
}

function message(type: string, body: Buffer): Buffer {
  const out = Buffer.alloc(5 + body.length);
  out.write(type, 0, "latin1");
  out.writeInt32BE(4 + body.length, 1);
  body.copy(out, 5);
  return out;
}

function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n, 0);
  return b;
}

function auth(kind: number, rest: Buffer = Buffer.alloc(0)): Buffer {
  return message("R", Buffer.concat([int32(kind), rest]));
}

const ready = message("Z", Buffer.from("I"));

function errorResponse(code: string, text: string): Buffer {
  return message("E", Buffer.from(`SERROR\0C${code}\0M${text}\0\0`, "utf8"));
}

function dataRow(value: Buffer | null): Buffer {
  const header = Buffer.alloc(6);
  header.writeInt16BE(1, 0);
  header.writeInt32BE(value === null ? -1 : value.length, 2);
  return message("D", value === null ? header : Buffer.concat([header, value]));
}

function rowsAnswer(rows: (Buffer | null)[]): Buffer {
  const description = message("T", Buffer.concat([Buffer.from([0, 1]), Buffer.from("line\0"), Buffer.alloc(18)]));
  return Buffer.concat([message("1", Buffer.alloc(0)), message("2", Buffer.alloc(0)), description, ...rows.map(dataRow), message("C", Buffer.from("SELECT 3\0")), ready]);
}

/**
 * A server that runs `script` for each connection: reads the startup message, does the login
 * the script names (checking what the client proves), then answers the one query.
 */
async function scriptedServer(script: Script, listenPath?: string): Promise<{ port: number; seen: { startup: Map<string, string>; queries: string[]; statements: string[]; bound: string[]; sslRequests: number; pages: [string, number, number][] }; close(): Promise<void> }> {
  const seen = { startup: new Map<string, string>(), queries: [] as string[], statements: [] as string[], bound: [] as string[], sslRequests: 0, pages: [] as [string, number, number][] };
  const server = net.createServer((socket) => {
    let buffered = Buffer.alloc(0);
    let phase: "startup" | "password" | "sasl-first" | "sasl-final" | "query" = "startup";
    let scram: { clientFirstBare: string; serverFirst: string; salted: Buffer } | undefined;
    const user = () => seen.startup.get("user") ?? "";
    // Answers go out in order, each in slices of `sliceBytes` written on separate turns.
    let sending = Promise.resolve();
    let cut = false;
    const sendAnswer = (bytes: Buffer) => {
      sending = sending.then(async () => {
        if (cut) return;
        const limit = script.cutAfterBytes ?? bytes.length;
        const step = script.sliceBytes ?? bytes.length;
        for (let at = 0; at < Math.min(limit, bytes.length); at += step) {
          socket.write(bytes.subarray(at, Math.min(at + step, limit)));
          if (step < bytes.length) await new Promise((resolve) => setImmediate(resolve));
        }
        if (limit < bytes.length) {
          cut = true;
          socket.destroy();
        }
      });
    };
    const loggedIn = () => {
      socket.write(Buffer.concat([auth(0), message("S", Buffer.from("server_version\x0015.0\0")), message("K", Buffer.alloc(8)), ready]));
      phase = "query";
    };
    socket.on("data", (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        if (phase === "startup") {
          if (buffered.length < 8) return;
          const length = buffered.readInt32BE(0);
          if (buffered.length < length) return;
          const code = buffered.readInt32BE(4);
          const body = buffered.subarray(8, length);
          buffered = buffered.subarray(length);
          if (code === 80877103) {
            seen.sslRequests++;
            socket.write(Buffer.from(script.sslAnswer ?? "N"));
            continue;
          }
          const parts = body.toString("utf8").split("\0");
          for (let i = 0; i + 1 < parts.length; i += 2) if (parts[i] !== "") seen.startup.set(parts[i], parts[i + 1]);
          if (script.login === "trust") loggedIn();
          else if (script.login === "cleartext") {
            socket.write(auth(3));
            phase = "password";
          } else if (script.login === "md5") {
            socket.write(auth(5, Buffer.from([1, 2, 3, 4])));
            phase = "password";
          } else {
            socket.write(auth(10, Buffer.from("SCRAM-SHA-256\0\0")));
            phase = "sasl-first";
          }
          continue;
        }
        if (buffered.length < 5) return;
        const length = buffered.readInt32BE(1);
        if (buffered.length < length + 1) return;
        const type = String.fromCharCode(buffered[0]);
        const body = buffered.subarray(5, length + 1);
        buffered = buffered.subarray(length + 1);
        if (type === "X") return socket.end();
        if (phase === "password") {
          const proof = body.toString("utf8").replace(/\0$/, "");
          const password = script.password ?? "";
          const expected = script.login === "cleartext"
            ? password
            : `md5${createHash("md5").update(Buffer.concat([Buffer.from(createHash("md5").update(password + user()).digest("hex")), Buffer.from([1, 2, 3, 4])])).digest("hex")}`;
          if (proof !== expected) {
            socket.end(errorResponse("28P01", `password authentication failed for user "${user()}"`));
            return;
          }
          loggedIn();
        } else if (phase === "sasl-first") {
          const mechanism = body.toString("utf8", 0, body.indexOf(0));
          assert.equal(mechanism, "SCRAM-SHA-256");
          const at = body.indexOf(0) + 1;
          const clientFirst = body.toString("utf8", at + 4, at + 4 + body.readInt32BE(at));
          assert.ok(clientFirst.startsWith("n,,"), "no channel binding");
          const clientFirstBare = clientFirst.slice(3);
          const clientNonce = /r=([^,]+)/.exec(clientFirstBare)?.[1] ?? "";
          const salt = randomBytes(16);
          const serverFirst = `r=${clientNonce}${randomBytes(9).toString("base64")},s=${salt.toString("base64")},i=4096`;
          scram = { clientFirstBare, serverFirst, salted: pbkdf2Sync(script.password ?? "", salt, 4096, 32, "sha256") };
          socket.write(auth(11, Buffer.from(serverFirst)));
          phase = "sasl-final";
        } else if (phase === "sasl-final" && scram !== undefined) {
          // What PostgreSQL checks: the proof XOR the client signature gives a key hashing to the stored key.
          const clientFinal = body.toString("utf8");
          const withoutProof = clientFinal.slice(0, clientFinal.lastIndexOf(",p="));
          const proof = Buffer.from(clientFinal.slice(clientFinal.lastIndexOf(",p=") + 3), "base64");
          const authMessage = `${scram.clientFirstBare},${scram.serverFirst},${withoutProof}`;
          const storedKey = createHash("sha256").update(createHmac("sha256", scram.salted).update("Client Key").digest()).digest();
          const signature = createHmac("sha256", storedKey).update(authMessage).digest();
          const clientKey = Buffer.from(proof.map((byte, i) => byte ^ signature[i]));
          if (!createHash("sha256").update(clientKey).digest().equals(storedKey)) {
            socket.end(errorResponse("28P01", `password authentication failed for user "${user()}"`));
            return;
          }
          const serverSignature = createHmac("sha256", createHmac("sha256", scram.salted).update("Server Key").digest()).update(authMessage).digest("base64");
          const sent = script.login === "scram-bad-signature" ? Buffer.from(serverSignature, "base64").map((b) => b ^ 1) : Buffer.from(serverSignature, "base64");
          socket.write(auth(12, Buffer.from(`v=${Buffer.from(sent).toString("base64")}`)));
          loggedIn();
        } else if (phase === "query") {
          if (type === "P") {
            const nameEnd = body.indexOf(0);
            seen.statements.push(body.toString("utf8", 0, nameEnd));
            seen.queries.push(body.toString("utf8", nameEnd + 1, body.indexOf(0, nameEnd + 1)));
          }
          if (type === "B") {
            // Portal and statement names, no parameter formats, then the three text parameters.
            const portalEnd = body.indexOf(0);
            const statementEnd = body.indexOf(0, portalEnd + 1);
            seen.bound.push(body.toString("utf8", portalEnd + 1, statementEnd));
            let at = statementEnd + 1 + 2 + 2;
            const values: string[] = [];
            for (let i = 0; i < body.readInt16BE(statementEnd + 3); i++) {
              const length = body.readInt32BE(at);
              values.push(body.toString("utf8", at + 4, at + 4 + length));
              at += 4 + length;
            }
            seen.pages.push([values[0], Number(values[1]), Number(values[2])]);
          }
          if (type !== "S") continue;
          if (script.silent) continue;
          if (seen.bound[seen.bound.length - 1] === "" && script.preludeRow !== undefined) {
            const values = script.preludeRow.map((value) => (value === null ? int32(-1) : Buffer.concat([int32(Buffer.byteLength(value)), Buffer.from(value)])));
            const count = Buffer.alloc(2);
            count.writeInt16BE(values.length, 0);
            sendAnswer(Buffer.concat([message("1", Buffer.alloc(0)), message("2", Buffer.alloc(0)), message("D", Buffer.concat([count, ...values])), message("C", Buffer.from("SELECT 1\0")), ready]));
            continue;
          }
          const [, from, to] = seen.pages[seen.pages.length - 1] ?? ["", 0, 0];
          if (script.queryError !== undefined) sendAnswer(Buffer.concat([message("1", Buffer.alloc(0)), errorResponse(script.queryError.code, script.queryError.message), ready]));
          else sendAnswer(script.rawAnswer ?? rowsAnswer((script.rows ?? []).slice(from, to)));
        }
      }
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => (listenPath === undefined ? server.listen(0, "127.0.0.1", resolve) : server.listen(listenPath, resolve)));
  const address = server.address();
  return {
    port: typeof address === "object" && address !== null ? address.port : 0,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function target(port: number, overrides: Partial<LineReaderTarget> = {}): LineReaderTarget {
  return { host: "127.0.0.1", port, user: "reader", database: "zaxy", password: "s3cret", sslMode: "prefer", connectTimeoutMs: 5000, ...overrides };
}

async function readAll(t: LineReaderTarget, signal = new AbortController().signal, uptoSeq = 4): Promise<{ lines: Buffer; rows: number; emptyRows: number[]; chunks: number }> {
  const reader = await LineReader.connect(t, signal);
  try {
    const parts: Buffer[] = [];
    const emptyRows: number[] = [];
    let before = 0;
    let chunks = 0;
    const rows = await reader.streamLines("s1", 0, uptoSeq, (lines, count, empty) => {
      parts.push(Buffer.from(lines));
      for (const row of empty) emptyRows.push(before + row);
      before += count;
      chunks++;
    });
    assert.equal(before, rows, "rows handed over = rows counted");
    return { lines: Buffer.concat(parts), rows, emptyRows, chunks };
  } finally {
    reader.close();
  }
}

const sampleRows = [Buffer.from('{"seq":1,"type":"a","payload":{"text":"naïve — résumé"}}'), Buffer.from(""), null, Buffer.from('{"seq":4,"x":"\\"quoted\\""}')];
const sampleLines = Buffer.from('{"seq":1,"type":"a","payload":{"text":"naïve — résumé"}}\n\n\n{"seq":4,"x":"\\"quoted\\""}\n');

describe("line reader", () => {
  test("rows come out as their exact bytes with newlines, empty and null rows named, whatever the socket reads", async () => {
    for (const sliceBytes of [undefined, 1, 3, 7, 11, 64]) {
      const server = await scriptedServer({ login: "trust", rows: sampleRows, sliceBytes });
      try {
        const got = await readAll(target(server.port));
        assert.ok(got.lines.equals(sampleLines), `slices of ${sliceBytes}: ${JSON.stringify(got.lines.toString())}`);
        assert.equal(got.rows, 4);
        assert.deepEqual(got.emptyRows, [2, 3]);
        assert.equal(server.seen.queries[0], "SELECT line FROM eventloom_events WHERE thread = $1 AND seq > $2 AND seq <= $3 ORDER BY seq");
        assert.equal(server.seen.startup.get("user"), "reader");
        assert.equal(server.seen.startup.get("database"), "zaxy");
        assert.equal(server.seen.startup.get("client_encoding"), "UTF8");
      } finally {
        await server.close();
      }
    }
  });

  test("lines larger than a chunk and many rows: chunks of about 8 MiB, nothing lost at their edges", async () => {
    const rows: Buffer[] = [];
    for (let i = 0; i < 6000; i++) rows.push(Buffer.from(JSON.stringify({ seq: i + 1, pad: "x".repeat(2000 + (i % 97)) })));
    rows.push(Buffer.from(JSON.stringify({ seq: 6001, big: "y".repeat(9 << 20) })));
    const server = await scriptedServer({ login: "trust", rows, sliceBytes: 65536 });
    try {
      const got = await readAll(target(server.port), undefined, rows.length);
      assert.ok(got.lines.equals(Buffer.concat(rows.flatMap((row) => [row, Buffer.from("\n")]))));
      assert.equal(got.rows, 6001);
      assert.ok(got.chunks >= 2, `${got.chunks} chunks`);
      // Pages cover the range without gap or overlap, the first 256 rows, the next sized to about 1 MiB of lines.
      const pages = server.seen.pages;
      assert.deepEqual(pages[0], ["s1", 0, 256]);
      for (let i = 1; i < pages.length; i++) assert.equal(pages[i][1], pages[i - 1][2]);
      assert.equal(pages[pages.length - 1][2], 6001);
      assert.ok(pages.length > 4 && pages.some(([, from, to]) => to - from > 256 && to - from < 600), JSON.stringify(pages));
      // The page statement is prepared once per connection and bound for every page.
      assert.deepEqual(server.seen.statements, ["zaxy_lines"]);
      assert.deepEqual(new Set(server.seen.bound), new Set(["zaxy_lines"]));
      assert.equal(server.seen.bound.length, pages.length);
    } finally {
      await server.close();
    }
  });

  test("a statement before the pages runs on the same connection: its values as text, NULL as null, its parameters bound", async () => {
    for (const sliceBytes of [undefined, 1, 5]) {
      const server = await scriptedServer({ login: "scram", password: "s3cret", rows: sampleRows, preludeRow: ["1", null, "4", "naïve"], sliceBytes });
      const reader = await LineReader.connect(target(server.port), new AbortController().signal);
      try {
        assert.deepEqual(await reader.values("SELECT version, head, max, note", ["s1"]), [["1", null, "4", "naïve"]]);
        assert.equal(server.seen.queries[0], "SELECT version, head, max, note");
        assert.deepEqual(server.seen.statements, [""], "an unnamed statement");
        const parts: Buffer[] = [];
        assert.equal(await reader.streamLines("s1", 0, 4, (lines) => void parts.push(Buffer.from(lines))), 4);
        assert.ok(Buffer.concat(parts).equals(sampleLines), `slices of ${sliceBytes}`);
        assert.deepEqual(server.seen.statements, ["", "zaxy_lines"], "then the page statement, on the same connection");
      } finally {
        reader.close();
        await server.close();
      }
    }
    const failing = await scriptedServer({ login: "trust", queryError: { code: "42P01", message: 'relation "zaxy_store_meta" does not exist' } });
    const reader = await LineReader.connect(target(failing.port), new AbortController().signal);
    try {
      await assert.rejects(reader.values("SELECT 1", []), (error: Error & { code?: string }) => error.code === "42P01" && /zaxy_store_meta/.test(error.message));
    } finally {
      reader.close();
      await failing.close();
    }
  });

  test("logins: cleartext, MD5 and SCRAM-SHA-256 prove the password as PostgreSQL checks it; a wrong one is 28P01", async () => {
    for (const login of ["cleartext", "md5", "scram"] as const) {
      const server = await scriptedServer({ login, password: "s3cret", rows: sampleRows });
      try {
        assert.ok((await readAll(target(server.port))).lines.equals(sampleLines), login);
        await assert.rejects(readAll(target(server.port, { password: "wrong" })), (error: Error & { code?: string }) => {
          assert.equal(error.code, "28P01", login);
          assert.match(error.message, /password authentication failed for user "reader"/);
          assert.ok(!error.message.includes("wrong"));
          return true;
        });
        await assert.rejects(readAll(target(server.port, { password: undefined })), (error: Error & { code?: string }) => error.code === "28P01");
      } finally {
        await server.close();
      }
    }
  });

  test("a server whose SCRAM signature is wrong is refused (it does not know the password)", async () => {
    const server = await scriptedServer({ login: "scram-bad-signature", password: "s3cret", rows: sampleRows });
    try {
      await assert.rejects(readAll(target(server.port)), (error: Error & { code?: string }) => error.code === "28000" && /SCRAM signature/.test(error.message));
    } finally {
      await server.close();
    }
  });

  test("a sink that fails (a full disk) ends the read with its own error, thrown or rejected, not an uncaught one", async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => Buffer.from(JSON.stringify({ seq: i + 1, pad: "z".repeat(3000) })));
    const server = await scriptedServer({ login: "trust", rows, sliceBytes: 65536 });
    try {
      for (const failing of [() => { throw Object.assign(new Error("no space left on device"), { code: "ENOSPC" }); }, () => Promise.reject(Object.assign(new Error("disk gone"), { code: "EIO" }))]) {
        const reader = await LineReader.connect(target(server.port), new AbortController().signal);
        try {
          await assert.rejects(reader.streamLines("s1", 0, rows.length, failing), (error: Error & { code?: string }) => error.code === "ENOSPC" || error.code === "EIO");
        } finally {
          reader.close();
        }
      }
    } finally {
      await server.close();
    }
  });

  test("a server error during the query rejects with its SQLSTATE and message", async () => {
    const server = await scriptedServer({ login: "trust", queryError: { code: "42P01", message: 'relation "eventloom_events" does not exist' } });
    try {
      await assert.rejects(readAll(target(server.port)), (error: Error & { code?: string }) => error.code === "42P01" && /eventloom_events/.test(error.message));
    } finally {
      await server.close();
    }
  });

  test("a server that goes away mid-row rejects with CONNECTION_CLOSED", async () => {
    const answer = rowsAnswer(sampleRows);
    const server = await scriptedServer({ login: "trust", rows: sampleRows, cutAfterBytes: answer.length - 40 });
    try {
      await assert.rejects(readAll(target(server.port)), (error: Error & { code?: string }) => error.code === "CONNECTION_CLOSED");
    } finally {
      await server.close();
    }
  });

  test("a row that is not one value, or a malformed length, is a protocol error", async () => {
    const twoColumns = message("D", Buffer.concat([Buffer.from([0, 2]), int32(1), Buffer.from("a"), int32(1), Buffer.from("b")]));
    const short = message("D", Buffer.from([0, 1]));
    for (const rawAnswer of [Buffer.concat([twoColumns, ready]), Buffer.concat([short, ready]), Buffer.from([0x44, 0, 0, 0, 2])]) {
      const server = await scriptedServer({ login: "trust", rawAnswer });
      try {
        await assert.rejects(readAll(target(server.port)), (error: Error & { code?: string }) => error.code === "PROTOCOL_ERROR");
      } finally {
        await server.close();
      }
    }
  });

  test("sslmode=require against a server without TLS is refused; prefer goes on in the clear; disable sends no SSL request", async () => {
    const server = await scriptedServer({ login: "trust", rows: sampleRows, sslAnswer: "N" });
    try {
      await assert.rejects(readAll(target(server.port, { sslMode: "require" })), (error: Error & { code?: string }) => error.code === "SSL_REFUSED" && /SSL/.test(error.message));
      await assert.rejects(readAll(target(server.port, { sslMode: "verify-full" })), (error: Error & { code?: string }) => error.code === "SSL_REFUSED");
      assert.equal(server.seen.sslRequests, 2);
      assert.ok((await readAll(target(server.port, { sslMode: "prefer" }))).lines.equals(sampleLines));
      assert.equal(server.seen.sslRequests, 3);
      assert.ok((await readAll(target(server.port, { sslMode: "disable" }))).lines.equals(sampleLines));
      assert.equal(server.seen.sslRequests, 3, "disable: no SSL request");
    } finally {
      await server.close();
    }
  });

  test("a Unix socket: the host is the socket's directory", async () => {
    const dir = makeTempDir("zaxy-pgsock");
    const server = await scriptedServer({ login: "trust", rows: sampleRows }, path.join(dir, ".s.PGSQL.5999"));
    try {
      const t = lineReaderTarget(`postgres://reader@${encodeURIComponent(dir)}:5999/zaxy`, {}, undefined, 5000);
      assert.equal(t?.socketPath, path.join(dir, ".s.PGSQL.5999"));
      assert.ok((await readAll(t as LineReaderTarget)).lines.equals(sampleLines));
      assert.ok(fs.existsSync(path.join(dir, ".s.PGSQL.5999")));
    } finally {
      await server.close();
    }
  });

  test("a deadline ends a server that never answers, and a port nobody listens on is refused", async () => {
    const server = await scriptedServer({ login: "trust", silent: true });
    try {
      const deadline = new AbortController();
      setTimeout(() => deadline.abort(), 200);
      const started = Date.now();
      await assert.rejects(readAll(target(server.port), deadline.signal), (error: Error & { code?: string }) => error.code === "ETIMEDOUT");
      assert.ok(Date.now() - started < 5000);
    } finally {
      await server.close();
    }
    const closed = await scriptedServer({ login: "trust" });
    await closed.close();
    await assert.rejects(readAll(target(closed.port)), (error: Error & { code?: string }) => error.code === "ECONNREFUSED");
  });

  test("which URLs it takes: one host, sslmode, connect_timeout, application_name; anything else is left to the general client", () => {
    const env = { PGSSLMODE: undefined };
    assert.deepEqual(lineReaderTarget("postgres://app:pw@db.internal:6543/zaxy?sslmode=verify-ca&connect_timeout=3", env, "pw", 10_000), {
      host: "db.internal",
      port: 6543,
      socketPath: undefined,
      user: "app",
      database: "zaxy",
      password: "pw",
      sslMode: "verify-full",
      connectTimeoutMs: 3000,
    });
    const defaults = lineReaderTarget("postgresql://app@db/", { PGDATABASE: "fromenv" }, undefined, 10_000);
    assert.equal(defaults?.port, 5432);
    assert.equal(defaults?.database, "fromenv");
    assert.equal(defaults?.sslMode, "prefer");
    assert.equal(defaults?.connectTimeoutMs, 10_000);
    assert.equal(lineReaderTarget("postgres://app@db/zaxy", { PGSSLMODE: "require" }, undefined, 1)?.sslMode, "require");
    assert.equal(lineReaderTarget("postgres://app@db/zaxy?sslmode=disable", { PGSSLMODE: "require" }, undefined, 1)?.sslMode, "disable");
    assert.equal(lineReaderTarget("postgres://app@[::1]:5433/zaxy", {}, undefined, 1)?.host, "::1");
    assert.equal(lineReaderTarget("postgres://app@db1:5432,db2:5432/zaxy", {}, undefined, 1), undefined);
    assert.equal(lineReaderTarget("postgres://app@db/zaxy?sslmode=allow", {}, undefined, 1), undefined);
    assert.equal(lineReaderTarget("postgres://app@db/zaxy?target_session_attrs=read-write", {}, undefined, 1), undefined);
    assert.equal(lineReaderTarget("postgres://app@db/zaxy?password=x", {}, undefined, 1), undefined);
    assert.equal(lineReaderTarget("postgres://app@db/zaxy?options=-csearch_path%3Dx", {}, undefined, 1), undefined);
  });
});
