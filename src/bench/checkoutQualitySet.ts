/**
 * The committed question set of `zaxy bench checkout-quality`: plain data, compiled into the
 * binary so the bench runs anywhere.
 *
 * Each session is a short agent log (events of types the engine reads: docs/events.md) with two
 * kinds of questions an agent might ask before answering:
 *
 * - related: answered by one recorded event, named by its index in `events`; the question shares
 *   at least one content word with that event (inflections allowed), as a person would ask it;
 * - unrelated: about something the session never mentions (weather, recipes, other tools, people
 *   who do not appear). Some share one generic word with a memory ("release", "search",
 *   "model") so that a word match alone is not enough.
 *
 * Two splits: `train` and `held_out`, written separately with different projects and
 * questions. The held-out split is reported apart so results are not only on the questions any
 * tuning looked at. Never edit a question to make a result pass: add a new one instead, and keep
 * the reported numbers in docs/benchmarks-checkout-quality.md in step.
 */

/** One event as appended: a known type and its payload. */
export interface QualitySetEvent {
  type: string;
  payload: { [key: string]: string | number | string[] };
}

export interface RelatedQuestion {
  question: string;
  /** Index in the session's `events` of the event that answers it. */
  fact: number;
}

export interface QualitySetSession {
  /** Session id in the bench's temporary root. */
  id: string;
  events: QualitySetEvent[];
  related: RelatedQuestion[];
  unrelated: string[];
}

export type QualitySplit = "train" | "held_out";

const paymentsGoal = "Ship the payments API v2 before the March launch";
const mobileGoal = "Release the Android and iOS app 3.0 in the app stores";

