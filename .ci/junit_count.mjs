// Counts leaf test cases in JUnit XML files (bun test and deno test reporters): a case whose
// name is a prefix "NAME > " of another case is a container (deno's describe), not a test.
// Prints "passed failed skipped".
import { readFileSync } from "node:fs";

let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of process.argv.slice(2)) {
  const xml = readFileSync(file, "utf8");
  const cases = [];
  const pattern = /<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g;
  for (const match of xml.matchAll(pattern)) {
    const name = /name="([^"]*)"/.exec(match[1])?.[1] ?? "";
    const body = match[3] ?? "";
    cases.push({ name, failed: /<failure|<error/.test(body), skipped: /<skipped/.test(body) });
  }
  const names = cases.map((c) => c.name);
  for (const c of cases) {
    if (names.some((n) => n.startsWith(`${c.name} &gt; `))) continue;
    if (c.failed) failed++;
    else if (c.skipped) skipped++;
    else passed++;
  }
}
console.log(`${passed} ${failed} ${skipped}`);
