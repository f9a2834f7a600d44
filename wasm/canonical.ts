// Canonical JSON and Eventloom hash-preimage kernel (AssemblyScript, SIMD).
//
// Input: UTF-8 JSON text in linear memory. Output: the bytes of Python's
// json.dumps(obj, sort_keys=True, separators=(",", ":")) for that value, or, for a JSONL chunk,
// the hash preimage of every event line (legacy or eventloom.v1 envelope, DESIGN §2.2) plus the
// facts the verifier needs. The host hashes each preimage with native SHA-256.
//
// Memory layout is owned by the TypeScript wrapper (src/canonical/wasmKernel.ts): it passes
// region pointers to `configure` and never calls an allocator. Nothing here allocates.
//
// If the bytes this module emits change, stored hashes stop verifying: the differential tests
// against python3 and the frozen vectors in tests/canonical must keep passing.

@external("env", "formatFloat")
declare function hostFormatFloat(ptr: usize, len: i32, out: usize): i32;

// ---- tape -------------------------------------------------------------------------------
// One entry per JSON value (and per object key), 16 bytes: kind|flags, start, end, next.
// `next` is the index just past the entry's subtree (so siblings are reachable in O(1)).

const T_NULL: u32 = 1;
const T_TRUE: u32 = 2;
const T_FALSE: u32 = 3;
const T_INT: u32 = 4;
const T_FLOAT: u32 = 5;
const T_STRING: u32 = 6;
const T_ARRAY: u32 = 7;
const T_OBJECT: u32 = 8;
const T_SPECIAL: u32 = 9; // NaN, Infinity, -Infinity

// Emission must transform the string: raw non-ASCII bytes or a non-canonical escape.
const F_STRING_NEEDS_WORK: u32 = 0x100;
// The string has escapes, so its bytes do not sort in code point order.
const F_STRING_ESCAPED: u32 = 0x400;
const F_FLOAT_AS_IS: u32 = 0x100; // the float lexeme already is Python's repr
const F_INT_NEG_ZERO: u32 = 0x100;
// A container whose bytes already are its canonical form: no whitespace, keys strictly
// increasing, every member canonical. Emitted with one copy (zaxy writes payloads this way).
const F_CANON: u32 = 0x200;
const KIND_MASK: u32 = 0xff;

// Parse results (negative).
export const ERR_SYNTAX: i32 = -1;
export const ERR_DEPTH: i32 = -2;
export const ERR_UTF8: i32 = -3;
export const ERR_TAPE_FULL: i32 = -4;
export const ERR_OUT_FULL: i32 = -5;
export const ERR_NOT_OBJECT: i32 = -6;

const DEPTH_MAX: i32 = 1000;
// Python 3.11 refuses to convert integers longer than this (sys.int_info.str_digits_check_threshold).
const INT_DIGITS_MAX: i32 = 4300;

let tapeBase: usize = 0;
let tapeCap: i32 = 0;
let sortBase: usize = 0; // 2 * tapeCap i32 slots: member stack + merge scratch
let prefixBase: usize = 0; // tapeCap u64: the sort prefix of each key (see storeKeyPrefix)
let stackBase: usize = 0; // 3 x (DEPTH_MAX + 2) i32 slots: open container, canonical flag, previous key
let scratchBase: usize = 0; // 512 bytes for small comparisons

let tapeLen: i32 = 0;
let sortTop: i32 = 0;
let errorOffset: i32 = 0;

export function configure(tape: usize, tapeCapacity: i32, sort: usize, stack: usize, scratch: usize): void {
  tapeBase = tape;
  tapeCap = tapeCapacity;
  sortBase = sort;
  prefixBase = sort + (<usize>tapeCapacity << 3);
  stackBase = stack;
  scratchBase = scratch;
}

export function lastErrorOffset(): i32 {
  return errorOffset;
}

@inline function tKind(i: i32): u32 {
  return load<u32>(tapeBase + (<usize>i << 4)) & KIND_MASK;
}
@inline function tFlags(i: i32): u32 {
  return load<u32>(tapeBase + (<usize>i << 4));
}
@inline function tStart(i: i32): usize {
  return <usize>load<u32>(tapeBase + (<usize>i << 4), 4);
}
@inline function tEnd(i: i32): usize {
  return <usize>load<u32>(tapeBase + (<usize>i << 4), 8);
}
@inline function tNext(i: i32): i32 {
  return load<i32>(tapeBase + (<usize>i << 4), 12);
}
@inline function tSet(i: i32, kindFlags: u32, start: usize, end: usize, next: i32): void {
  const p = tapeBase + (<usize>i << 4);
  store<u32>(p, kindFlags);
  store<u32>(p, <u32>start, 4);
  store<u32>(p, <u32>end, 8);
  store<i32>(p, next, 12);
}

// ---- parser -----------------------------------------------------------------------------

@inline function isWs(c: u32): bool {
  return c == 0x20 || c == 0x0a || c == 0x0d || c == 0x09;
}

// Depth of the container being parsed (0 at top level), for the canonical-as-is bookkeeping.
let curDepth: i32 = 0;
const STACK_SLOTS: usize = <usize>(DEPTH_MAX + 2) << 2;

@inline function markNotCanon(): void {
  if (curDepth > 0) store<i32>(stackBase + STACK_SLOTS + (<usize>curDepth << 2), 0);
}

function skipWsSlow(p: usize, end: usize): usize {
  while (p < end && isWs(<u32>load<u8>(p))) p++;
  markNotCanon();
  return p;
}

// Compact JSON has no whitespace: check one byte inline, call out only when there is some.
@inline function skipWs(p: usize, end: usize): usize {
  return p < end && isWs(<u32>load<u8>(p)) ? skipWsSlow(p, end) : p;
}

// Records an object key for the canonical-as-is check: keys must be plain and increasing.
function noteKey(key: i32): void {
  if (curDepth == 0) return;
  // Already not canonical: emission sorts and checks order anyway.
  if (load<i32>(stackBase + STACK_SLOTS + (<usize>curDepth << 2)) == 0) return;
  const prevSlot = stackBase + 2 * STACK_SLOTS + (<usize>curDepth << 2);
  const prev = load<i32>(prevSlot);
  if ((tFlags(key) & F_STRING_NEEDS_WORK) != 0 || (prev >= 0 && keyCompare(prev, key) >= 0)) markNotCanon();
  store<i32>(prevSlot, key);
}

// Closes the container at curDepth: flag it canonical or taint its parent.
function closeContainer(open: i32, p: usize): void {
  const canon = load<i32>(stackBase + STACK_SLOTS + (<usize>curDepth << 2)) != 0;
  const entry = tapeBase + (<usize>open << 4);
  store<u32>(entry, <u32>p, 8);
  store<i32>(entry, tapeLen, 12);
  curDepth--;
  if (canon) store<u32>(entry, load<u32>(entry) | F_CANON);
  else markNotCanon();
}

// Validates one multi-byte UTF-8 sequence at p (first byte >= 0x80); returns its length or 0.
function utf8SeqLen(p: usize, end: usize): i32 {
  const b0 = <u32>load<u8>(p);
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    if (p + 1 >= end) return 0;
    return (<u32>load<u8>(p + 1) & 0xc0) == 0x80 ? 2 : 0;
  }
  if (b0 >= 0xe0 && b0 <= 0xef) {
    if (p + 2 >= end) return 0;
    const b1 = <u32>load<u8>(p + 1);
    const b2 = <u32>load<u8>(p + 2);
    if ((b1 & 0xc0) != 0x80 || (b2 & 0xc0) != 0x80) return 0;
    if (b0 == 0xe0 && b1 < 0xa0) return 0; // overlong
    if (b0 == 0xed && b1 >= 0xa0) return 0; // UTF-16 surrogate
    return 3;
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    if (p + 3 >= end) return 0;
    const b1 = <u32>load<u8>(p + 1);
    if ((b1 & 0xc0) != 0x80 || (<u32>load<u8>(p + 2) & 0xc0) != 0x80 || (<u32>load<u8>(p + 3) & 0xc0) != 0x80) return 0;
    if (b0 == 0xf0 && b1 < 0x90) return 0;
    if (b0 == 0xf4 && b1 >= 0x90) return 0;
    return 4;
  }
  return 0;
}

