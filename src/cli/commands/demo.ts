/** `zaxy demo`: the main demo (what `npm start` runs). */
import { booleanOption, defineCommand, stringOption } from "../command.ts";
import * as fs from "node:fs";
import * as path from "node:path";
import { inputError } from "../../errors.ts";
import { emit } from "../output.ts";
import type { PlainJson } from "../../projection/types.ts";

export const demoCommand = defineCommand({
  name: "demo",
  store: "self",
  summary: "The main demo: a cited agent session, tampering caught, checkout, causal memory, consolidation, compaction",
  description:
    "Runs in a temporary directory (or --dir): records a realistic agent session (goal, tool\n" +
    "calls, a failing and a passing test run, a file edit, a decision), verifies the chain,\n" +
    "replays a handoff summary, tampers with a copy and shows the verifier catching it; then a\n" +
    "preference changes twice and a Memory Checkout cites only the current value; the agent\n" +
    "explains the test failure causally and its causes are walked back with citations; and\n" +
    "consolidation candidates are proposed from the session (twice: the second run adds\n" +
    "nothing), one is reviewed, and the status is replayed from the log; finally a compaction\n" +
    "audit of near-duplicate runbooks flags the collapse (one representative would lose their\n" +
    "identities) and an exemplar projection keeps every identity, found again by retrieval; and the\n" +
    "agent promotes its lesson into a fleet (an unenrolled agent is refused: no trace on the fleet\n" +
    "thread, the refusal audited in its own session),\n" +
    "which another agent's checkout then cites. With --quiet (global) only the summary lines print.",
  options: {
    dir: { type: "string", valueName: "DIR", description: "Work in DIR (without an .eventloom yet) instead of a temporary directory" },
  },
  positionals: [],
  async run(ctx) {
    // Loaded on use: the demo pulls in the projection and retrieval stack.
    const { runAgentSessionDemo } = await import("../../demo/agentSessionDemo.ts");
    const dir = stringOption(ctx, "dir");
    // The demo's checks count what it recorded: a second run into the same logs would mix two sessions.
    if (dir !== undefined && fs.existsSync(path.join(dir, ".eventloom"))) {
      throw inputError("invalid_option", `--dir ${JSON.stringify(dir)} already holds an Eventloom (.eventloom) from an earlier run; the demo records fresh sessions`, {
        field: "--dir",
        expected: "a directory without .eventloom (or omit --dir for a temporary directory)",
      });
    }
    const result = await runAgentSessionDemo({ dir });
    const c = result.checkout;
    const checkoutOk = c.current_facts.some((f) => f.content.includes("release/1.5")) &&
      !c.current_facts.some((f) => /release_branch=(main|release\/1\.4)$/.test(f.content)) && c.superseded_contexts_excluded >= 2;
    const causal = result.causal;
    const causes = causal.predecessors.map((p) => `${p.source.name}@${p.path_length}`);
    const causalOk = causal.generated.length === 2 && causes.length === 2 &&
      causes[0] === "stale JWKS cache after key rotation@1" && causes[1] === "24 h JWKS cache TTL@2";
    const cons = result.consolidation;
    const consolidationOk = Number(cons.first.candidate_count) > 0 && cons.second.candidate_count === 0 &&
      cons.second.skipped_existing_count === cons.first.candidate_count && cons.review.status === "accepted" &&
      cons.status.accepted_count === 1 && cons.status.candidate_count === cons.first.candidate_count;
    const comp = result.compaction;
    const compactionOk = !comp.audit.safe && comp.audit.cluster_count === 1 && comp.audit.missing_identities.length > 0 &&
      comp.projection.identities_missing.length === 0 && comp.projection_hits.length > 0;
    const fleet = result.fleet;
    const fleetOk = fleet.refused.rejected && fleet.refused.log_bytes_unchanged && !fleet.promotion.rejected &&
      fleet.promotion.review_status === "active" && fleet.receiver.fleet_facts.some((f) => f.citation === fleet.promotion.citation);
    const ok = result.integrity.ok && !result.tamper.report.ok && checkoutOk && causalOk && consolidationOk && compactionOk && fleetOk;
    emit(ctx, "zaxy.demo.v1", { ok, ...result }, () => {
      const lines: string[] = [];
      const say = (line = "") => lines.push(line);
      say(`Zaxy demo: an agent session recorded in ${result.root}`);
      say();
      say("1. Recorded events (each sealed into the SHA-256 hash chain, each with a citation):");
      for (const e of result.events) say(`   ${String(e.seq).padStart(2)}  ${e.event_type.padEnd(20)} ${e.citation}`);
      if (!ctx.global.quiet) {
        say();
        say(`   Envelope: ${result.events[0].envelope}. Secrets never reach the log: redacted ${result.redacted_paths.join(", ") || "nothing"}.`);
      }
      say();
      say(`2. Verify: ${result.integrity.ok ? "OK" : "BROKEN"}, ${result.integrity.total_events} events in ${result.verify_ms.toFixed(1)} ms`);
      say();
      const h = result.handoff;
      say(`3. Handoff for the next agent: goals: ${h.goals.join("; ")}; open tasks: ${h.open_tasks.length}; last: ${h.last_actor} at ${h.last_timestamp}`);
      say();
      say(`4. Tamper with a copy (${result.tamper.changed}):`);
      const t = result.tamper.report;
      say(`   verify ${result.tamper.copy}: ${t.ok ? "OK (tampering NOT caught!)" : `BROKEN at seq ${t.broken_at_seq}: ${t.broken_reason}`}`);
      say();
      say(`5. The release branch changes twice (${c.events.map((e) => `seq ${e.seq}`).join(", ")}); Memory Checkout:`);
      say(`   query: ${c.query}`);
      say("   current facts (cited):");
      for (const fact of c.current_facts) say(`     - ${fact.content}  ${fact.citation}`);
      say(`   superseded, kept in the graph with closed windows, excluded from current facts (${c.superseded_contexts_excluded}):`);
      for (const old of c.superseded) say(`     - ${old.content}  (until ${old.valid_to})  ${old.citation}`);
      say(`   answerability: ${c.answerability}`);
      say();
      say(`6. The agent explains the failure (${causal.explained.map((e) => `seq ${e.seq}`).join(", ")}, each citing the event it saw);`);
      say(`   the producer appends ${causal.generated.map((e) => `${e.event_type} seq ${e.seq}`).join(", ")}.`);
      say(`   memory causal predecessors "${causal.effect}":`);
      for (const p of causal.predecessors) {
        say(`     ${p.path_length} hop${p.path_length === 1 ? " " : "s"}  ${p.source.name} --${p.relation_type}--> ${p.target.name}  (confidence ${p.confidence}, evidence seq ${String(p.evidence.source_event_seq)}, ${p.authority_status})  ${p.citation}`);
      }
      say();
      const statusOf = (candidate: PlainJson) => candidate as { candidate_id: string; candidate_type: string; review_status: string; created_seq: number };
      say(`7. Consolidation candidates proposed from the session: ${cons.first.candidate_count} (from ${cons.first.segment_count} segment${cons.first.segment_count === 1 ? "" : "s"}); proposed again: ${cons.second.candidate_count} new, ${cons.second.skipped_existing_count} skipped as existing.`);
      say(`   reviewed ${String(cons.review.candidate_id)} as ${String(cons.review.status)} (seq ${String(cons.review.seq)}): a disposition, still ${String(cons.review.authority_status)}.`);
      say(`   status replayed from the log: ${cons.status.accepted_count} accepted, ${cons.status.pending_count} pending`);
      for (const candidate of (cons.status.candidates as PlainJson[]).map(statusOf)) {
        say(`     - ${candidate.candidate_type.padEnd(9)} ${candidate.review_status.padEnd(8)} created at seq ${candidate.created_seq}  ${candidate.candidate_id}`);
      }
      say();
      const missing = comp.audit.missing_identities;
      say(`8. Compaction audit of ${comp.events.length} near-duplicate runbooks (${comp.log_path}):`);
      say(`   ${comp.audit.safe ? "SAFE" : "UNSAFE"}: ${comp.audit.cluster_count} cluster; one representative keeps identity recall ${comp.audit.identity_recall?.toFixed(3)}; ${comp.audit.unsafe_reasons.join("; ")}`);
      say(`   missing: ${missing.slice(0, 4).join(", ")}${missing.length > 4 ? `, ... ${missing.length - 4} more` : ""}`);
      say(`   exemplar projection (${comp.projection.records} records of real events) -> ${comp.projection.path}`);
      say(`   keeps ${comp.projection.identities_kept} of ${comp.projection.identities_kept + comp.projection.identities_missing.length} identities; retrieval finds it: "${comp.query}"`);
      for (const hit of comp.projection_hits.slice(0, 2)) {
        say(`     - projection ${hit.projection_id.slice(0, 12)}: ${hit.source_citations.join(", ")}  ${hit.citation}`);
      }
      say();
      const promotion = fleet.promotion;
      say(`9. Fleet "${fleet.fleet_id}" (${fleet.thread_log}): maya created it (first steward) and enrolled agent and agent-b.`);
      say(`   ${fleet.refused.actor} (not enrolled) tries to promote: ${fleet.refused.rejected ? "rejected" : "ACCEPTED"}; fleet log ${fleet.refused.log_bytes_unchanged ? "unchanged, byte for byte" : "CHANGED"}.`);
      if (fleet.refused.audit_citation !== null) say(`     the refusal is audited in its own session: ${fleet.refused.audit_citation}`);
      say(`   agent promotes its lesson (citing seq 6 and 7 of its session): gate seq ${promotion.gate_event?.seq}, then ${promotion.promotion_id} seq ${promotion.promotion_event?.seq}, ${promotion.review_status}`);
      say(`     gate: ${promotion.reason}`);
      say(`   agent-b asks "${fleet.receiver.query}"; its checkout cites the fleet:`);
      for (const fact of fleet.receiver.fleet_facts) say(`     - ${fact.content}  ${fact.citation}`);
      say();
      say(ok ? "Demo OK: the log verifies, tampering is caught, checkout cites only current facts, causes are cited, candidates stay under review, compaction keeps every identity, and fleet knowledge crosses agents only through trust and the gate." : "Demo FAILED.");
      return lines.join("\n");
    });
    return ok ? 0 : 1;
  },
});
