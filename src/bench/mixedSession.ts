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
import { type AppendItem } from "../eventloom/append.ts";
import { appendEvents } from "../events/append.ts";
import { invariant } from "../invariant.ts";
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

/** What the generator remembers between events: the open tasks, the goals, the counters. */
interface MixState {
  rand: () => number;
  /** Proposed tasks not yet claimed. */
  proposed: string[];
  /** Claimed tasks not yet completed. */
  claimed: string[];
  goals: string[];
  documentPaths: number;
  taskCounter: number;
  turnCounter: number;
}

/** What one event is about: its index in the session and its component and aspect. */
interface Subject {
  index: number;
  component: string;
  aspect: string;
}

type EventBody = { actor: string; payload: Record<string, unknown> };

/** A claimed task that tool calls, commands and edits name now and then. */
function openTask(state: MixState): string | undefined {
  return state.claimed.length > 0 && state.rand() < 0.7 ? pick(state.rand, state.claimed) : undefined;
}

/** `payload` with the task it works on, when there is one. */
function withTask(state: MixState, payload: Record<string, unknown>): Record<string, unknown> {
  const task = openTask(state);
  if (task !== undefined) payload.task_id = task;
  return payload;
}

/**
 * The actor and payload of each event type. Every builder draws from `state.rand` in a fixed
 * order (object literals evaluate in source order): a seed always yields the same session.
 */
const eventBuilders: Record<string, (state: MixState, subject: Subject) => EventBody> = {
  "goal.created": (state, { component, aspect }) => {
    const title = `Harden the ${component} ${aspect} (${state.goals.length + 1})`;
    state.goals.push(title);
    const actor = pick(state.rand, users);
    return { actor, payload: { title, description: `Make the ${component} service's ${aspect} survive ${phrase(state.rand, 8)}.` } };
  },
  "task.proposed": (state, { component, aspect }) => {
    state.taskCounter++;
    const taskId = `task-${state.taskCounter}`;
    state.proposed.push(taskId);
    const payload: Record<string, unknown> = { taskId, summary: `Rework the ${component} ${aspect}: ${phrase(state.rand, 10)}` };
    if (state.goals.length > 0) payload.goalTitle = pick(state.rand, state.goals);
    return { actor: "agent", payload };
  },
  "task.claimed": (state) => {
    const index = Math.floor(state.rand() * state.proposed.length);
    const taskId = state.proposed.splice(index, 1)[0];
    state.claimed.push(taskId);
    return { actor: pick(state.rand, ["agent", "agent-reviewer", "agent-builder"]), payload: { taskId } };
  },
  "task.completed": (state, { component, aspect }) => {
    const index = Math.floor(state.rand() * state.claimed.length);
    const taskId = state.claimed.splice(index, 1)[0];
    return { actor: "agent", payload: { taskId, summary: `Done: ${component} ${aspect} now ${phrase(state.rand, 6)}` } };
  },
  "decision.made": (state, { component, aspect }) => {
    const technology = pick(state.rand, technologies);
    return {
      actor: "agent",
      payload: {
        decision: `Use ${technology} for the ${component} ${aspect}`,
        summary: `${technology} replaces the ad-hoc ${aspect} in ${component}`,
        rationale: phrase(state.rand, 12),
        alternatives_considered: pick(state.rand, technologies),
      },
    };
  },
  "user.preference_changed": (state) => {
    const key = pick(state.rand, preferenceKeys);
    const actor = pick(state.rand, users);
    return { actor, payload: { userId: actor, key, value: pick(state.rand, preferenceValues[key]) } };
  },
  "document.indexed": (state) => {
    const doc = Math.floor(state.rand() * state.documentPaths);
    const docComponent = components[doc % components.length];
    const docAspect = aspects[Math.floor(doc / components.length) % aspects.length];
    return {
      actor: "indexer",
      payload: {
        path: `docs/${docComponent}/${docAspect.replace(/ /g, "-")}-${doc}.md`,
        start_line: 1,
        end_line: 40,
        content: `# ${docComponent} ${docAspect}\nRunbook for the ${docComponent} ${docAspect}. ${phrase(state.rand, 24)}. Owner: ${pick(state.rand, users)}.`,
      },
    };
  },
  "transcript.turn": (state, { component, aspect }) => {
    state.turnCounter++;
    const role = state.rand() < 0.5 ? "user" : "assistant";
    const actor = role === "user" ? pick(state.rand, users) : "agent";
    return {
      actor,
      payload: {
        source: `chat-${Math.floor(state.turnCounter / 50) + 1}`,
        turn_index: state.turnCounter,
        role,
        content: `About the ${component} ${aspect}: ${phrase(state.rand, 18)}`,
      },
    };
  },
  "tool.call.completed": (state, { index, component, aspect }) => {
    const tool = pick(state.rand, tools);
    return {
      actor: "agent",
      payload: withTask(state, {
        tool_name: tool,
        call_id: `call-${index + 1}`,
        status: state.rand() < 0.9 ? "ok" : "error",
        result_summary: `${tool} on src/${component}/${aspect.replace(/ /g, "_")}.ts: ${phrase(state.rand, 14)}`,
        duration_ms: Math.floor(state.rand() * 4000),
      }),
    };
  },
  "command.completed": (state, { component, aspect }) => {
    const exitCode = state.rand() < 0.85 ? 0 : 1;
    return {
      actor: "agent",
      payload: withTask(state, {
        command: `npm test -- --grep "${component} ${aspect}"`,
        exit_code: exitCode,
        outcome: exitCode === 0 ? "passed" : "failed",
        stdout_tail: phrase(state.rand, 16),
      }),
    };
  },
  "file.edit.applied": (state, { component, aspect }) => ({
    actor: "agent",
    payload: withTask(state, {
      path: `src/${component}/${aspect.replace(/ /g, "_")}.ts`,
      operation: pick(state.rand, ["replace", "insert", "delete"]),
      summary: `Edit ${component} ${aspect}: ${phrase(state.rand, 10)}`,
      line_count: 1 + Math.floor(state.rand() * 60),
    }),
  }),
};

/** The next event's type: drawn from the mix, a proposal when there is nothing to claim or complete. */
function nextType(state: MixState): string {
  const type = typeFor(state.rand);
  if (type === "task.claimed" && state.proposed.length === 0) return "task.proposed";
  if (type === "task.completed" && state.claimed.length === 0) return "task.proposed";
  return type;
}

/**
 * `count` events of the mix, seeded. Claims and completions refer to earlier proposals (a
 * proposal is generated instead when there is none to refer to).
 */
export function mixedSessionItems(count: number, seed = 7): MixedSession {
  const state: MixState = {
    rand: seededRandom(seed),
    proposed: [],
    claimed: [],
    goals: [],
    documentPaths: Math.max(8, Math.floor(count / 40)),
    taskCounter: 0,
    turnCounter: 0,
  };
  const events: MixedEvent[] = [];
  for (let i = 0; i < count; i++) {
    const type = nextType(state);
    const component = pick(state.rand, components);
    const aspect = pick(state.rand, aspects);
    const build = eventBuilders[type];
    invariant(build !== undefined, `no builder for event type ${type}`);
    const { actor, payload } = build(state, { index: i, component, aspect });
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