@inline function hexVal(c: u32): i32 {
  if (c >= 0x30 && c <= 0x39) return <i32>(c - 0x30);
  const l = c | 0x20;
  if (l >= 0x61 && l <= 0x66) return <i32>(l - 0x61 + 10);
  return -1;
}

// Scans a string starting after its opening quote. Returns the position of the closing quote,
// or 0 on error (errorOffset set). Sets stringNeedsWork and stringEscaped.
let stringNeedsWork: bool = false;
let stringEscaped: bool = false;

@inline function stringFlags(): u32 {
  return (stringNeedsWork ? F_STRING_NEEDS_WORK : 0) | (stringEscaped ? F_STRING_ESCAPED : 0);
}

// Is the \uXXXX escape at p exactly what Python's ensure_ascii encoder writes?
function isCanonicalUnicodeEscape(p: usize): bool {
  let v: u32 = 0;
  for (let i: usize = 2; i < 6; i++) {
    const c = <u32>load<u8>(p + i);
    if (c >= 0x41 && c <= 0x46) return false; // uppercase hex
    v = (v << 4) | <u32>hexVal(c);
  }
  if (v < 0x20) return v != 0x08 && v != 0x09 && v != 0x0a && v != 0x0c && v != 0x0d;
  return v >= 0x7f; // Python escapes DEL too
}

function scanString(p: usize, end: usize): usize {
  stringNeedsWork = false;
  stringEscaped = false;
  const quote = i8x16.splat(0x22);
  const backslash = i8x16.splat(0x5c);
  const space = i8x16.splat(0x20);
  const del = i8x16.splat(0x7f);
  for (;;) {
    // 16 bytes at a time: stop at '"', '\\', a control byte or a non-ASCII byte.
    // The wrapper keeps 16 readable padding bytes after every input region.
    while (p + 16 <= end) {
      const v = v128.load(p);
      const special = v128.or(
        v128.or(i8x16.eq(v, quote), i8x16.eq(v, backslash)),
        v128.or(i8x16.lt_u(v, space), i8x16.eq(v, del)), // control bytes, DEL
      );
      const high = i8x16.bitmask(v); // sign bits: non-ASCII bytes
      const mask = <u32>i8x16.bitmask(special) | <u32>high;
      if (mask != 0) {
        p += <usize>ctz(mask);
        break;
      }
      p += 16;
    }
    if (p >= end) {
      errorOffset = <i32>p;
      return 0;
    }
    const c = <u32>load<u8>(p);
    if (c == 0x22) return p;
    if (c == 0x5c) {
      stringEscaped = true;
      if (p + 1 >= end) {
        errorOffset = <i32>p;
        return 0;
      }
      const e = <u32>load<u8>(p + 1);
      if (e == 0x75) {
        if (p + 5 >= end || hexVal(<u32>load<u8>(p + 2)) < 0 || hexVal(<u32>load<u8>(p + 3)) < 0 ||
          hexVal(<u32>load<u8>(p + 4)) < 0 || hexVal(<u32>load<u8>(p + 5)) < 0) {
          errorOffset = <i32>p;
          return 0;
        }
        if (!isCanonicalUnicodeEscape(p)) stringNeedsWork = true;
        p += 6;
      } else if (e == 0x22 || e == 0x5c || e == 0x62 || e == 0x66 || e == 0x6e || e == 0x72 || e == 0x74) {
        p += 2;
      } else if (e == 0x2f) {
        stringNeedsWork = true; // "\/" is written as "/"
        p += 2;
      } else {
        errorOffset = <i32>p;
        return 0;
      }
      continue;
    }
    if (c < 0x20) {
      errorOffset = <i32>p;
      return 0;
    }
    if (c == 0x7f) {
      stringNeedsWork = true; // written as \u007f
      p++;
      continue;
    }
    if (c >= 0x80) {
      const n = utf8SeqLen(p, end);
      if (n == 0) {
        errorOffset = -1 - <i32>p; // negative marks invalid UTF-8
        return 0;
      }
      stringNeedsWork = true;
      p += <usize>n;
      continue;
    }
    p++;
  }
  return 0;
}

// Scans a number at p. Returns the end position or 0 on error; sets numberKind/numberFlags.
let numberKind: u32 = 0;
let numberFlags: u32 = 0;

function scanNumber(p: usize, end: usize): usize {
  const lexemeStart = p;
  let neg = false;
  if (p < end && load<u8>(p) == 0x2d) {
    neg = true;
    p++;
  }
  if (p >= end) return 0;
  const intStart = p;
  let c = <u32>load<u8>(p);
  if (c == 0x30) {
    p++;
  } else if (c >= 0x31 && c <= 0x39) {
    p++;
    while (p < end && <u32>load<u8>(p) - 0x30 <= 9) p++;
  } else {
    return 0;
  }
  const intEnd = p;
  let fracStart: usize = 0;
  let fracEnd: usize = 0;
  let hasExp = false;
  if (p < end && load<u8>(p) == 0x2e) {
    p++;
    fracStart = p;
    while (p < end && <u32>load<u8>(p) - 0x30 <= 9) p++;
    if (p == fracStart) return 0;
    fracEnd = p;
  }
  if (p < end && (load<u8>(p) | 0x20) == 0x65) {
    hasExp = true;
    p++;
    if (p < end && (load<u8>(p) == 0x2b || load<u8>(p) == 0x2d)) p++;
    const expStart = p;
    while (p < end && <u32>load<u8>(p) - 0x30 <= 9) p++;
    if (p == expStart) return 0;
  }
  numberFlags = 0;
  if (fracStart == 0 && !hasExp) {
    numberKind = T_INT;
    if (<i32>(intEnd - intStart) > INT_DIGITS_MAX) return 0;
    if (neg && intEnd - intStart == 1 && load<u8>(intStart) == 0x30) numberFlags = F_INT_NEG_ZERO;
    return p;
  }
  numberKind = T_FLOAT;
  // Fast path: fixed notation, at most 15 significant digits, no superfluous zeros, and
  // 1e-4 <= |x| < 1e16 (or zero). Such a lexeme is the shortest round-trip repr of its double
  // (DBL_DIG = 15), hence exactly Python's repr.
  if (!hasExp) {
    const intIsZero = intEnd - intStart == 1 && load<u8>(intStart) == 0x30;
    const fracLen = <i32>(fracEnd - fracStart);
    const lastFrac = <u32>load<u8>(fracEnd - 1);
    let sig: i32 = 0;
    let ok = true;
    if (intIsZero) {
      let z: usize = fracStart;
      while (z < fracEnd && load<u8>(z) == 0x30) z++;
      if (z == fracEnd) {
        ok = fracLen == 1; // "0.0" only
      } else {
        ok = <i32>(z - fracStart) <= 3 && lastFrac != 0x30;
        sig = <i32>(fracEnd - z);
      }
    } else if (fracLen == 1 && lastFrac == 0x30) {
      sig = <i32>(intEnd - intStart);
    } else {
      ok = lastFrac != 0x30;
      sig = <i32>(intEnd - intStart) + fracLen;
    }
    if (ok && sig <= 15) {
      numberFlags = F_FLOAT_AS_IS;
      return p;
    }
  }
  // Slow path (16-17 digit or exponent lexemes): ask the host for the repr and compare. Logs
  // written by Python or zaxy hold reprs, so their containers stay copyable.
  const len = <i32>(p - lexemeStart);
  if (len <= 32) {
    const at = scratchBase + 704; // 64 bytes: a repr is at most 25 characters
    const n = hostFormatFloat(lexemeStart, len, at);
    if (n == len && compareBytes(at, lexemeStart, <usize>len) == 0) numberFlags = F_FLOAT_AS_IS;
  }
  return p;
}

