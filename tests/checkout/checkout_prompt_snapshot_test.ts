/**
 * The checkout prompt of a real ten-event session, pinned as text (snapshots/ten_events.prompt.txt):
 * every cited item listed once, with its citation; a decision's rationale and alternatives apart;
 * a corrected fact led by its new content; an unknown event type with its message; a preference
 * changed twice served at its latest value. The JSON arrays keep the projected content as it is.
 *
 * `ZAXY_UPDATE_SNAPSHOTS=1` rewrites the snapshot instead of comparing (review the diff).
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { fromJs } from "../../src/canonical/mod.ts";
import type { MemoryCheckout } from "../../src/checkout/mod.ts";
import { recordEvents } from "../../src/recording/record.ts";
import { validateMemoryRequest } from "../../src/memory/request.ts";
import { MemoryService } from "../../src/memory/service.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";

after(removeTempDirs);

const slow = { timeout: 120_000 };
const snapshotPath = path.join(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), "snapshots", "ten_events.prompt.txt");
const query = "database upgrade deploy window editor error";
/**
 * The earlier prompt of this session ran to 80 lines (each fact three times, each event on two
 * lines); 53 now, of which 26 are the quality, guidance and diagnostics every checkout carries.
 */
const linesMax = 55;

let checkout: MemoryCheckout;
let service: MemoryService;

before(async () => {
  const root = path.join(makeTempDir("checkout-prompt-snapshot"), ".eventloom");
  let tick = 0;
  const clock = () => Date.UTC(2026, 0, 1) * 1000 + (tick++) * 1_000_000;
  const record = async (type: string, actor: string, payload: Record<string, unknown>) =>
    (await recordEvents(root, "default", [{ type, actor, payload: fromJs(payload) }], { clock })).events[0];
  await record("decision.made", "claude-agent", {
    decision: "Upgrade to PostgreSQL 16",
    rationale: "Logical replication keeps downtime under 1 min",
    alternatives_considered: ["Upgrade to MySQL 8.0", "Move to Aurora"],
  });
  await record("user.preference_changed", "alice", { user: "alice", key: "editor", value: "vim" });
  const window = await record("decision.made", "claude-agent", { decision: "Deploy window is Friday 18:00 UTC" });
  await record("error.occurred", "claude-agent", { message: "Database migration timed out after 30 s" });
  await record("user.preference_changed", "alice", { user: "alice", key: "editor", value: "emacs" });
  await record("goal.created", "planner", { title: "Ship the database upgrade" });
  // What `zaxy memory edit` appends (src/memory/edit.ts), with the test's clock.
  await record("memory.corrected", "alice", {
    correction_id: "correction:deploy-window",
    target: { seq: window.seq, hash: window.hash },
    content: "Deploy window is Saturday 06:00 UTC",
    reason: "ops moved the window",
    entity_name: "Deploy window is Friday 18:00 UTC",
    entity_type: "decision",
    previous_content: null,
    authority_status: "authoritative",
  });
  await record("user.preference_changed", "alice", { user: "alice", key: "editor", value: "helix" });
  await record("note.added", "claude-agent", { text: "Staging holds 40 GB of data" });
  await record("command.completed", "claude-agent", { command: "npm run migrate", exit_code: 1, outcome: "failure" });
  service = new MemoryService(root);
  checkout = await service.checkout(validateMemoryRequest({ sessionId: "default", query, semantic: false }));
}, slow);

/** The `- ` lines under a `## ` heading of the prompt. */
function itemLines(prompt: string, heading: string): string[] {
  const lines = prompt.split("\n");
  const start = lines.indexOf(heading);
  if (start < 0) return [];
  const out: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith("- ")) break;
    out.push(line);
  }
  return out;
}

function occurrences(text: string, part: string): number {
  return text.split(part).length - 1;
}

