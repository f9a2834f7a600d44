/**
 * A realistic mixed agent session for the reproject and checkout benchmarks: goals, task
 * lifecycles (proposed → claimed → completed), decisions, preference changes by a few users
 * over a few keys (so entities get superseded versions), indexed document chunks (some
 * re-indexed with new text), transcript turns, tool calls, commands and file edits that name
 * their task. Deterministic for a given seed and count: the same log shape every run.
 *
 * The mix per 100 events: 24 tool calls, 16 transcript turns, 12 commands, 12 file edits,
 * 12 document chunks, 5 task proposals, 4 claims, 4 completions, 5 decisions, 4 preference
 * changes, 2 goals.
 *
 * @example
 * const session = mixedSessionItems(10_000, 7);
 * await writeMixedSession(root, "bench", session.items);
 * sampleQueries(session, 200, 11); // ["why did we decide to use postgres for the billing ledger", ...]
 */
import { fromJs } from "../canonical/mod.ts";
import { type AppendItem, appendEvents } from "../eventloom/append.ts";
import { batchEventsMax } from "../limits.ts";
import { seededRandom } from "./measure.ts";

const components = ["auth", "billing", "search", "ingest", "scheduler", "gateway", "ledger", "reports", "notifications", "exports", "audit", "payments"];
const aspects = ["retry policy", "cache layer", "schema migration", "rate limiter", "error budget", "rollout plan", "queue backpressure", "index rebuild", "token refresh", "timeout handling"];
const technologies = ["postgres", "redis", "sqlite", "kafka", "grpc", "rust", "deno", "nginx", "s3", "clickhouse", "opentelemetry", "feature flags"];
const tools = ["read_file", "run_tests", "search_code", "apply_patch", "list_dir", "http_get"];
const users = ["user-ana", "user-ben", "user-chen", "user-dara"];
const preferenceValues: Record<string, string[]> = {
  editor: ["vim", "vscode", "helix", "emacs"],
  theme: ["dark", "light", "solarized"],
  test_runner: ["vitest", "bun test", "deno test"],
  review_style: ["terse", "detailed", "checklist"],
  timezone: ["UTC", "Europe/Berlin", "America/Chicago"],
};
const preferenceKeys = Object.keys(preferenceValues);
const fillers = [
  "the", "handler", "fails", "when", "the", "upstream", "returns", "a", "partial", "page", "so", "we", "retry", "with", "backoff",
  "and", "log", "the", "cursor", "before", "the", "next", "batch", "latency", "stays", "under", "the", "budget", "after", "warmup",
];

const mix: Array<[string, number]> = [
  ["tool.call.completed", 24],
  ["transcript.turn", 16],
  ["command.completed", 12],
  ["file.edit.applied", 12],
  ["document.indexed", 12],
  ["task.proposed", 5],
  ["task.claimed", 4],
  ["task.completed", 4],
  ["decision.made", 5],
  ["user.preference_changed", 4],
  ["goal.created", 2],
];
const mixTotal = mix.reduce((sum, [, weight]) => sum + weight, 0);

/** One generated event with the plain fields queries are drawn from. */
export interface MixedEvent {
  type: string;
  actor: string;
  payload: Record<string, unknown>;
  /** The component and aspect the event is about ("billing retry policy"). */
  topic: string;
}

export interface MixedSession {
  events: MixedEvent[];
  items: AppendItem[];
  seed: number;
  typeCounts: Record<string, number>;
}

function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)];
}

function phrase(rand: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(pick(rand, fillers));
  return out.join(" ");
}

function typeFor(rand: () => number): string {
  let r = rand() * mixTotal;
  for (const [type, weight] of mix) {
    r -= weight;
    if (r < 0) return type;
  }
  return mix[0][0];
}

/**
 * `count` events of the mix, seeded. Claims and completions refer to earlier proposals (a
 * proposal is generated instead when there is none to refer to).
 */