@inline function startsWith(p: usize, end: usize, a: u32, b: u32, c: u32, d: u32): bool {
  return p + 4 <= end && <u32>load<u8>(p) == a && <u32>load<u8>(p + 1) == b && <u32>load<u8>(p + 2) == c &&
    <u32>load<u8>(p + 3) == d;
}

// The first 7 bytes of a key, big-endian, in the high bytes of a u64, so one integer comparison
// orders most keys; the low byte is 0xff for keys with escapes (their bytes are not in code
// point order, so they always take the full comparison). Reads 8 bytes at `start`: the key's
// closing quote and colon follow it, and the input region has padding after it.
function storeKeyPrefix(key: i32, start: usize, end: usize): void {
  const len = end - start;
  let v = bswap<u64>(load<u64>(start));
  if (len < 7) v &= ~(<u64>0xffffffffffffffff >> (<u64>len << 3));
  v = (v & 0xffffffffffffff00) | (stringEscaped ? 0xff : 0);
  store<u64>(prefixBase + (<usize>key << 3), v);
}

// Key order: the prefixes decide unless they are equal or either key has escapes.
@inline function keyCompare(a: i32, b: i32): i32 {
  const pa = load<u64>(prefixBase + (<usize>a << 3));
  const pb = load<u64>(prefixBase + (<usize>b << 3));
  if (((pa | pb) & 0xff) == 0 && pa != pb) return pa < pb ? -1 : 1;
  return compareKeys(a, b);
}

// Parses an object key and its colon at p; returns the position of the value or ERR_* (< 0).
function parseKey(p: usize, end: usize): isize {
  if (p >= end || load<u8>(p) != 0x22) {
    errorOffset = <i32>p;
    return ERR_SYNTAX;
  }
  const q = scanString(p + 1, end);
  if (q == 0) return errorOffset < 0 ? ERR_UTF8 : ERR_SYNTAX;
  tSet(tapeLen, T_STRING | stringFlags(), p, q + 1, tapeLen + 1);
  storeKeyPrefix(tapeLen, p + 1, q);
  noteKey(tapeLen);
  tapeLen++;
  p = skipWs(q + 1, end);
  if (p >= end || load<u8>(p) != 0x3a) {
    errorOffset = <i32>p;
    return ERR_SYNTAX;
  }
  return <isize>skipWs(p + 1, end);
}

// Parses one JSON document in [p, end). Returns ERR_* (< 0) or 0, with the tape filled.
export function parse(p: usize, end: usize): i32 {
  tapeLen = 0;
  errorOffset = 0;
  let depth: i32 = 0;
  curDepth = 0;
  p = skipWs(p, end);
  // expectValue: we are at a value position. afterValue: we are after a value.
  for (;;) {
    // ---- value ----
    if (p >= end) {
      errorOffset = <i32>p;
      return ERR_SYNTAX;
    }
    if (tapeLen + 2 > tapeCap) return ERR_TAPE_FULL;
    const c = <u32>load<u8>(p);
    let closed = true; // whether a complete value was produced (vs. a container opened)
    if (c == 0x22) {
      const q = scanString(p + 1, end);
      if (q == 0) return errorOffset < 0 ? ERR_UTF8 : ERR_SYNTAX;
      if (stringNeedsWork) markNotCanon();
      tSet(tapeLen, T_STRING | stringFlags(), p, q + 1, tapeLen + 1);
      tapeLen++;
      p = q + 1;
    } else if (c == 0x7b || c == 0x5b) {
      depth++;
      if (depth > DEPTH_MAX) {
        errorOffset = <i32>p;
        return ERR_DEPTH;
      }
      store<i32>(stackBase + (<usize>depth << 2), tapeLen);
      curDepth = depth;
      store<i32>(stackBase + STACK_SLOTS + (<usize>depth << 2), 1);
      store<i32>(stackBase + 2 * STACK_SLOTS + (<usize>depth << 2), -1);
      tSet(tapeLen, c == 0x7b ? T_OBJECT : T_ARRAY, p, 0, 0);
      tapeLen++;
      p = skipWs(p + 1, end);
      const closer: u32 = c == 0x7b ? 0x7d : 0x5d;
      if (p < end && <u32>load<u8>(p) == closer) {
        const open = load<i32>(stackBase + (<usize>depth << 2));
        depth--;
        p++;
        closeContainer(open, p);
      } else if (c == 0x7b) {
        closed = false;
        // Object: a key must follow.
        const r = parseKey(p, end);
        if (r < 0) return <i32>r;
        p = <usize>r;
        continue;
      } else {
        closed = false;
        continue;
      }
    } else if (c == 0x74 && startsWith(p, end, 0x74, 0x72, 0x75, 0x65)) {
      tSet(tapeLen, T_TRUE, p, p + 4, tapeLen + 1);
      tapeLen++;
      p += 4;
    } else if (c == 0x66 && p + 5 <= end && startsWith(p, end, 0x66, 0x61, 0x6c, 0x73) && load<u8>(p + 4) == 0x65) {
      tSet(tapeLen, T_FALSE, p, p + 5, tapeLen + 1);
      tapeLen++;
      p += 5;
    } else if (c == 0x6e && startsWith(p, end, 0x6e, 0x75, 0x6c, 0x6c)) {
      tSet(tapeLen, T_NULL, p, p + 4, tapeLen + 1);
      tapeLen++;
      p += 4;
    } else if (c == 0x4e && p + 3 <= end && load<u8>(p + 1) == 0x61 && load<u8>(p + 2) == 0x4e) {
      tSet(tapeLen, T_SPECIAL, p, p + 3, tapeLen + 1);
      tapeLen++;
      p += 3;
    } else if ((c == 0x49 || c == 0x2d) && isInfinity(c == 0x2d ? p + 1 : p, end)) {
      const q = (c == 0x2d ? p + 1 : p) + 8;
      tSet(tapeLen, T_SPECIAL, p, q, tapeLen + 1);
      tapeLen++;
      p = q;
    } else {
      const q = scanNumber(p, end);
      if (q == 0) {
        errorOffset = <i32>p;
        return ERR_SYNTAX;
      }
      if (numberKind == T_INT ? numberFlags != 0 : numberFlags == 0) markNotCanon();
      tSet(tapeLen, numberKind | numberFlags, p, q, tapeLen + 1);
      tapeLen++;
      p = q;
    }
    if (!closed) continue;
    // ---- after a value: close containers or move to the next member ----
    for (;;) {
      p = skipWs(p, end);
      if (depth == 0) {
        if (p != end) {
          errorOffset = <i32>p;
          return ERR_SYNTAX;
        }
        return 0;
      }
      if (p >= end) {
        errorOffset = <i32>p;
        return ERR_SYNTAX;
      }
      const open = load<i32>(stackBase + (<usize>depth << 2));
      const isObject = tKind(open) == T_OBJECT;
      const d = <u32>load<u8>(p);
      if (d == 0x2c) {
        p = skipWs(p + 1, end);
        if (isObject) {
          if (tapeLen + 2 > tapeCap) return ERR_TAPE_FULL;
          const r = parseKey(p, end);
          if (r < 0) return <i32>r;
          p = <usize>r;
        }
        break; // parse the next value
      }
      if ((isObject && d == 0x7d) || (!isObject && d == 0x5d)) {
        p++;
        depth--;
        closeContainer(open, p);
        continue;
      }
      errorOffset = <i32>p;
      return ERR_SYNTAX;
    }
  }
  return ERR_SYNTAX;
}

function isInfinity(p: usize, end: usize): bool {
  // "Infinity"
  return p + 8 <= end && load<u64>(p) == 0x7974696e69666e49;
}

// ---- output -----------------------------------------------------------------------------

