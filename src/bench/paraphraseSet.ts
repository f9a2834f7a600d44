/**
 * The paraphrase set of `zaxy bench retrieval --paraphrase`: facts an agent's memory holds, each
 * asked about in other words, among distractors, plus questions memory cannot answer.
 *
 * - `paraphraseFacts`: 36 facts (decisions, owners, incidents, tools, conventions), each with two
 *   questions that name the subject without repeating the fact's content words, the way a person
 *   asks who does not remember how it was written down.
 * - `paraphraseDistractors`: `paraphraseDistractorCount` plausible facts from templates with a
 *   fixed seed, some on the same subjects (another database, another team), none answering a
 *   question.
 * - `unrelatedQuestions`: 20 questions about things no engineering memory holds; the semantic
 *   lane must not make them answerable.
 *
 * Frozen: changing a text changes the benchmark's numbers; add facts rather than edit them.
 */
import { seededRandom } from "./measure.ts";

export interface ParaphraseFact {
  id: string;
  text: string;
  questions: readonly string[];
}

export const paraphraseFacts: readonly ParaphraseFact[] = [
  { id: "p01", text: "Migrated the database to PostgreSQL 16", questions: ["how are we upgrading the db?", "which relational engine release do we run now?"] },
  { id: "p02", text: "Nightly builds run on GitHub Actions using self-hosted runners", questions: ["where do builds run?", "what executes our CI jobs every night?"] },
  { id: "p03", text: "Every feature starts with a written spec that two engineers review", questions: ["specs", "do we need a design doc before coding?"] },
  { id: "p04", text: "Memcached was replaced by Redis for session caching", questions: ["what stores login state in memory now?", "which key-value store did we switch to?"] },
  { id: "p05", text: "Bob is responsible for the quarterly security audit", questions: ["who handles the compliance review every three months?", "who checks our vulnerabilities each quarter?"] },
  { id: "p06", text: "The mobile app release slipped to the second week of June", questions: ["when will the iOS and Android version ship?", "is the phone application delayed?"] },
  { id: "p07", text: "Terraform describes all cloud infrastructure in the ops repository", questions: ["which IaC tool do we use?", "how are servers and networks provisioned?"] },
  { id: "p08", text: "API keys and passwords live in HashiCorp Vault", questions: ["where are secrets kept?", "how do we store credentials?"] },
  { id: "p09", text: "We dropped GraphQL and went back to plain REST endpoints", questions: ["did we stop using a query language for our web service?", "what style does our HTTP interface follow?"] },
  { id: "p10", text: "The checkout outage last Tuesday came from an expired TLS certificate", questions: ["why did payments fail earlier this week?", "root cause of the purchase downtime"] },
  { id: "p11", text: "Carol leads the weekend on-call rotation", questions: ["who is paged on Saturdays?", "who manages pager duty shifts?"] },
  { id: "p12", text: "Frontend code is written in TypeScript with strict mode enabled", questions: ["what language is the web UI in?", "do we type-check the browser client?"] },
  { id: "p13", text: "Logs are shipped to Elasticsearch and viewed in Kibana", questions: ["where can I search application output?", "which stack holds our log lines?"] },
  { id: "p14", text: "Support for Internet Explorer 11 ended in January", questions: ["do we still handle IE11?", "which old browser did we abandon?"] },
  { id: "p15", text: "The Kubernetes cluster autoscaler keeps between three and twelve nodes", questions: ["k8s min and max machines", "how far can the container platform grow?"] },
  { id: "p16", text: "Pull requests need one approval and a green test run before merging", questions: ["what does a change need before it lands?", "code review rules"] },
  { id: "p17", text: "Customer emails are sent through Amazon SES", questions: ["which service delivers our outgoing mail?", "how do notification messages reach users?"] },
  { id: "p18", text: "We pinned Node.js to version 20 LTS across all services", questions: ["which JavaScript runtime release do backends use?", "what node version?"] },
  { id: "p19", text: "Feature flags are managed in LaunchDarkly", questions: ["how do we toggle unfinished functionality?", "what tool turns features on and off?"] },
  { id: "p20", text: "The data warehouse moved from Redshift to Snowflake", questions: ["where do analysts run their reports now?", "which analytics store replaced the Amazon one?"] },
  { id: "p21", text: "Dave approved a budget of 40,000 euros for the observability project", questions: ["how much money can monitoring work spend?", "who signed off on the tracing and metrics spending?"] },
  { id: "p22", text: "Backups are taken every six hours and kept for thirty days", questions: ["how often do we snapshot data?", "how long is restore history retained?"] },
  { id: "p23", text: "The search service uses OpenSearch with a custom synonym list", questions: ["what powers product lookup?", "which engine answers queries typed by shoppers?"] },
  { id: "p24", text: "Eve is the product owner for the billing team", questions: ["who decides priorities for invoicing work?", "who sets the roadmap for charges and payments?"] },
  { id: "p25", text: "Deployments to production are frozen during the last week of December", questions: ["can we ship over the holidays?", "is there a change freeze at year end?"] },
  { id: "p26", text: "Python services are formatted with Black and linted with Ruff", questions: ["what style checker do we use for python?", "which code formatting tools are standard?"] },
  { id: "p27", text: "The staging environment is rebuilt from scratch every Monday", questions: ["how often is the pre-production setup reset?", "when does the test env get recreated?"] },
  { id: "p28", text: "We chose gRPC for traffic between internal microservices", questions: ["how do backend components talk to each other?", "which RPC framework links our services?"] },
  { id: "p29", text: "Grafana dashboards alert the team when error rates exceed two percent", questions: ["what happens if failures spike?", "when do we get warned about too many exceptions?"] },
  { id: "p30", text: "Sprint planning happens every other Wednesday at 10 am", questions: ["when do we plan iterations?", "what day is the fortnightly scheduling meeting?"] },
  { id: "p31", text: "The login page now supports passkeys alongside passwords", questions: ["can people sign in without typing a secret?", "did we add WebAuthn?"] },
  { id: "p32", text: "Images are resized by a Lambda function when uploaded to S3", questions: ["how are pictures shrunk?", "what processes photos after users add them?"] },
  { id: "p33", text: "The monorepo build uses Bazel with remote caching", questions: ["which build system compiles our code?", "how do we speed up compilation across machines?"] },
  { id: "p34", text: "Frank is migrating the legacy billing cron jobs to Temporal workflows", questions: ["who is moving scheduled tasks to a workflow engine?", "what is replacing the old timed scripts?"] },
  { id: "p35", text: "Mobile crash reports are collected with Sentry", questions: ["how do we find out when the app dies?", "where do exception traces from phones go?"] },
  { id: "p36", text: "Our SLA promises 99.9 percent uptime for paying customers", questions: ["what availability do we guarantee?", "how much downtime is allowed by contract?"] },
];