describe("the checkout prompt of a ten-event session", () => {
  test("is the pinned text", () => {
    if (process.env.ZAXY_UPDATE_SNAPSHOTS === "1") fs.writeFileSync(snapshotPath, checkout.prompt + "\n");
    assert.equal(checkout.prompt + "\n", fs.readFileSync(snapshotPath, "utf8"));
  });

  test("lists each cited item once: a citation appears once per item line and nowhere else", () => {
    const items = [...itemLines(checkout.prompt, "## Current Facts"), ...itemLines(checkout.prompt, "## Evidence")];
    assert.equal(new Set(items).size, items.length, "no item line twice");
    const citations = new Set(checkout.evidence.map((item) => item.citation));
    for (const citation of citations) {
      const lines = items.filter((line) => line.includes(citation)).length;
      assert.ok(lines >= 1, `${citation} is listed`);
      assert.equal(occurrences(checkout.prompt, citation), lines, `${citation}: once per item`);
    }
    for (const fact of checkout.current_facts) assert.ok(checkout.prompt.includes(fact.citation), fact.content);
    // Recent events already cited are named by seq only; nothing is left for Retrieved Context.
    assert.ok(checkout.prompt.includes("\n[1] decision.made by claude-agent (cited above)\n"));
    assert.ok(!checkout.prompt.includes("# Retrieved Context"));
  });

  test("stays well under the old line count", () => {
    const count = checkout.prompt.split("\n").length;
    assert.ok(count <= linesMax, `${count} lines`);
  });

  test("renders decisions, corrections and unknown events readably; the JSON keeps the projected content", () => {
    const facts = itemLines(checkout.prompt, "## Current Facts");
    const line = (start: string) => facts.find((fact) => fact.startsWith(`- ${start}`));
    assert.match(
      line("Upgrade to PostgreSQL 16 (decision)") ?? "",
      /^- Upgrade to PostgreSQL 16 \(decision\): Logical replication keeps downtime under 1 min; alternatives: Upgrade to MySQL 8\.0, Move to Aurora \(eventloom:/,
    );
    assert.ok(line("Deploy window is Saturday 06:00 UTC (decision; corrected, was: Deploy window is Friday 18:00 UTC) (eventloom:"), facts.join("\n"));
    assert.ok(line("error.occurred by claude-agent: Database migration timed out after 30 s (eventloom:"), facts.join("\n"));
    assert.ok(line("alice:editor (preference): editor=helix (eventloom:"), facts.join("\n"));
    // Superseded values stay auditable under Evidence, marked so.
    for (const value of ["vim", "emacs"]) {
      assert.ok(!facts.some((fact) => fact.includes(`editor=${value}`)), value);
      assert.match(checkout.prompt, new RegExp(`\n- eventloom://default/events/[0-9]+#[0-9a-f]{12}: alice:editor \\(preference\\): editor=${value} \\(superseded\\)\n`));
    }
    // The recent event whose statement was corrected says so instead of repeating it.
    assert.ok(checkout.prompt.includes("\n[3] decision.made by claude-agent (corrected by [7])\n"), checkout.prompt);
    const contents = checkout.current_facts.map((fact) => fact.content);
    assert.ok(contents.includes("Upgrade to PostgreSQL 16 (decision): Logical replication keeps downtime under 1 min Upgrade to MySQL 8.0 Move to Aurora"), contents.join("\n"));
    assert.ok(contents.includes("Deploy window is Friday 18:00 UTC (decision): Deploy window is Saturday 06:00 UTC"), contents.join("\n"));
    // The correction record is folded into the fact it corrects (same citation), in the prompt only.
    assert.ok(checkout.current_facts.some((fact) => fact.entity_type === "memory_correction"));
    assert.ok(!facts.some((fact) => fact.includes("(memory_correction)")));
  });

  test("a token budget packs the same lines: nothing cut gives the same prompt; a cut says what it cut", slow, async () => {
    const budgeted = (maxTokens: number) => service.checkout(validateMemoryRequest({ sessionId: "default", query, semantic: false, maxTokens }));
    assert.equal((await budgeted(10_000)).prompt, checkout.prompt);
    const tight = await budgeted(300);
    assert.match(tight.prompt, /^# Memory Checkout\nQuery: [^\n]+\nBudget: 300 tokens; shown [0-9]+ of 5 current facts[^\n]*\. Full lists are in the JSON document\.\n/);
    const evidence = tight.diagnostics.elided?.find((item) => item.section_id === "evidence");
    assert.equal(evidence?.items_total, 4, JSON.stringify(tight.diagnostics.elided));
  });
});