let outPos: usize = 0;

// Appends [src, src + len) to the output. Short copies dominate (keys, small values), and a
// bulk memory.copy costs a call into the engine each time, so copy 16 bytes at a time with
// SIMD; the last store may write up to 15 bytes past the end, which the output's slack
// absorbs and later output overwrites. Reading past `src + len` stays inside the input (its
// padding) or the scratch region.
@inline function putBytes(src: usize, len: usize): void {
  if (len <= 16) {
    v128.store(outPos, v128.load(src));
  } else if (len <= 64) {
    let i: usize = 0;
    for (; i + 16 < len; i += 16) v128.store(outPos + i, v128.load(src + i));
    v128.store(outPos + len - 16, v128.load(src + len - 16));
  } else {
    memory.copy(outPos, src, len);
  }
  outPos += len;
}

@inline function put(c: u32): void {
  store<u8>(outPos, <u8>c);
  outPos++;
}

@inline function hexDigit(v: u32): u32 {
  return v < 10 ? 0x30 + v : 0x57 + v;
}

function putU16Escape(u: u32): void {
  put(0x5c);
  put(0x75);
  put(hexDigit((u >> 12) & 15));
  put(hexDigit((u >> 8) & 15));
  put(hexDigit((u >> 4) & 15));
  put(hexDigit(u & 15));
}

// Emits one UTF-16 code unit the way Python's ensure_ascii encoder does.
function putCodeUnit(u: u32): void {
  if (u >= 0x20 && u < 0x7f) {
    if (u == 0x22 || u == 0x5c) put(0x5c);
    put(u);
    return;
  }
  if (u == 0x0a) { put(0x5c); put(0x6e); return; }
  if (u == 0x0d) { put(0x5c); put(0x72); return; }
  if (u == 0x09) { put(0x5c); put(0x74); return; }
  if (u == 0x08) { put(0x5c); put(0x62); return; }
  if (u == 0x0c) { put(0x5c); put(0x66); return; }
  putU16Escape(u);
}

function emitString(i: i32): void {
  const start = tStart(i);
  const end = tEnd(i);
  if ((tFlags(i) & F_STRING_NEEDS_WORK) == 0) {
    putBytes(start, end - start);
    return;
  }
  put(0x22);
  let p = start + 1;
  const stop = end - 1;
  while (p < stop) {
    const c = <u32>load<u8>(p);
    if (c == 0x5c) {
      const e = <u32>load<u8>(p + 1);
      if (e == 0x75) {
        const u = <u32>((hexVal(<u32>load<u8>(p + 2)) << 12) | (hexVal(<u32>load<u8>(p + 3)) << 8) |
          (hexVal(<u32>load<u8>(p + 4)) << 4) | hexVal(<u32>load<u8>(p + 5)));
        putCodeUnit(u);
        p += 6;
        continue;
      }
      let u: u32 = e; // \" \\ \/
      if (e == 0x62) u = 0x08;
      else if (e == 0x66) u = 0x0c;
      else if (e == 0x6e) u = 0x0a;
      else if (e == 0x72) u = 0x0d;
      else if (e == 0x74) u = 0x09;
      putCodeUnit(u);
      p += 2;
      continue;
    }
    if (c < 0x7f) {
      put(c); // plain ASCII (a '"' cannot occur unescaped inside the token)
      p++;
      continue;
    }
    if (c == 0x7f) {
      putU16Escape(c);
      p++;
      continue;
    }
    // Multi-byte UTF-8, validated by the scanner.
    let cp: u32;
    if (c < 0xe0) {
      cp = ((c & 0x1f) << 6) | (<u32>load<u8>(p + 1) & 0x3f);
      p += 2;
    } else if (c < 0xf0) {
      cp = ((c & 0x0f) << 12) | ((<u32>load<u8>(p + 1) & 0x3f) << 6) | (<u32>load<u8>(p + 2) & 0x3f);
      p += 3;
    } else {
      cp = ((c & 0x07) << 18) | ((<u32>load<u8>(p + 1) & 0x3f) << 12) | ((<u32>load<u8>(p + 2) & 0x3f) << 6) |
        (<u32>load<u8>(p + 3) & 0x3f);
      p += 4;
    }
    if (cp >= 0x10000) {
      const v = cp - 0x10000;
      putU16Escape(0xd800 | (v >> 10));
      putU16Escape(0xdc00 | (v & 0x3ff));
    } else {
      putU16Escape(cp);
    }
  }
  put(0x22);
}

// Reads the next code point of a string token at p (inside the quotes); returns it and
// advances `cpNext`. Escaped surrogate pairs combine, as Python's decoder combines them.
let cpNext: usize = 0;

function nextCodePoint(p: usize): u32 {
  const c = <u32>load<u8>(p);
  if (c == 0x5c) {
    const e = <u32>load<u8>(p + 1);
    if (e != 0x75) {
      cpNext = p + 2;
      if (e == 0x62) return 0x08;
      if (e == 0x66) return 0x0c;
      if (e == 0x6e) return 0x0a;
      if (e == 0x72) return 0x0d;
      if (e == 0x74) return 0x09;
      return e;
    }
    const u = <u32>((hexVal(<u32>load<u8>(p + 2)) << 12) | (hexVal(<u32>load<u8>(p + 3)) << 8) |
      (hexVal(<u32>load<u8>(p + 4)) << 4) | hexVal(<u32>load<u8>(p + 5)));
    cpNext = p + 6;
    if (u >= 0xd800 && u <= 0xdbff && load<u8>(p + 6) == 0x5c && load<u8>(p + 7) == 0x75) {
      const h0 = hexVal(<u32>load<u8>(p + 8));
      const h1 = hexVal(<u32>load<u8>(p + 9));
      const h2 = hexVal(<u32>load<u8>(p + 10));
      const h3 = hexVal(<u32>load<u8>(p + 11));
      if (h0 >= 0 && h1 >= 0 && h2 >= 0 && h3 >= 0) {
        const lo = <u32>((h0 << 12) | (h1 << 8) | (h2 << 4) | h3);
        if (lo >= 0xdc00 && lo <= 0xdfff) {
          cpNext = p + 12;
          return 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
        }
      }
    }
    return u;
  }
  if (c < 0x80) {
    cpNext = p + 1;
    return c;
  }
  if (c < 0xe0) {
    cpNext = p + 2;
    return ((c & 0x1f) << 6) | (<u32>load<u8>(p + 1) & 0x3f);
  }
  if (c < 0xf0) {
    cpNext = p + 3;
    return ((c & 0x0f) << 12) | ((<u32>load<u8>(p + 1) & 0x3f) << 6) | (<u32>load<u8>(p + 2) & 0x3f);
  }
  cpNext = p + 4;
  return ((c & 0x07) << 18) | ((<u32>load<u8>(p + 1) & 0x3f) << 12) | ((<u32>load<u8>(p + 2) & 0x3f) << 6) |
    (<u32>load<u8>(p + 3) & 0x3f);
}

// Compares two string tokens by decoded code points (Python str order).
function compareKeys(a: i32, b: i32): i32 {
  let pa = tStart(a) + 1;
  const ea = tEnd(a) - 1;
  let pb = tStart(b) + 1;
  const eb = tEnd(b) - 1;
  if (((tFlags(a) | tFlags(b)) & F_STRING_ESCAPED) == 0) {
    // No escapes on either side: UTF-8 byte order is code point order.
    const la = ea - pa;
    const lb = eb - pb;
    const n = la < lb ? la : lb;
    const r = compareBytes(pa, pb, n);
    if (r != 0) return r;
    return <i32>la - <i32>lb;
  }
  while (pa < ea && pb < eb) {
    const ca = nextCodePoint(pa);
    pa = cpNext;
    const cb = nextCodePoint(pb);
    pb = cpNext;
    if (ca != cb) return ca < cb ? -1 : 1;
  }
  if (pa < ea) return 1;
  if (pb < eb) return -1;
  return 0;
}

