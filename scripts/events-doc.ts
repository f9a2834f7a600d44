/**
 * `npm run docs:events` (`bun scripts/events-doc.ts`): writes docs/events.md from the event
 * vocabulary (src/projection/extract/vocabulary.ts), running the extractors on each example.
 * tests/projection/vocabulary_test.ts fails until the file is rewritten after a change to an
 * extractor, an inference producer or the vocabulary.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { renderEventsDoc } from "../src/projection/extract/eventsDoc.ts";

const root = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), "..");
const target = path.join(root, "docs", "events.md");
fs.writeFileSync(target, renderEventsDoc());
console.log(`wrote ${path.relative(root, target)}`);
