/**
 * Token budgeting for `memory checkout --max-tokens` (DESIGN §6), as Python's `token_budget.py`:
 *
 * - a token is estimated as a quarter of a character, rounded up: `ceil(chars / 4)`, where chars
 *   are code points (Python's `len`), so an emoji counts once, not as two UTF-16 units;
 * - mandatory sections are always kept, even past the budget;
 * - optional sections are ranked by weight per token (higher first, earlier section on ties) and
 *   the longest prefix of that ranking that fits the budget left after the mandatory ones is kept.
 *   Stopping at the first section that does not fit, rather than skipping it and trying smaller
 *   ones, is what makes packing monotone: a bigger budget never keeps fewer sections.
 *
 * The estimate is the contract with Python, not a real tokenizer; do not change it silently.
 */

export interface BudgetSection {
  id: string;
  text: string;
  /** Kept at any budget: headers and the trust contract lines. */
  mandatory: boolean;
  /** Salience proxy; the ranking uses weight / estimated tokens. */
  weight: number;
}

export interface ElidedSection {
  id: string;
  tokens: number;
}

export interface PackResult {
  /** Ids of the kept sections, in the caller's order. */
  kept: string[];
  /** The sections left out, in the caller's order, with their estimated tokens. */
  elided: ElidedSection[];
  /** Estimated tokens of the kept sections; above `requestedTokens` only if mandatory ones overflow. */
  usedTokens: number;
  requestedTokens: number;
}

/** Code points in `text`: UTF-16 length minus one per surrogate pair. */
function codePointCount(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}

/**
 * `ceil(code points / 4)`.
 *
 * @example
 * estimateTokens("hello") // 2
 * estimateTokens("") // 0
 */
export function estimateTokens(text: string): number {
  return Math.floor((codePointCount(text) + 3) / 4);
}

/**
 * Keeps what fits in `maxTokens` (a non-negative number; anything else is a programmer error,
 * the CLI validates `--max-tokens` first). Joining the kept sections is the caller's job.
 *
 * @example
 * packSections([
 *   { id: "header", text: "# Memory Checkout", mandatory: true, weight: 1 },
 *   { id: "fact-1", text: "x".repeat(400), mandatory: false, weight: 0.5 },
 * ], 20)
 * // { kept: ["header"], elided: [{ id: "fact-1", tokens: 100 }], usedTokens: 5, requestedTokens: 20 }
 */
export function packSections(sections: readonly BudgetSection[], maxTokens: number): PackResult {
  if (!(maxTokens >= 0)) throw new RangeError(`packSections: maxTokens must be >= 0, got ${maxTokens}`);
  const costs = sections.map((section) => estimateTokens(section.text));
  const included = sections.map((section) => section.mandatory);
  let remaining = maxTokens;
  for (let i = 0; i < sections.length; i++) if (included[i]) remaining -= costs[i];

  const density = (i: number): number => (costs[i] <= 0 ? Infinity : sections[i].weight / costs[i]);
  const optional = sections.map((_, i) => i).filter((i) => !included[i]);
  optional.sort((a, b) => {
    const da = density(a);
    const db = density(b);
    return da > db ? -1 : da < db ? 1 : a - b;
  });
  for (const i of optional) {
    if (costs[i] > remaining) break;
    included[i] = true;
    remaining -= costs[i];
  }

  const kept: string[] = [];
  const elided: ElidedSection[] = [];
  let usedTokens = 0;
  for (let i = 0; i < sections.length; i++) {
    if (included[i]) {
      kept.push(sections[i].id);
      usedTokens += costs[i];
    } else {
      elided.push({ id: sections[i].id, tokens: costs[i] });
    }
  }
  return { kept, elided, usedTokens, requestedTokens: maxTokens };
}