// memcmp, 8 bytes at a time (big-endian order decides, so byte-swap before comparing).
function compareBytes(a: usize, b: usize, n: usize): i32 {
  while (n >= 8) {
    const x = load<u64>(a);
    const y = load<u64>(b);
    if (x != y) return bswap<u64>(x) < bswap<u64>(y) ? -1 : 1;
    a += 8;
    b += 8;
    n -= 8;
  }
  while (n > 0) {
    const x = <i32>load<u8>(a);
    const y = <i32>load<u8>(b);
    if (x != y) return x - y;
    a++;
    b++;
    n--;
  }
  return 0;
}

@inline function sortSlot(i: i32): usize {
  return sortBase + (<usize>i << 2);
}

// Stable merge sort of key tape indices in slots [lo, hi) using the scratch half.
function mergeSort(lo: i32, hi: i32): void {
  const n = hi - lo;
  if (n < 2) return;
  if (n <= 16) {
    for (let i = lo + 1; i < hi; i++) {
      const k = load<i32>(sortSlot(i));
      let j = i - 1;
      while (j >= lo && keyCompare(load<i32>(sortSlot(j)), k) > 0) {
        store<i32>(sortSlot(j + 1), load<i32>(sortSlot(j)));
        j--;
      }
      store<i32>(sortSlot(j + 1), k);
    }
    return;
  }
  const mid = lo + (n >> 1);
  mergeSort(lo, mid);
  mergeSort(mid, hi);
  if (keyCompare(load<i32>(sortSlot(mid - 1)), load<i32>(sortSlot(mid))) <= 0) return;
  const scratch = sortBase + (<usize>tapeCap << 2);
  let i = lo;
  let j = mid;
  let k: i32 = 0;
  while (i < mid && j < hi) {
    const a = load<i32>(sortSlot(i));
    const b = load<i32>(sortSlot(j));
    if (keyCompare(a, b) <= 0) {
      store<i32>(scratch + (<usize>k << 2), a);
      i++;
    } else {
      store<i32>(scratch + (<usize>k << 2), b);
      j++;
    }
    k++;
  }
  while (i < mid) {
    store<i32>(scratch + (<usize>k << 2), load<i32>(sortSlot(i)));
    i++;
    k++;
  }
  while (j < hi) {
    store<i32>(scratch + (<usize>k << 2), load<i32>(sortSlot(j)));
    j++;
    k++;
  }
  memory.copy(sortSlot(lo), scratch, <usize>k << 2);
}

function emitNumber(i: i32): void {
  const start = tStart(i);
  const end = tEnd(i);
  const flags = tFlags(i);
  if ((flags & KIND_MASK) == T_INT) {
    if ((flags & F_INT_NEG_ZERO) != 0) {
      put(0x30);
      return;
    }
  } else if ((flags & F_FLOAT_AS_IS) == 0) {
    outPos += <usize>hostFormatFloat(start, <i32>(end - start), outPos);
    return;
  }
  putBytes(start, end - start);
}

// Emits the canonical form of the value at tape index i.
function emitValue(i: i32): void {
  const kind = tKind(i);
  if (kind == T_STRING) {
    emitString(i);
  } else if (kind == T_INT || kind == T_FLOAT) {
    emitNumber(i);
  } else if ((tFlags(i) & F_CANON) != 0) {
    const start = tStart(i);
    const len = tEnd(i) - start;
    putBytes(start, len);
  } else if (kind == T_OBJECT) {
    emitObject(i);
  } else if (kind == T_ARRAY) {
    put(0x5b);
    let c = i + 1;
    const stop = tNext(i);
    let first = true;
    while (c < stop) {
      if (!first) put(0x2c);
      first = false;
      emitValue(c);
      c = tNext(c);
    }
    put(0x5d);
  } else {
    // null, true, false, NaN, Infinity, -Infinity: the lexeme is canonical.
    const start = tStart(i);
    const len = tEnd(i) - start;
    putBytes(start, len);
  }
}

function emitObject(i: i32): void {
  put(0x7b);
  const stop = tNext(i);
  // Collect member keys; check whether they are already strictly increasing.
  const base = sortTop;
  let sorted = true;
  let k = i + 1;
  while (k < stop) {
    if (sortTop > base && sorted && keyCompare(load<i32>(sortSlot(sortTop - 1)), k) >= 0) sorted = false;
    store<i32>(sortSlot(sortTop), k);
    sortTop++;
    k = tNext(k + 1); // skip the key, then the value's subtree
  }
  const count = sortTop - base;
  if (!sorted) mergeSort(base, sortTop);
  let first = true;
  for (let m = 0; m < count; m++) {
    const key = load<i32>(sortSlot(base + m));
    // Duplicate keys: Python keeps the last value, so skip a key equal to the next one.
    if (!sorted && m + 1 < count && keyCompare(key, load<i32>(sortSlot(base + m + 1))) == 0) continue;
    if (!first) put(0x2c);
    first = false;
    emitString(key);
    put(0x3a);
    emitValue(key + 1);
  }
  sortTop = base;
  put(0x7d);
}

/** Canonicalises the document in [p, end) into `out`. Returns the length or ERR_*. */
export function canonicalize(p: usize, end: usize, out: usize): i32 {
  const r = parse(p, end);
  if (r < 0) return r;
  outPos = out;
  sortTop = 0;
  emitValue(0);
  return <i32>(outPos - out);
}

// ---- Eventloom verification -------------------------------------------------------------

// Record layout (i32 slots), then 32 bytes of the stored hash at byte offset 64.
export const REC_BYTES: i32 = 96;
const R_KIND = 0; // 1 legacy, 2 v1, or a negative ERR_*
const R_LINE = 1; // physical line number (1-based)
const R_EVENT = 2; // event number n (non-blank lines)
const R_LINE_START = 3;
const R_LINE_END = 4;
const R_PRE_START = 5;
const R_PRE_END = 6;
const R_SEQ_OK = 7;
const R_HASH_VALID = 8;
const R_FIRST_PREV_OK = 9;
const R_LINK_OK = 10;
const R_ERROR_OFFSET = 11;
const R_TERMINATED = 12;

let lineCounter: i32 = 0;
let eventCounter: i32 = 0;
let hasPrev: bool = false;
let prevValid: bool = false;
let prevHexBase: usize = 0; // 64 bytes inside the scratch region
let consumedBytes: i32 = 0;

export function resetChain(): void {
  lineCounter = 0;
  eventCounter = 0;
  hasPrev = false;
  prevValid = false;
}

export function consumed(): i32 {
  return consumedBytes;
}

@inline function isLowerHex(c: u32): bool {
  return (c - 0x30 <= 9) || (c - 0x61 <= 5);
}

function decodedEquals(p: usize, end: usize, namePtr: usize, nameLen: usize): bool {
  let i: usize = 0;
  while (p < end) {
    if (i >= nameLen) return false;
    const cp = nextCodePoint(p);
    p = cpNext;
    if (cp != <u32>load<u8>(namePtr + i)) return false;
    i++;
  }
  return i == nameLen;
}

// Static key names, laid out once in the scratch region by `init`.
const NAMES = "seq|timestamp|type|actor|thread|payload|security|prev_hash|hash|id|actorId|threadId|parentEventId|causedBy|integrity|previousHash";
let namesBase: usize = 0;
// Offsets and lengths of the names, 16 i32 each, in scratch bytes 512..639 (no allocator here).
let nameTable: usize = 0;
@inline function nameOffAt(n: i32): i32 {
  return load<i32>(nameTable + (<usize>n << 2));
}
@inline function nameLenAt(n: i32): i32 {
  return load<i32>(nameTable + 64 + (<usize>n << 2));
}