/** Questions no engineering memory answers. */
export const unrelatedQuestions: readonly string[] = [
  "what is the capital of Australia?",
  "how long should I boil an egg?",
  "who painted the Mona Lisa?",
  "what is a good name for a golden retriever?",
  "how many players are on a rugby team?",
  "what is the best season to visit Japan?",
  "how do I remove a red wine stain?",
  "which planet has the most moons?",
  "what should I cook for dinner tonight?",
  "how tall is Mount Kilimanjaro?",
  "what is the plot of Hamlet?",
  "how do I tune a guitar?",
  "when did the Roman Empire fall?",
  "what is the recipe for banana bread?",
  "how many bones are in the human body?",
  "which bird migrates the farthest?",
  "how do I grow tomatoes on a balcony?",
  "who won the football world cup in 1998?",
  "what is the boiling point of water on a mountain?",
  "what is a haiku?",
];

/** Distractor facts per benchmark run. */
export const paraphraseDistractorCount = 160;

const distractorTemplates: readonly string[] = [
  "{person} reviewed the {component} changes on {day}",
  "The {component} team added metrics for {thing}",
  "{person} fixed a flaky test in the {component} suite",
  "Renamed the {thing} table in the {component} schema",
  "{person} will present the {component} roadmap on {day}",
  "The {component} dashboard now shows {thing} per region",
  "Bumped the {component} dependency to fix a {thing} warning",
  "{person} wrote a runbook for restarting {component}",
  "The {component} service returns {thing} in a new field",
  "Archived the old {component} tickets about {thing}",
  "{person} paired with {person2} on {component} onboarding",
  "Moved the {component} cron from {day} to the weekend",
];
const people = ["Grace", "Heidi", "Ivan", "Judy", "Mallory", "Niaj", "Olivia", "Peggy", "Rupert", "Sybil", "Trent", "Victor", "Walter"];
const components = ["inventory", "catalog", "shipping", "reporting", "notifications", "onboarding", "pricing", "recommendations", "audit", "warehouse"];
const things = ["latency", "retries", "timeouts", "cache misses", "queue depth", "disk usage", "session counts", "error codes", "currency rounding", "tax rules"];
const days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"];

/** The distractor facts, the same for every run (seed 20261128). */
export function paraphraseDistractors(count = paraphraseDistractorCount): string[] {
  const rand = seededRandom(20261128);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)];
  const out = new Set<string>();
  while (out.size < count) {
    const person = pick(people);
    const text = pick(distractorTemplates)
      .replace("{person}", person)
      .replace("{person2}", pick(people.filter((p) => p !== person)))
      .replace("{component}", pick(components))
      .replace("{thing}", pick(things))
      .replace("{day}", pick(days));
    out.add(text);
  }
  return [...out];
}