export function mixedSessionItems(count: number, seed = 7): MixedSession {
  const rand = seededRandom(seed);
  const events: MixedEvent[] = [];
  const proposed: string[] = [];
  const claimed: string[] = [];
  const goals: string[] = [];
  const documentPaths = Math.max(8, Math.floor(count / 40));
  let taskCounter = 0;
  let turnCounter = 0;
  const openTask = () => (claimed.length > 0 && rand() < 0.7 ? pick(rand, claimed) : undefined);
  for (let i = 0; i < count; i++) {
    let type = typeFor(rand);
    if (type === "task.claimed" && proposed.length === 0) type = "task.proposed";
    if (type === "task.completed" && claimed.length === 0) type = "task.proposed";
    const component = pick(rand, components);
    const aspect = pick(rand, aspects);
    let actor = "agent";
    let payload: Record<string, unknown>;
    switch (type) {
      case "goal.created": {
        const title = `Harden the ${component} ${aspect} (${goals.length + 1})`;
        goals.push(title);
        actor = pick(rand, users);
        payload = { title, description: `Make the ${component} service's ${aspect} survive ${phrase(rand, 8)}.` };
        break;
      }
      case "task.proposed": {
        taskCounter++;
        const taskId = `task-${taskCounter}`;
        proposed.push(taskId);
        payload = { taskId, summary: `Rework the ${component} ${aspect}: ${phrase(rand, 10)}` };
        if (goals.length > 0) payload.goalTitle = pick(rand, goals);
        break;
      }
      case "task.claimed": {
        const index = Math.floor(rand() * proposed.length);
        const taskId = proposed.splice(index, 1)[0];
        claimed.push(taskId);
        actor = pick(rand, ["agent", "agent-reviewer", "agent-builder"]);
        payload = { taskId };
        break;
      }
      case "task.completed": {
        const index = Math.floor(rand() * claimed.length);
        const taskId = claimed.splice(index, 1)[0];
        payload = { taskId, summary: `Done: ${component} ${aspect} now ${phrase(rand, 6)}` };
        break;
      }
      case "decision.made": {
        const technology = pick(rand, technologies);
        payload = {
          decision: `Use ${technology} for the ${component} ${aspect}`,
          summary: `${technology} replaces the ad-hoc ${aspect} in ${component}`,
          rationale: phrase(rand, 12),
          alternatives_considered: pick(rand, technologies),
        };
        break;
      }
      case "user.preference_changed": {
        const key = pick(rand, preferenceKeys);
        actor = pick(rand, users);
        payload = { userId: actor, key, value: pick(rand, preferenceValues[key]) };
        break;
      }
      case "document.indexed": {
        const doc = Math.floor(rand() * documentPaths);
        const docComponent = components[doc % components.length];
        const docAspect = aspects[Math.floor(doc / components.length) % aspects.length];
        actor = "indexer";
        payload = {
          path: `docs/${docComponent}/${docAspect.replace(/ /g, "-")}-${doc}.md`,
          start_line: 1,
          end_line: 40,
          content: `# ${docComponent} ${docAspect}\nRunbook for the ${docComponent} ${docAspect}. ${phrase(rand, 24)}. Owner: ${pick(rand, users)}.`,
        };
        break;
      }
      case "transcript.turn": {
        turnCounter++;
        const role = rand() < 0.5 ? "user" : "assistant";
        actor = role === "user" ? pick(rand, users) : "agent";
        payload = {
          source: `chat-${Math.floor(turnCounter / 50) + 1}`,
          turn_index: turnCounter,
          role,
          content: `About the ${component} ${aspect}: ${phrase(rand, 18)}`,
        };
        break;
      }
      case "tool.call.completed": {
        const tool = pick(rand, tools);
        payload = {
          tool_name: tool,
          call_id: `call-${i + 1}`,
          status: rand() < 0.9 ? "ok" : "error",
          result_summary: `${tool} on src/${component}/${aspect.replace(/ /g, "_")}.ts: ${phrase(rand, 14)}`,
          duration_ms: Math.floor(rand() * 4000),
        };
        const task = openTask();
        if (task !== undefined) payload.task_id = task;
        break;
      }
      case "command.completed": {
        const exitCode = rand() < 0.85 ? 0 : 1;
        payload = {
          command: `npm test -- --grep "${component} ${aspect}"`,
          exit_code: exitCode,
          outcome: exitCode === 0 ? "passed" : "failed",
          stdout_tail: phrase(rand, 16),
        };
        const task = openTask();
        if (task !== undefined) payload.task_id = task;
        break;
      }
      default: {
        // file.edit.applied
        payload = {
          path: `src/${component}/${aspect.replace(/ /g, "_")}.ts`,
          operation: pick(rand, ["replace", "insert", "delete"]),
          summary: `Edit ${component} ${aspect}: ${phrase(rand, 10)}`,
          line_count: 1 + Math.floor(rand() * 60),
        };
        const task = openTask();
        if (task !== undefined) payload.task_id = task;
      }
    }
    const topic = type === "document.indexed" ? String(payload.content).split("\n")[0].slice(2) : `${component} ${aspect}`;
    events.push({ type, actor, payload, topic });
  }
  const typeCounts: Record<string, number> = {};
  for (const event of events) typeCounts[event.type] = (typeCounts[event.type] ?? 0) + 1;
  return {
    events,
    items: events.map((event) => ({ type: event.type, actor: event.actor, payload: fromJs(event.payload) })),
    seed,
    typeCounts,
  };
}

/** Appends the items in batches of `batchEventsMax` (one fsync each); returns the log path. */
export async function writeMixedSession(root: string, sessionId: string, items: readonly AppendItem[]): Promise<string> {
  let logPath = "";
  for (let start = 0; start < items.length; start += batchEventsMax) {
    logPath = (await appendEvents(root, sessionId, items.slice(start, start + batchEventsMax))).logPath;
  }
  return logPath;
}

/**
 * `count` questions an agent might ask of this session, each drawn from one generated event
 * (seeded): decisions, task summaries, documents, preferences, goals, transcript topics,
 * commands and tool results.
 */
export function sampleQueries(session: MixedSession, count: number, seed = 11): string[] {
  const rand = seededRandom(seed);
  const queries: string[] = [];
  const events = session.events;
  for (let attempts = 0; queries.length < count && attempts < count * 20; attempts++) {
    const event = events[Math.floor(rand() * events.length)];
    const p = event.payload;
    const words = (text: unknown, n: number) => String(text).replace(/[^A-Za-z0-9 -]/g, " ").split(/\s+/).filter(Boolean).slice(0, n).join(" ");
    switch (event.type) {
      case "decision.made":
        queries.push(`why did we decide to ${String(p.decision).toLowerCase()}`);
        break;
      case "task.proposed":
      case "task.completed":
        queries.push(`status of ${p.taskId}: ${words(p.summary, 5)}`);
        break;
      case "document.indexed":
        queries.push(`runbook for the ${event.topic}`);
        break;
      case "user.preference_changed":
        queries.push(`which ${String(p.key).replace(/_/g, " ")} does ${p.userId} prefer`);
        break;
      case "goal.created":
        queries.push(`progress on goal ${words(p.title, 6)}`);
        break;
      case "transcript.turn":
        queries.push(`what did we discuss about the ${event.topic}`);
        break;
      case "command.completed":
        queries.push(`did ${String(p.command).replace(/"/g, "")} pass`);
        break;
      case "tool.call.completed":
        queries.push(`${String(p.tool_name).replace(/_/g, " ")} results for the ${event.topic}`);
        break;
      default:
        continue;
    }
  }
  return queries;
}