const N_SEQ = 0;
const N_TIMESTAMP = 1;
const N_TYPE = 2;
const N_ACTOR = 3;
const N_THREAD = 4;
const N_PAYLOAD = 5;
const N_SECURITY = 6;
const N_PREV_HASH = 7;
const N_HASH = 8;
const N_ID = 9;
const N_ACTOR_ID = 10;
const N_THREAD_ID = 11;
const N_PARENT_EVENT_ID = 12;
const N_CAUSED_BY = 13;
const N_INTEGRITY = 14;
const N_PREVIOUS_HASH = 15;

// 256-entry table: value of a lowercase hex digit, 0xff otherwise (scratch bytes 768..1023).
let hexTable: usize = 0;

/**
 * Lays out the scratch region (call after `configure`): 0..63 previous hash, 64..127 stored
 * hash, 128..511 key names, 512..639 their offsets and lengths, 640..703 the member table,
 * 704..767 float repr scratch, 768..1023 the hex table.
 */
export function init(): void {
  namesBase = scratchBase + 128;
  nameTable = scratchBase + 512;
  prevHexBase = scratchBase;
  hexTable = scratchBase + 768;
  for (let c: u32 = 0; c < 256; c++) {
    const v: u32 = c - 0x30 <= 9 ? c - 0x30 : c - 0x61 <= 5 ? c - 0x61 + 10 : 0xff;
    store<u8>(hexTable + <usize>c, <u8>v);
  }
  let idx = 0;
  let start = 1;
  // Each name is stored as "name": so that writing a member key is one copy; the table points
  // at the name itself (for comparisons) and putAscii copies one byte before to two after.
  let at: i32 = 1;
  store<u8>(namesBase, 0x22);
  for (let i = 0; i <= NAMES.length; i++) {
    if (i == NAMES.length || NAMES.charCodeAt(i) == 0x7c) {
      store<i32>(nameTable + (<usize>idx << 2), start);
      store<i32>(nameTable + 64 + (<usize>idx << 2), at - start);
      store<u8>(namesBase + <usize>at, 0x22);
      store<u8>(namesBase + <usize>at + 1, 0x3a);
      store<u8>(namesBase + <usize>at + 2, 0x22);
      idx++;
      at += 3;
      start = at;
    } else {
      store<u8>(namesBase + <usize>at, <u8>NAMES.charCodeAt(i));
      at++;
    }
  }
}

// Value tape index of each name for the current line (-1 when absent), 16 i32 in scratch
// bytes 640..703. Filled by one pass over the top-level members; later duplicates win.
@inline function find(n: i32): i32 {
  return load<i32>(scratchBase + 640 + (<usize>n << 2));
}

// The envelope name a top-level key of this length and first byte could be, or -1.
function candidateName(len: i32, first: u32): i32 {
  switch (len) {
    case 2: return N_ID;
    case 3: return N_SEQ;
    case 4: return first == 0x74 ? N_TYPE : N_HASH;
    case 5: return N_ACTOR;
    case 6: return N_THREAD;
    case 7: return first == 0x70 ? N_PAYLOAD : N_ACTOR_ID;
    case 8: return first == 0x73 ? N_SECURITY : first == 0x74 ? N_THREAD_ID : N_CAUSED_BY;
    case 9: return first == 0x74 ? N_TIMESTAMP : first == 0x70 ? N_PREV_HASH : N_INTEGRITY;
    case 13: return N_PARENT_EVENT_ID;
    default: return -1;
  }
}

function classifyMembers(): void {
  const table = scratchBase + 640;
  memory.fill(table, 0xff, 64);
  const stop = tNext(0);
  let k = 1;
  while (k < stop) {
    const ks = tStart(k) + 1;
    const ke = tEnd(k) - 1;
    const len = <i32>(ke - ks);
    const plain = (tFlags(k) & F_STRING_ESCAPED) == 0;
    if (plain) {
      // The length and first byte leave at most one candidate name.
      const n = candidateName(len, <u32>load<u8>(ks));
      if (n >= 0 && compareBytes(ks, namesBase + <usize>nameOffAt(n), <usize>len) == 0) {
        store<i32>(table + (<usize>n << 2), k + 1);
      }
    } else {
      for (let n = 0; n < 16; n++) {
        if (!decodedEquals(ks, ke, namesBase + <usize>nameOffAt(n), <usize>nameLenAt(n))) continue;
        store<i32>(table + (<usize>n << 2), k + 1);
        break;
      }
    }
    k = tNext(k + 1);
  }
}

function putAscii(n: i32): void {
  putBytes(namesBase + <usize>nameOffAt(n) - 1, <usize>nameLenAt(n) + 3);
}

function emitMember(n: i32, v: i32): void {
  putAscii(n);
  if (v < 0) {
    put(0x6e); put(0x75); put(0x6c); put(0x6c);
  } else {
    emitValue(v);
  }
}

// Canonical form of a short value v (or of a missing value, as null) at `at`; returns its
// length or -1 when v cannot be a hash or null.
function canonicalSmall(v: i32, at: usize): i32 {
  if (v < 0) {
    store<u32>(at, 0x6c6c756e); // "null"
    return 4;
  }
  // Only short strings can equal a hash; anything else (bounded to 80 input bytes, at most 480
  // output bytes) is reported as "no match" without being written.
  const kind = tKind(v);
  if (kind == T_NULL) {
    store<u32>(at, 0x6c6c756e);
    return 4;
  }
  if (kind != T_STRING || tEnd(v) - tStart(v) > 80) return -1;
  const saved = outPos;
  outPos = at;
  emitValue(v);
  const len = <i32>(outPos - at);
  outPos = saved;
  return len;
}

// Is value v the string `prefix ++ prevHex` (prefix "" or "sha256:")?
function equalsPrev(v: i32, withPrefix: bool, at: usize): bool {
  // Fast path: a string without escapes is its own canonical form.
  if (v >= 0 && tKind(v) == T_STRING && (tFlags(v) & F_STRING_ESCAPED) == 0) {
    const start = tStart(v) + 1;
    const n = tEnd(v) - 1 - start;
    if (withPrefix) return n == 71 && isSha256Prefix(start) && compareBytes(start + 7, prevHexBase, 64) == 0;
    return n == 64 && compareBytes(start, prevHexBase, 64) == 0;
  }
  const len = canonicalSmall(v, at);
  const want = withPrefix ? 73 : 66;
  if (len != want) return false;
  if (load<u8>(at) != 0x22 || load<u8>(at + <usize>want - 1) != 0x22) return false;
  let h = at + 1;
  if (withPrefix) {
    if (!isSha256Prefix(h)) return false;
    h += 7;
  }
  return compareBytes(h, prevHexBase, 64) == 0;
}

function isSha256Prefix(p: usize): bool {
  // "sha256:"
  return load<u8>(p) == 0x73 && load<u8>(p + 1) == 0x68 && load<u8>(p + 2) == 0x61 && load<u8>(p + 3) == 0x32 &&
    load<u8>(p + 4) == 0x35 && load<u8>(p + 5) == 0x36 && load<u8>(p + 6) == 0x3a;
}

// Decodes a stored hash value (optionally "sha256:"-prefixed) into 32 bytes at dst and its hex
// into hexDst. Returns false unless it is exactly 64 lowercase hex digits.
function decodeStoredHash(v: i32, withPrefix: bool, at: usize, dst: usize, hexDst: usize): bool {
  let h: usize;
  if (v >= 0 && tKind(v) == T_STRING && (tFlags(v) & F_STRING_ESCAPED) == 0) {
    // Fast path: decode straight from the input.
    const start = tStart(v) + 1;
    const n = tEnd(v) - 1 - start;
    if (n != (withPrefix ? 71 : 64)) return false;
    h = start;
  } else {
    const len = canonicalSmall(v, at);
    if (len != (withPrefix ? 73 : 66) || load<u8>(at) != 0x22) return false;
    h = at + 1;
  }
  if (withPrefix) {
    if (!isSha256Prefix(h)) return false;
    h += 7;
  }
  // Two hex digits per step through a 256-entry table (0xff = not lowercase hex).
  let bad: u32 = 0;
  for (let i: usize = 0; i < 32; i++) {
    const hi = <u32>load<u8>(hexTable + <usize>load<u8>(h + 2 * i));
    const lo = <u32>load<u8>(hexTable + <usize>load<u8>(h + 2 * i + 1));
    bad |= (hi | lo) & 0xf0;
    store<u8>(dst + i, <u8>((hi << 4) | (lo & 15)));
  }
  if (bad != 0) return false;
  memory.copy(hexDst, h, 64);
  return true;
}

