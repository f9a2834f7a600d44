/**
 * A checkout names in its `warnings` each fleet whose lane it drops because the asking agent is
 * not enrolled in it or is untrusted there (docs/fleet.md "Checkout fleet lane"), in the JSON
 * document and over MCP `memory_checkout` (structuredContent and the text block), not only on
 * stderr; otherwise the answer is the plain checkout's. Driven through the CLI and `zaxy serve`.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { type McpServer, startMcpServer } from "../mcp/mcpTestClient.ts";
import { runZaxy, stackTraceLines, type ZaxyRun } from "../cli/zaxy.ts";

after(removeTempDirs);
const slow = { timeout: 120_000 };

let dir = "";
let root = "";

function zaxy(args: string[]): ZaxyRun {
  return runZaxy(args, { cwd: dir });
}

// deno-lint-ignore no-explicit-any
function jsonOk(args: string[]): any {
  const run = zaxy([...args, "--json"]);
  assert.equal(run.code, 0, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
  return JSON.parse(run.stdout);
}

const checkoutArgs = ["memory", "checkout", "auth failures", "--session-id", "agent-b", "--json"];

function checkout(extra: string[] = []): ZaxyRun {
  const run = zaxy([...checkoutArgs, ...extra]);
  assert.equal(run.code, 0, `${extra.join(" ")}: ${run.stdout}${run.stderr}`);
  assert.deepEqual(stackTraceLines(run.stderr), []);
  return run;
}

const notEnrolled = (agent: string, fleet: string) => `fleet lane: agent ${JSON.stringify(agent)} is not enrolled in fleet ${JSON.stringify(fleet)}; no items from it`;
const untrusted = (agent: string, fleet: string) => `fleet lane: agent ${JSON.stringify(agent)} is 'untrusted' in fleet ${JSON.stringify(fleet)}; no items from it`;

describe("a checkout names the fleet lanes it drops in its warnings", () => {
  // deno-lint-ignore no-explicit-any
  let plain: any;
  // deno-lint-ignore no-explicit-any
  let promotion: any;

  before(() => {
    dir = makeTempDir("zaxy-fleet-lane-warnings");
    root = path.join(dir, ".eventloom");
    fs.mkdirSync(root, { recursive: true });
    fs.writeFileSync(path.join(root, "config.json"), JSON.stringify({ schema: "zaxy.config.v1", envelope: "v1", fleet_enabled: true }, null, 2) + "\n");
    jsonOk(["fleet", "create", "alpha", "--summary", "Auth workers"]);
    jsonOk(["fleet", "create", "beta", "--summary", "Billing workers"]);
    for (const agent of ["agent-a", "agent-b", "agent-u"]) jsonOk(["fleet", "enroll", "alpha", "--agent", agent, "--actor", "coordinator"]);
    jsonOk(["fleet", "assign-trust", "alpha", "--agent", "agent-u", "--trust-tier", "untrusted", "--actor", "coordinator"]);
    const origin = jsonOk(["memory", "append", "task.completed", "--actor", "agent-a", "--session-id", "agent-a", "--payload-json", JSON.stringify({ title: "JWKS cache expiry caused the auth failures" })]);
    promotion = jsonOk([
      "fleet", "promote-outcome", "alpha", "--outcome", "failure", "--summary", "JWKS cache expiry caused the auth failures",
      "--claim-key", "auth.cause", "--source-event", `${origin.seq}:${origin.hash}`, "--confidence", "0.9",
      "--origin-session", "agent-a", "--actor", "agent-a",
    ]);
    jsonOk(["memory", "append", "note.added", "--actor", "agent-b", "--session-id", "agent-b", "--payload-json", JSON.stringify({ text: "investigating auth failures" })]);
    const run = checkout();
    assert.equal(run.stderr, "");
    plain = JSON.parse(run.stdout);
  }, slow);

  test("an agent not enrolled, or untrusted: the fleet is named in warnings, the prompt and on stderr; the rest is the plain checkout", slow, () => {
    for (const [agent, warning] of [["stranger", notEnrolled("stranger", "alpha")], ["agent-u", untrusted("agent-u", "alpha")]]) {
      const run = checkout(["--fleet-id", "alpha", "--agent-id", agent]);
      // The prompt ends with the warning, under its own heading when the plain one had none.
      const warningLines = plain.prompt.includes("\n# Context Warnings\n") ? `\n- ${warning}` : `\n\n# Context Warnings\n- ${warning}`;
      assert.deepEqual(JSON.parse(run.stdout), { ...plain, prompt: plain.prompt + warningLines, warnings: [...plain.warnings, warning] }, agent);
      assert.equal(run.stderr, `zaxy: warning: ${warning}\n`, agent);
    }
  });

  test("of two fleets, the one the agent may read serves and only the other is named", slow, () => {
    const run = checkout(["--fleet-id", "beta", "--fleet-id", "alpha"]);
    const doc = JSON.parse(run.stdout);
    assert.deepEqual(doc.diagnostics.fleet.items.map((item: { promotion_id: string }) => item.promotion_id), [promotion.promotion_id]);
    assert.deepEqual(doc.warnings, [...plain.warnings, notEnrolled("agent-b", "beta")]);
    assert.equal(run.stderr, `zaxy: warning: ${notEnrolled("agent-b", "beta")}\n`);
  });

  test("an enrolled member's checkout carries no fleet warning", slow, () => {
    const doc = JSON.parse(checkout(["--fleet-id", "alpha"]).stdout);
    assert.deepEqual(doc.warnings, plain.warnings);
    assert.equal(doc.diagnostics.fleet.count, 1);
  });

  describe("over MCP", () => {
    let mcp: McpServer;

    before(async () => {
      mcp = await startMcpServer(root, { clientName: "zaxy-fleet-lane-warnings-test" });
    }, slow);

    after(async () => {
      await mcp?.close();
    });

    test("memory_checkout names the dropped fleet in structuredContent.warnings and in the prompt, its text block", slow, async () => {
      const result = await mcp.client.callTool({
        name: "memory_checkout",
        arguments: { query: "auth failures", session_id: "agent-b", fleet_ids: ["alpha"], agent_id: "agent-u" },
      });
      assert.equal(result.isError ?? false, false, JSON.stringify(result));
      const structured = result.structuredContent as { warnings: string[]; prompt: string };
      assert.deepEqual(structured.warnings, [...plain.warnings, untrusted("agent-u", "alpha")]);
      const [block] = result.content as Array<{ type: string; text: string }>;
      assert.equal(block.text, structured.prompt);
      assert.ok(block.text.includes(`- ${untrusted("agent-u", "alpha")}`), block.text);
    });
  });
});