export const trainSessions: QualitySetSession[] = [
  {
    id: "payments-api",
    events: [
      { type: "goal.created", payload: { title: paymentsGoal, description: "New charge and refund endpoints for merchants" } },
      { type: "decision.made", payload: { decision: "Deploy the payments API with blue-green releases", rationale: "Instant rollback by switching the load balancer back to the old color" } },
      { type: "decision.made", payload: { decision: "Store money amounts as integer cents", rationale: "Floating point rounding produced one-cent mismatches in reconciliation", alternatives_considered: ["Decimal strings"] } },
      { type: "context.policy", payload: { project: "payments-api", source: "AGENTS.md", status: "active", instructions: "Run go vet and the integration suite before every merge" } },
      { type: "task.proposed", payload: { taskId: "pay-12", title: "Add idempotency keys to the charge endpoint", goalTitle: paymentsGoal } },
      { type: "issue.diagnosed", payload: { issue: "Duplicate charges during network retries", root_cause: "Clients retried POST /charges without an idempotency key", evidence: "Two charge rows with the same card fingerprint 300 ms apart", fix: "Require an Idempotency-Key header and dedupe for 24 hours" } },
      { type: "task.completed", payload: { taskId: "pay-9", summary: "Migrated the ledger tables to Postgres 16 with zero downtime" } },
      { type: "user.preference_changed", payload: { user: "dana", key: "code_review", value: "small pull requests under 300 lines" } },
      { type: "decision.made", payload: { decision: "Rate limit merchants at 100 requests per second per API key", rationale: "Protects the card network quota during traffic spikes" } },
      { type: "verification.recorded", payload: { command: "go test ./... -race", outcome: "passed", summary: "412 tests passed with the race detector" } },
      { type: "document.indexed", payload: { path: "docs/runbooks/refunds.md", start_line: 1, end_line: 20, content: "Refund runbook: partial refunds are allowed up to the captured amount; refunds older than 180 days go through the manual finance queue." } },
      { type: "handoff.created", payload: { title: "Webhook signing rollout", summary: "Webhook payloads are now signed with HMAC-SHA256; merchants verify them with the shared secret", next_steps: ["Rotate the signing secret quarterly"], risks: ["Merchants that ignore the signature header"] } },
      { type: "decision.made", payload: { decision: "Use Stripe as the fallback card processor", rationale: "Adyen outages last quarter blocked checkout for two hours" } },
      { type: "issue.diagnosed", payload: { issue: "Slow settlement report", root_cause: "Missing index on ledger_entries.settled_at", evidence: "Sequential scan over 40 million rows", fix: "Add a partial index on settled_at" } },
    ],
    related: [
      { question: "How do we deploy the payments API?", fact: 1 },
      { question: "How are money amounts stored?", fact: 2 },
      { question: "What has to run before a merge?", fact: 3 },
      { question: "Where are we with the idempotency keys for the charge endpoint?", fact: 4 },
      { question: "Why were merchants seeing duplicate charges?", fact: 5 },
      { question: "Did the ledger migration to Postgres finish?", fact: 6 },
      { question: "How big should pull requests be for dana?", fact: 7 },
      { question: "What is the rate limit per API key?", fact: 8 },
      { question: "Did the tests pass with the race detector?", fact: 9 },
      { question: "How do partial refunds work?", fact: 10 },
      { question: "How are webhook payloads signed?", fact: 11 },
      { question: "Which card processor is the fallback?", fact: 12 },
      { question: "Why is the settlement report slow?", fact: 13 },
    ],
    unrelated: [
      "What's the weather forecast for Lisbon tomorrow?",
      "Give me a recipe for banana bread",
      "How do I configure ESLint for a Vue project?",
      "What is Priya's phone number?",
      "Which font does the marketing website use?",
      "How many vacation days do I have left this year?",
      "When is the release date of the next Zelda game?",
      "How do I report a pothole to the city?",
    ],
  },
  {
    id: "mobile-app",
    events: [
      { type: "goal.created", payload: { title: mobileGoal, description: "Offline mode and a redesigned onboarding flow" } },
      { type: "decision.made", payload: { decision: "Use Expo EAS for mobile builds", rationale: "Managed signing credentials and cloud builds remove the need for a Mac build farm", alternatives_considered: ["Fastlane on self-hosted runners"] } },
      { type: "decision.made", payload: { decision: "Cache API responses offline in SQLite through WatermelonDB", rationale: "Sync conflicts are resolved per record with last-write-wins" } },
      { type: "issue.diagnosed", payload: { issue: "Push notifications missing on Android 14", root_cause: "The POST_NOTIFICATIONS runtime permission was never requested", evidence: "Firebase delivered the messages but the system suppressed them", fix: "Ask for notification permission after onboarding" } },
      { type: "context.policy", payload: { project: "mobile-app", source: "CONTRIBUTING.md", status: "active", instructions: "Every screen needs a Detox end-to-end test and accessibility labels" } },
      { type: "task.proposed", payload: { taskId: "app-41", title: "Redesign the onboarding carousel with three screens", goalTitle: mobileGoal } },
      { type: "task.completed", payload: { taskId: "app-37", summary: "Dark mode shipped behind the theme toggle in settings" } },
      { type: "user.preference_changed", payload: { user: "lucas", key: "state_management", value: "Zustand instead of Redux" } },
      { type: "issue.diagnosed", payload: { issue: "App crashes on launch for iPad users", root_cause: "Hermes bytecode was built for the wrong architecture", evidence: "Crashlytics shows EXC_BAD_ACCESS in the JavaScript engine init", fix: "Rebuild with the universal iOS target" } },
      { type: "decision.made", payload: { decision: "Support iOS 15 and Android 10 as the minimum OS versions", rationale: "They cover 97 percent of active devices" } },
      { type: "verification.recorded", payload: { command: "detox test --configuration ios.sim.release", outcome: "failed", summary: "The checkout flow test timed out waiting for the pay button" } },
      { type: "document.indexed", payload: { path: "docs/mobile/deep-links.md", start_line: 1, end_line: 14, content: "Deep links use the zaxyshop:// scheme on both platforms; universal links are served from the apple-app-site-association file." } },
      { type: "handoff.created", payload: { title: "App Store review feedback", summary: "Apple rejected build 3.0.1 because the account deletion option was hard to find", next_steps: ["Move account deletion into the profile screen"], risks: ["Another review cycle delays the launch by a week"] } },
    ],
    related: [
      { question: "Which tool do we use for mobile builds?", fact: 1 },
      { question: "How does offline caching work?", fact: 2 },
      { question: "Why aren't push notifications showing up on Android?", fact: 3 },
      { question: "What does every screen need before it ships?", fact: 4 },
      { question: "What's planned for the onboarding carousel?", fact: 5 },
      { question: "Did dark mode ship?", fact: 6 },
      { question: "Which state management library does lucas want?", fact: 7 },
      { question: "Why does the app crash on iPad?", fact: 8 },
      { question: "What are the minimum OS versions we support?", fact: 9 },
      { question: "Did the detox checkout test pass?", fact: 10 },
      { question: "Which scheme do deep links use?", fact: 11 },
      { question: "Why did Apple reject the build?", fact: 12 },
    ],
    unrelated: [
      "What's a good substitute for buttermilk in pancakes?",
      "Is it going to snow in Denver this weekend?",
      "How do I set up the Django admin panel?",
      "What's Omar's favorite coffee shop?",
      "How do I renew my passport?",
      "What did the board decide about the quarterly budget?",
      "Which screen resolution does the conference projector need?",
      "How much does a used Tesla cost?",
    ],
  },
  {
    id: "data-pipeline",
    events: [
      { type: "goal.created", payload: { title: "Cut the nightly ETL runtime below two hours", description: "Finance dashboards must be fresh by 7 am" } },
      { type: "decision.made", payload: { decision: "Model warehouse transformations in dbt", rationale: "SQL models with tests and lineage replace hand-written stored procedures" } },
      { type: "decision.made", payload: { decision: "Load raw events into Snowflake with Snowpipe", rationale: "Continuous loading removes the 2 am bulk copy" } },
      { type: "issue.diagnosed", payload: { issue: "Nightly orders job fails on the daylight saving change", root_cause: "Partitions keyed by local time skip an hour", evidence: "Missing partition for 02:00 on March 10", fix: "Partition by UTC timestamps" } },
      { type: "context.policy", payload: { project: "data-pipeline", source: "README.md", status: "active", instructions: "Never drop production schemas; write migrations as new dbt models" } },
      { type: "task.proposed", payload: { taskId: "etl-88", title: "Backfill customer lifetime value for 2022" } },
      { type: "task.completed", payload: { taskId: "etl-80", summary: "Deduplicated the clickstream table, saving 1.2 TB of storage" } },
      { type: "user.preference_changed", payload: { user: "ines", key: "alert_channel", value: "#data-alerts in Slack, not email" } },
      { type: "verification.recorded", payload: { command: "dbt test --select marts.finance", outcome: "passed", summary: "58 data tests passed" } },
      { type: "decision.made", payload: { decision: "Retain raw clickstream data for 13 months", rationale: "Year-over-year comparisons need one month of overlap and GDPR requires a bound" } },
      { type: "document.indexed", payload: { path: "docs/pipelines/freshness.md", start_line: 1, end_line: 9, content: "Freshness SLA: finance marts refresh by 07:00 UTC, marketing marts by 09:00 UTC; a late refresh pages the on-call analyst." } },
      { type: "issue.diagnosed", payload: { issue: "Revenue dashboard double counts refunds", root_cause: "The join between orders and refunds fans out on partial refunds", evidence: "Refund total exceeded order total for 312 orders", fix: "Aggregate refunds per order before joining" } },
      { type: "handoff.created", payload: { title: "Warehouse cost review", summary: "Snowflake credits rose 40 percent after the XL warehouse was left running", next_steps: ["Set auto-suspend to 60 seconds"], risks: ["Cold starts slow the first dashboard query"] } },
    ],
    related: [
      { question: "What do we use for warehouse transformations?", fact: 1 },
      { question: "How do raw events get loaded into Snowflake?", fact: 2 },
      { question: "Why did the nightly orders job fail?", fact: 3 },
      { question: "Are we allowed to drop production schemas?", fact: 4 },
      { question: "What's the plan for the lifetime value backfill?", fact: 5 },
      { question: "How much storage did deduplicating clickstream save?", fact: 6 },
      { question: "Where should alerts go for ines?", fact: 7 },
      { question: "Did the finance dbt tests pass?", fact: 8 },
      { question: "How long do we retain clickstream data?", fact: 9 },
      { question: "When must the finance marts refresh?", fact: 10 },
      { question: "Why is the revenue dashboard double counting refunds?", fact: 11 },
      { question: "Why did our Snowflake credits go up?", fact: 12 },
    ],
    unrelated: [
      "What's the best way to roast a chicken?",
      "Will it rain in Seattle on Friday?",
      "How do I configure a Unity game build for WebGL?",
      "Who is Marguerite's manager?",
      "What time does the gym open on Sunday?",
      "What's the capital of Australia?",
      "What is the airline's refund policy for my cancelled flight?",
      "Which dashboard shows my Fitbit sleep score?",
    ],
  },
  {
    id: "docs-site",
    events: [
      { type: "goal.created", payload: { title: "Launch the new developer documentation site", description: "Replace the wiki with a versioned static site" } },
      { type: "decision.made", payload: { decision: "Build the docs site with Docusaurus", rationale: "Versioned docs and MDX components out of the box", alternatives_considered: ["Hugo", "MkDocs"] } },
      { type: "decision.made", payload: { decision: "Host the documentation on Cloudflare Pages", rationale: "Preview deployments for every pull request and a global CDN" } },
      { type: "decision.made", payload: { decision: "Use Algolia DocSearch for site search", rationale: "Free for open source docs and indexes every version" } },
      { type: "context.policy", payload: { project: "docs-site", source: "STYLE.md", status: "active", instructions: "Write in second person and present tense; code samples must compile" } },
      { type: "task.proposed", payload: { taskId: "docs-15", title: "Translate the quickstart into Japanese and German" } },
      { type: "task.completed", payload: { taskId: "docs-11", summary: "Redirected 240 old wiki URLs to their new pages" } },
      { type: "issue.diagnosed", payload: { issue: "Broken anchor links after the sidebar reorganization", root_cause: "Heading slugs changed when titles were renamed", evidence: "The link checker reported 87 missing anchors", fix: "Pin explicit heading ids" } },
      { type: "user.preference_changed", payload: { user: "mei", key: "diagram_tool", value: "Mermaid diagrams in Markdown" } },
      { type: "verification.recorded", payload: { command: "npm run build && lychee build/", outcome: "passed", summary: "No broken links in 1,430 pages" } },
      { type: "document.indexed", payload: { path: "docs/contributing/versioning.md", start_line: 1, end_line: 11, content: "Docs versioning: a new docs version is cut at every minor release; only the three latest versions stay in the version dropdown." } },
      { type: "handoff.created", payload: { title: "API reference generation", summary: "The REST API reference is generated from the OpenAPI spec at build time", next_steps: ["Add request examples for the webhook endpoints"], risks: ["Spec drift when handlers change without updating the OpenAPI file"] } },
    ],
    related: [
      { question: "What's the goal for the developer documentation?", fact: 0 },
      { question: "What do we build the docs site with?", fact: 1 },
      { question: "Where is the documentation hosted?", fact: 2 },
      { question: "What powers site search?", fact: 3 },
      { question: "Which tense should we write in?", fact: 4 },
      { question: "Which languages is the quickstart being translated into?", fact: 5 },
      { question: "Were the old wiki URLs redirected?", fact: 6 },
      { question: "Why are anchor links broken?", fact: 7 },
      { question: "Which diagram tool does mei like?", fact: 8 },
      { question: "Did the broken link check pass?", fact: 9 },
      { question: "How many docs versions stay in the dropdown?", fact: 10 },
      { question: "How is the API reference generated?", fact: 11 },
    ],
    unrelated: [
      "How long should I boil an egg for a soft yolk?",
      "Is there a heat warning in Phoenix today?",
      "How do I tune garbage collection in the JVM?",
      "What's Henrik's Slack handle?",
      "Which airline has the cheapest flights to Tokyo?",
      "When does the farmers market open?",
      "What's the search radius in the apartment hunting app?",
      "Which version of Python does the lab robot run?",
    ],
  },
  {
    id: "infra-cluster",
    events: [
      { type: "goal.created", payload: { title: "Move all services to the new Kubernetes cluster by June", description: "Retire the legacy VM fleet" } },
      { type: "decision.made", payload: { decision: "Manage cloud infrastructure with Terraform modules per environment", rationale: "State isolation keeps a staging mistake away from production" } },
      { type: "decision.made", payload: { decision: "Issue TLS certificates with cert-manager and Let's Encrypt", rationale: "Automatic renewal 30 days before expiry" } },
      { type: "issue.diagnosed", payload: { issue: "Pods evicted under memory pressure on the batch node pool", root_cause: "Jobs had no memory limits and overcommitted the nodes", evidence: "kubelet eviction events every night at 01:00", fix: "Set requests and limits on every job" } },
      { type: "context.policy", payload: { project: "infra", source: "RUNBOOK.md", status: "active", instructions: "Production changes need two approvals and a change ticket" } },
      { type: "task.proposed", payload: { taskId: "infra-203", title: "Enable the cluster autoscaler on the web node pool" } },
      { type: "task.completed", payload: { taskId: "infra-198", summary: "Upgraded the cluster control plane to Kubernetes 1.29" } },
      { type: "user.preference_changed", payload: { user: "sam", key: "on_call_hours", value: "09:00-17:00 CET on weekdays" } },
      { type: "decision.made", payload: { decision: "Send logs to Loki and metrics to Prometheus", rationale: "One Grafana for dashboards, cheaper than the hosted vendor" } },
      { type: "verification.recorded", payload: { command: "terraform plan -out prod.plan", outcome: "passed", summary: "No drift in the production workspace" } },
      { type: "issue.diagnosed", payload: { issue: "DNS lookups time out inside pods", root_cause: "The conntrack table fills up on nodes with many UDP connections", evidence: "5 second delays on every external call", fix: "Run NodeLocal DNSCache" } },
      { type: "document.indexed", payload: { path: "docs/infra/secrets.md", start_line: 1, end_line: 8, content: "Secrets live in Vault; pods read them through the Vault agent injector, never from plain Kubernetes secrets in git." } },
      { type: "handoff.created", payload: { title: "Database failover drill", summary: "Failover of the primary Postgres took 42 seconds", next_steps: ["Lower the health check interval"], risks: ["Connection pools that do not reconnect"] } },
    ],
    related: [
      { question: "How do we manage cloud infrastructure?", fact: 1 },
      { question: "How do TLS certificates get renewed?", fact: 2 },
      { question: "Why were pods evicted?", fact: 3 },
      { question: "What approvals do production changes need?", fact: 4 },
      { question: "Is the cluster autoscaler enabled yet?", fact: 5 },
      { question: "Which Kubernetes version is the control plane on?", fact: 6 },
      { question: "What are sam's on-call hours?", fact: 7 },
      { question: "Where do our logs go?", fact: 8 },
      { question: "Is there drift in the production workspace?", fact: 9 },
      { question: "Why do DNS lookups time out?", fact: 10 },
      { question: "Where are secrets kept?", fact: 11 },
      { question: "How long did the database failover take?", fact: 12 },
    ],
    unrelated: [
      "What's a good vegetarian lasagna recipe?",
      "What's the humidity in Singapore right now?",
      "How do I animate a SwiftUI view?",
      "Where did Rebecca go to college?",
      "How many calories are in an avocado?",
      "Which podcast app supports chapters?",
      "How much memory does the new iPhone have?",
      "Who approved the bakery's new menu?",
    ],
  },
];