// Is the value at v the integer n?
// Python compares `rec.get("seq") != n`, so 18.0 and True (for 1) are equal to the int too.
function isIntEqual(v: i32, n: i32): bool {
  if (v < 0) return false;
  const kind = tKind(v);
  if (kind == T_TRUE) return n == 1;
  if (kind == T_FLOAT) return floatEqualsInt(v, n);
  if (kind != T_INT) return false;
  const start = tStart(v);
  const len = <i32>(tEnd(v) - start);
  if (len > 10) return false;
  let value: i64 = 0;
  let p = start;
  if (load<u8>(p) == 0x2d) return n == 0 && len == 2 && load<u8>(p + 1) == 0x30;
  for (let i = 0; i < len; i++) value = value * 10 + <i64>(load<u8>(p + <usize>i) - 0x30);
  return value == <i64>n;
}

// Is the float at v equal to n? Its repr must be "<n>.0" (the host formats it).
function floatEqualsInt(v: i32, n: i32): bool {
  const start = tStart(v);
  const len = <i32>(tEnd(v) - start);
  if (len > 32) return false;
  const at = scratchBase + 704;
  const reprLen = hostFormatFloat(start, len, at);
  // Write "<n>.0" after the repr and compare.
  let digits: i32 = 1;
  for (let t = n; t >= 10; t /= 10) digits++;
  if (reprLen != digits + 2) return false;
  let t = n;
  for (let i = digits - 1; i >= 0; i--) {
    if (<i32>load<u8>(at + <usize>i) != 0x30 + t % 10) return false;
    t /= 10;
  }
  return load<u8>(at + <usize>digits) == 0x2e && load<u8>(at + <usize>digits + 1) == 0x30;
}

// Python's str.strip() also removes Unicode whitespace. Returns the length of the UTF-8
// sequence at p if it encodes one (U+0085, U+00A0, U+1680, U+2000..U+200A, U+2028, U+2029,
// U+202F, U+205F, U+3000), else 0.
function unicodeSpaceLen(p: usize, end: usize): i32 {
  const b0 = <u32>load<u8>(p);
  if (b0 == 0xc2 && p + 1 < end) {
    const b1 = <u32>load<u8>(p + 1);
    return b1 == 0x85 || b1 == 0xa0 ? 2 : 0;
  }
  if (p + 2 >= end) return 0;
  const b1 = <u32>load<u8>(p + 1);
  const b2 = <u32>load<u8>(p + 2);
  if (b0 == 0xe1) return b1 == 0x9a && b2 == 0x80 ? 3 : 0;
  if (b0 == 0xe2 && b1 == 0x80) return b2 <= 0x8a || b2 == 0xa8 || b2 == 0xa9 || b2 == 0xaf ? 3 : 0;
  if (b0 == 0xe2 && b1 == 0x81) return b2 == 0x9f ? 3 : 0;
  if (b0 == 0xe3) return b1 == 0x80 && b2 == 0x80 ? 3 : 0;
  return 0;
}

// Is [p, end) empty after Python's str.strip()?
function isBlankLine(p: usize, end: usize): bool {
  while (p < end) {
    const c = <u32>load<u8>(p);
    if (c == 0x20 || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f)) {
      p++;
      continue;
    }
    if (c < 0x80) return false;
    const n = unicodeSpaceLen(p, end);
    if (n == 0) return false;
    p += <usize>n;
  }
  return true;
}

/**
 * Processes complete lines of a JSONL chunk [inPtr, inPtr + inLen). `isFinal` says the chunk
 * ends at EOF, so a last line without a newline is processed too. Writes one record per
 * non-blank line (at recPtr, up to recCap) and each event's hash preimage into [outPtr,
 * outPtr + outCap). Returns the number of records; `consumed()` tells how many input bytes were
 * fully processed (the caller re-supplies the rest), or ERR_TAPE_FULL when a single line needs
 * a bigger tape (nothing of that line was consumed).
 */
