/**
 * Nesting depth of plain JSON data as `JSON.parse` returns it (an MCP call's arguments), counted
 * like `nestingDepth` in eventloom/append.ts: an object or array is one level, scalars none.
 * Iterative and stops as soon as the bound is passed, so a 10,000-level payload costs nothing
 * and never reaches a recursive walk (`fromJs`, canonical JSON).
 *
 * @example
 * plainJsonDepthExceeds({ a: { b: [1] } }, 2) // true (3 levels)
 */
export function plainJsonDepthExceeds(value: unknown, depthMax: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (current === null || typeof current !== "object") continue;
    if (depth > depthMax) return true;
    for (const item of Array.isArray(current) ? current : Object.values(current)) stack.push([item, depth + 1]);
  }
  return false;
}