export const heldOutSessions: QualitySetSession[] = [
  {
    id: "ml-training",
    events: [
      { type: "decision.made", payload: { decision: "Fine-tune the ranking model with LoRA adapters", rationale: "Full fine-tuning needed 8 GPUs; adapters fit on one A100" } },
      { type: "issue.diagnosed", payload: { issue: "Training loss diverges after 3,000 steps", root_cause: "Learning rate warmup was disabled in the new config", evidence: "Loss spiked to NaN at step 3,104", fix: "Restore 500 warmup steps" } },
      { type: "context.policy", payload: { project: "ml-platform", source: "AGENTS.md", status: "active", instructions: "Log every training run to Weights & Biases with the git commit" } },
      { type: "task.proposed", payload: { taskId: "ml-54", title: "Evaluate the reranker on the multilingual benchmark" } },
      { type: "task.completed", payload: { taskId: "ml-49", summary: "Exported the classifier to ONNX; inference latency dropped to 8 ms" } },
      { type: "user.preference_changed", payload: { user: "aiko", key: "experiment_style", value: "plain scripts over notebooks" } },
      { type: "verification.recorded", payload: { command: "pytest tests/eval -k calibration", outcome: "passed", summary: "Expected calibration error 0.021" } },
      { type: "decision.made", payload: { decision: "Keep 10 percent of labeled data as a frozen holdout", rationale: "Prevents tuning on the evaluation set" } },
      { type: "document.indexed", payload: { path: "docs/ml/gpu-quota.md", start_line: 1, end_line: 6, content: "GPU quota: each team gets 16 A100 hours per day; larger jobs need a reservation in the scheduler." } },
      { type: "handoff.created", payload: { title: "Embedding model upgrade", summary: "Embeddings switched to a 768-dimension model, so the vector index must be rebuilt", next_steps: ["Rebuild the index over the weekend"], risks: ["Recall drops until the rebuild finishes"] } },
      { type: "goal.created", payload: { title: "Improve search relevance by 5 points of NDCG", description: "Measured on the quarterly relevance judgments" } },
    ],
    related: [
      { question: "How are we fine-tuning the ranking model?", fact: 0 },
      { question: "Why does the training loss diverge?", fact: 1 },
      { question: "Where do training runs get logged?", fact: 2 },
      { question: "What's the status of the multilingual reranker evaluation?", fact: 3 },
      { question: "What was the inference latency after the ONNX export?", fact: 4 },
      { question: "Does aiko want notebooks for experiments?", fact: 5 },
      { question: "How many GPU hours does a team get per day?", fact: 8 },
      { question: "Why does the vector index need rebuilding?", fact: 9 },
    ],
    unrelated: [
      "How do I make a sourdough starter?",
      "What's the UV index in Sydney today?",
      "How do I set up Redux Toolkit in a Next.js app?",
      "When is Carlos's birthday?",
      "Which train goes from Zurich to Milan?",
      "What's the best laptop for video editing?",
      "How large is the model railway club's layout?",
    ],
  },
  {
    id: "support-desk",
    events: [
      { type: "decision.made", payload: { decision: "Route billing tickets to the finance queue in Zendesk", rationale: "Agents without finance access were escalating every billing question" } },
      { type: "decision.made", payload: { decision: "Auto-close tickets after 7 days without a customer reply", rationale: "Stale tickets inflated the backlog metrics" } },
      { type: "issue.diagnosed", payload: { issue: "Macros reply in the wrong language", root_cause: "The locale was taken from the agent profile instead of the requester", evidence: "French customers received English replies", fix: "Read the locale from the ticket requester" } },
      { type: "context.policy", payload: { project: "support", source: "PLAYBOOK.md", status: "active", instructions: "Refunds above 500 euros need a team lead approval" } },
      { type: "task.proposed", payload: { taskId: "sup-21", title: "Build a CSAT survey sent after ticket resolution" } },
      { type: "task.completed", payload: { taskId: "sup-17", summary: "Integrated the order lookup sidebar app into Zendesk" } },
      { type: "user.preference_changed", payload: { user: "nora", key: "shift_summary", value: "bullet list posted in #support-leads at 18:00" } },
      { type: "document.indexed", payload: { path: "docs/support/sla.md", start_line: 1, end_line: 5, content: "Support SLA: first response within 4 business hours for paid plans and 24 hours for free plans." } },
      { type: "verification.recorded", payload: { command: "npm run test:macros", outcome: "passed", summary: "All 64 macro templates render in 9 locales" } },
      { type: "handoff.created", payload: { title: "Chatbot pilot", summary: "The chatbot deflected 18 percent of password reset chats in the pilot", next_steps: ["Extend it to shipping status questions"], risks: ["Customers stuck in loops without a human handoff"] } },
      { type: "issue.diagnosed", payload: { issue: "Duplicate tickets from email replies", root_cause: "Replies lost the ticket id header when forwarded through Outlook", evidence: "One thread split into 3 tickets", fix: "Match replies by subject hash as a fallback" } },
    ],
    related: [
      { question: "Where do billing tickets go?", fact: 0 },
      { question: "When do tickets get auto-closed?", fact: 1 },
      { question: "Why did macros reply in the wrong language?", fact: 2 },
      { question: "Who has to approve large refunds?", fact: 3 },
      { question: "Is the CSAT survey built yet?", fact: 4 },
      { question: "How should nora's shift summary be posted?", fact: 6 },
      { question: "What's the first response SLA for paid plans?", fact: 7 },
      { question: "How did the chatbot pilot go?", fact: 9 },
      { question: "Why are email replies creating duplicate tickets?", fact: 10 },
    ],
    unrelated: [
      "What's the recipe for a classic margarita?",
      "Will there be thunderstorms in Madrid tonight?",
      "How do I write a Rust macro?",
      "What's Viktor's shoe size?",
      "How do I change a bike tire?",
      "Which hiking trails are open in Yosemite?",
      "What were the survey results of the neighborhood association?",
    ],
  },
  {
    id: "game-server",
    events: [
      { type: "decision.made", payload: { decision: "Run game servers on dedicated Agones fleets", rationale: "Session-based servers scale per match" } },
      { type: "decision.made", payload: { decision: "Use skill-based matchmaking with a 50 ms latency ceiling", rationale: "Players abandoned matches with high ping" } },
      { type: "issue.diagnosed", payload: { issue: "Players rubber-band during firefights", root_cause: "Server tick rate dropped to 20 Hz under load", evidence: "Tick time histograms above 50 ms", fix: "Move physics to a worker thread" } },
      { type: "context.policy", payload: { project: "game-server", source: "AGENTS.md", status: "active", instructions: "Never change the network protocol without bumping the protocol version" } },
      { type: "task.proposed", payload: { taskId: "gs-77", title: "Add anti-cheat checks for impossible movement speeds" } },
      { type: "task.completed", payload: { taskId: "gs-70", summary: "Leaderboards moved to Redis sorted sets" } },
      { type: "user.preference_changed", payload: { user: "kofi", key: "patch_day", value: "Tuesday mornings" } },
      { type: "verification.recorded", payload: { command: "loadtest --players 2000", outcome: "passed", summary: "2,000 concurrent players at 60 Hz" } },
      { type: "document.indexed", payload: { path: "docs/game/regions.md", start_line: 1, end_line: 7, content: "Regions: servers run in Frankfurt, Virginia and Singapore; players are pinned to the nearest region by ping." } },
      { type: "handoff.created", payload: { title: "Season 4 launch", summary: "The new map and battle pass ship on May 2", next_steps: ["Scale fleets to 3x before launch"], risks: ["A login queue if the auth service saturates"] } },
    ],
    related: [
      { question: "How do the game servers scale?", fact: 0 },
      { question: "How does matchmaking work?", fact: 1 },
      { question: "Why are players rubber-banding?", fact: 2 },
      { question: "Can I change the network protocol?", fact: 3 },
      { question: "What anti-cheat checks are planned?", fact: 4 },
      { question: "Where are leaderboards stored?", fact: 5 },
      { question: "Which day does kofi want for patches?", fact: 6 },
      { question: "Which regions do servers run in?", fact: 8 },
    ],
    unrelated: [
      "How do I cook risotto?",
      "What's the pollen count in Atlanta?",
      "How do I configure Nginx as a reverse proxy for WordPress?",
      "What is Beatriz's email address?",
      "When is the next solar eclipse?",
      "What's the best budget mechanical keyboard?",
      "What did the players union negotiate for the football season?",
    ],
  },
];

export const qualitySplits: Record<QualitySplit, QualitySetSession[]> = { train: trainSessions, held_out: heldOutSessions };