export function verifyChunk(inPtr: usize, inLen: i32, isFinal: i32, outPtr: usize, outCap: i32, recPtr: usize, recCap: i32): i32 {
  const inEnd = inPtr + <usize>inLen;
  const outEnd = outPtr + <usize>outCap;
  let p = inPtr;
  let records: i32 = 0;
  outPos = outPtr;
  consumedBytes = 0;
  while (p < inEnd && records < recCap) {
    // Find the end of the line.
    let q = p;
    const nl = i8x16.splat(0x0a);
    while (q + 16 <= inEnd) {
      const m = i8x16.bitmask(i8x16.eq(v128.load(q), nl));
      if (m != 0) {
        q += <usize>ctz(m);
        break;
      }
      q += 16;
    }
    while (q < inEnd && load<u8>(q) != 0x0a) q++;
    const terminated = q < inEnd;
    if (!terminated && isFinal == 0) break;
    const lineEnd = q;
    const next = terminated ? q + 1 : q;
    // Room for the worst case: 6 output bytes per input byte plus the envelope.
    if (outPos + (lineEnd - p) * 6 + 1024 > outEnd) {
      if (records == 0) return ERR_OUT_FULL;
      break;
    }
    // Blank line (Python's str.strip() leaves nothing): skipped, not counted.
    if (isBlankLine(p, lineEnd)) {
      lineCounter++;
      p = next;
      consumedBytes = <i32>(p - inPtr);
      continue;
    }
    const r = parse(p, lineEnd);
    if (r == ERR_TAPE_FULL) {
      if (records == 0) return ERR_TAPE_FULL;
      break;
    }
    lineCounter++;
    eventCounter++;
    const rec = recPtr + <usize>(records * REC_BYTES);
    memory.fill(rec, 0, <usize>REC_BYTES);
    store<i32>(rec, lineCounter, R_LINE << 2);
    store<i32>(rec, eventCounter, R_EVENT << 2);
    store<i32>(rec, <i32>(p - inPtr), R_LINE_START << 2);
    store<i32>(rec, <i32>(lineEnd - inPtr), R_LINE_END << 2);
    store<i32>(rec, terminated ? 1 : 0, R_TERMINATED << 2);
    records++;
    p = next;
    consumedBytes = <i32>(p - inPtr);
    if (r < 0) {
      store<i32>(rec, r, R_KIND << 2);
      store<i32>(rec, errorOffset < 0 ? -1 - errorOffset - <i32>inPtr : errorOffset - <i32>inPtr, R_ERROR_OFFSET << 2);
      prevValid = false;
      hasPrev = true;
      continue;
    }
    if (tKind(0) != T_OBJECT) {
      store<i32>(rec, ERR_NOT_OBJECT, R_KIND << 2);
      prevValid = false;
      hasPrev = true;
      continue;
    }
    sortTop = 0;
    classifyMembers();
    const vId = find(N_ID);
    const vType = find(N_TYPE);
    const vActorId = find(N_ACTOR_ID);
    const vThreadId = find(N_THREAD_ID);
    const vTimestamp = find(N_TIMESTAMP);
    const vPayload = find(N_PAYLOAD);
    const vIntegrity = find(N_INTEGRITY);
    const isV1 = vId >= 0 && vType >= 0 && vActorId >= 0 && vThreadId >= 0 && vTimestamp >= 0 && vPayload >= 0 && vIntegrity >= 0;
    // Scratch for small canonical comparisons lives past the preimage area's worst case.
    const small = outEnd - 512;
    const storedHash = rec + 64;
    const storedHex = prevHexBase + 64; // 64 bytes after prevHex
    const preStart = outPos;
    if (isV1) {
      store<i32>(rec, 2, R_KIND << 2);
      put(0x7b);
      // {"event":{...},"previousHash":...}
      put(0x22); put(0x65); put(0x76); put(0x65); put(0x6e); put(0x74); put(0x22); put(0x3a); put(0x7b);
      emitMember(N_ACTOR_ID, vActorId);
      put(0x2c);
      emitMember(N_CAUSED_BY, find(N_CAUSED_BY));
      put(0x2c);
      emitMember(N_ID, vId);
      put(0x2c);
      emitMember(N_PARENT_EVENT_ID, find(N_PARENT_EVENT_ID));
      put(0x2c);
      emitMember(N_PAYLOAD, vPayload);
      put(0x2c);
      emitMember(N_THREAD_ID, vThreadId);
      put(0x2c);
      emitMember(N_TIMESTAMP, vTimestamp);
      put(0x2c);
      emitMember(N_TYPE, vType);
      put(0x7d);
      put(0x2c);
      putAscii(N_PREVIOUS_HASH);
      if (!hasPrev) {
        put(0x6e); put(0x75); put(0x6c); put(0x6c);
      } else {
        put(0x22);
        put(0x73); put(0x68); put(0x61); put(0x32); put(0x35); put(0x36); put(0x3a); // sha256:
        putBytes(prevHexBase, 64);
        put(0x22);
      }
      put(0x7d);
      // integrity.hash / integrity.previousHash
      let vHash = -1;
      let vPrevious = -1;
      if (tKind(vIntegrity) == T_OBJECT) {
        const stop = tNext(vIntegrity);
        let k = vIntegrity + 1;
        while (k < stop) {
          const ks = tStart(k) + 1;
          const ke = tEnd(k) - 1;
          if (decodedEquals(ks, ke, namesBase + <usize>nameOffAt(N_HASH), <usize>nameLenAt(N_HASH))) vHash = k + 1;
          if (decodedEquals(ks, ke, namesBase + <usize>nameOffAt(N_PREVIOUS_HASH), <usize>nameLenAt(N_PREVIOUS_HASH))) vPrevious = k + 1;
          k = tNext(k + 1);
        }
      }
      const hashValid = decodeStoredHash(vHash, true, small, storedHash, storedHex);
      store<i32>(rec, hashValid ? 1 : 0, R_HASH_VALID << 2);
      let linkOk: bool;
      if (!hasPrev) {
        linkOk = canonicalSmall(vPrevious, small) == 4 && load<u32>(small) == 0x6c6c756e;
      } else {
        linkOk = prevValid && equalsPrev(vPrevious, true, small);
      }
      store<i32>(rec, linkOk ? 1 : 0, R_LINK_OK << 2);
      store<i32>(rec, 1, R_SEQ_OK << 2);
      store<i32>(rec, 1, R_FIRST_PREV_OK << 2);
    } else {
      store<i32>(rec, 1, R_KIND << 2);
      const vSeq = find(N_SEQ);
      const vActor = find(N_ACTOR);
      const vThread = find(N_THREAD);
      const vPrevHash = find(N_PREV_HASH);
      const vSecurity = find(N_SECURITY);
      const vHash = find(N_HASH);
      put(0x7b);
      emitMember(N_ACTOR, vActor);
      put(0x2c);
      emitMember(N_PAYLOAD, vPayload);
      put(0x2c);
      emitMember(N_PREV_HASH, vPrevHash);
      put(0x2c);
      if (vSecurity >= 0 && tKind(vSecurity) != T_NULL) {
        emitMember(N_SECURITY, vSecurity);
        put(0x2c);
      }
      emitMember(N_SEQ, vSeq);
      put(0x2c);
      emitMember(N_THREAD, vThread);
      put(0x2c);
      emitMember(N_TIMESTAMP, vTimestamp);
      put(0x2c);
      emitMember(N_TYPE, vType);
      put(0x7d);
      store<i32>(rec, isIntEqual(vSeq, eventCounter) ? 1 : 0, R_SEQ_OK << 2);
      const hashValid = decodeStoredHash(vHash, false, small, storedHash, storedHex);
      store<i32>(rec, hashValid ? 1 : 0, R_HASH_VALID << 2);
      const prevIsNull = vPrevHash < 0 || tKind(vPrevHash) == T_NULL;
      store<i32>(rec, eventCounter != 1 || prevIsNull ? 1 : 0, R_FIRST_PREV_OK << 2);
      let linkOk: bool = true;
      if (eventCounter > 1) linkOk = prevValid && equalsPrev(vPrevHash, false, small);
      store<i32>(rec, linkOk ? 1 : 0, R_LINK_OK << 2);
    }
    store<i32>(rec, <i32>(preStart - outPtr), R_PRE_START << 2);
    store<i32>(rec, <i32>(outPos - outPtr), R_PRE_END << 2);
    // The next event links to this event's stored hash.
    const valid = load<i32>(rec, R_HASH_VALID << 2) != 0;
    if (valid) memory.copy(prevHexBase, storedHex, 64);
    prevValid = valid;
    hasPrev = true;
  }
  return records;
}

/** First byte of linear memory not used by static data; the wrapper lays its regions out from here. */
export function heapBase(): usize {
  return __heap_base;
}

/**
 * Starts verification in the middle of a log (parallel verification of a range): `eventBase`
 * events and `lineBase` physical lines precede the range, and the previous event's stored hash
 * (64 hex) was written by the host at scratch bytes 0..63 (`prevValid` says it is valid hex).
 */
export function setChain(eventBase: i32, lineBase: i32, prevValidFlag: i32): void {
  eventCounter = eventBase;
  lineCounter = lineBase;
  hasPrev = eventBase > 0;
  prevValid = prevValidFlag != 0;
}

let countedNewlines: i32 = 0;
let countCarry: i32 = 0;

/** Newlines seen by the last `countEvents` call. */
export function newlineCount(): i32 {
  return countedNewlines;
}

/** Whether the line still open at the end of the last `countEvents` call has a non-blank byte. */
export function openLineNonBlank(): i32 {
  return countCarry;
}

@inline function isBlankByte(c: u32): bool {
  return c == 0x20 || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f);
}

/**
 * Counts events (lines with a non-blank byte) that end with a newline in [p, p + len).
 * `carryNonBlank` says whether the line open before p already had a non-blank byte; the
 * state for the next call is left in `openLineNonBlank()`.
 */
export function countEvents(p: usize, len: i32, carryNonBlank: i32): i32 {
  const end = p + <usize>len;
  let events: i32 = 0;
  let newlines: i32 = 0;
  let nonBlank = carryNonBlank != 0;
  const nl = i8x16.splat(0x0a);
  while (p < end) {
    // Within a line already known to be an event, only the next newline matters.
    if (nonBlank) {
      while (p + 16 <= end) {
        const m = i8x16.bitmask(i8x16.eq(v128.load(p), nl));
        if (m != 0) {
          p += <usize>ctz(m);
          break;
        }
        p += 16;
      }
      while (p < end && load<u8>(p) != 0x0a) p++;
      if (p >= end) break;
      events++;
      newlines++;
      nonBlank = false;
      p++;
      continue;
    }
    const c = <u32>load<u8>(p);
    if (c == 0x0a) {
      newlines++;
    } else if (c >= 0x80) {
      const n = unicodeSpaceLen(p, end);
      if (n == 0) nonBlank = true;
      else p += <usize>(n - 1);
    } else if (!isBlankByte(c)) {
      nonBlank = true;
    }
    p++;
  }
  countedNewlines = newlines;
  countCarry = nonBlank ? 1 : 0;
  return events;
}

/** Physical lines processed so far (including the lines before the range: see setChain). */
export function lines(): i32 {
  return lineCounter;
}
