/** Tokens of the MCP server (bearer and admin): read from a file, compared in constant time. */
import { createHash, timingSafeEqual } from "node:crypto";
import * as fs from "node:fs";
import { inputError } from "../errors.ts";

/** Reads a token from a file: one line, at least 16 characters, no spaces. */
export function readTokenFile(file: string, flag = "--token-file"): string {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    throw inputError("invalid_option", `Cannot read ${flag} ${file}: ${(error as Error).message}`, { field: flag });
  }
  const token = text.trim();
  if (token.length < 16 || /\s/.test(token)) {
    throw inputError("invalid_option", `${flag} ${file} must hold one token of at least 16 characters without spaces`, { field: flag });
  }
  return token;
}

/** Whether `given` is `expected`, in time independent of where they differ (digests first: equal lengths). */
export function sameToken(given: string, expected: string): boolean {
  return timingSafeEqual(createHash("sha256").update(given).digest(), createHash("sha256").update(expected).digest());
}
