/**
 * Text output a person reads: aligned columns, and colour on a terminal.
 *
 * Colour is used only when stdout is a terminal, `NO_COLOR` is unset or empty
 * (https://no-color.org) and `TERM` is not `dumb`; pipes, files and `--json` never get escapes.
 */
import type { CommandIo } from "./command.ts";

/**
 * Rows as lines with each column padded to its widest cell (two spaces between columns); the
 * last column is not padded. `alignRight` lists columns padded on the left (numbers).
 */
export function textTable(
  rows: readonly string[][],
  options: { alignRight?: readonly number[]; colour?: (column: number, padded: string) => string } = {},
): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, [...cell].length)));
  const right = new Set(options.alignRight ?? []);
  return rows.map((row) =>
    row.map((cell, i) => {
      const pad = i === row.length - 1 && !right.has(i) ? "" : " ".repeat(widths[i] - [...cell].length);
      const padded = right.has(i) ? pad + cell : cell + pad;
      // Escapes go around the padded cell, so they never change the alignment.
      return options.colour === undefined ? padded : options.colour(i, padded);
    }).join("  ")
  );
}

export function colorEnabled(io: Pick<CommandIo, "stdoutIsTTY" | "env">): boolean {
  const noColor = io.env.NO_COLOR;
  return io.stdoutIsTTY === true && (noColor === undefined || noColor === "") && io.env.TERM !== "dumb";
}

const codes = { red: 31, green: 32, yellow: 33, cyan: 36, dim: 2, bold: 1 } as const;
export type Colour = keyof typeof codes;

/** `paint(io)("green", "OK")`: the text in that colour when colour is enabled, else as is. */
export function paint(io: Pick<CommandIo, "stdoutIsTTY" | "env">): (colour: Colour, text: string) => string {
  if (!colorEnabled(io)) return (_colour, text) => text;
  return (colour, text) => `\x1b[${codes[colour]}m${text}\x1b[0m`;
}
