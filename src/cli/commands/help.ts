/**
 * `zaxy help [COMMAND ...]` prints what `zaxy COMMAND ... --help` prints; `zaxy help --man`
 * prints the man page. Both are rendered from the command tree (src/cli/help.ts,
 * src/cli/manPage.ts), imported when the command runs: root.ts registers this command, so a
 * static import would be circular. `zaxy help TOPIC` prints a guide of docs/ (src/cli/docTopics.ts)
 * when TOPIC is not a command; `zaxy help topics` lists them.
 */
import { inputError } from "../../errors.ts";
import { buildStamp } from "../../generated/buildStamp.ts";
import { zaxyVersion } from "../../version.ts";
import { booleanOption, type Command, type CommandContext, type CommandGroup, defineCommand, stringOption } from "../command.ts";
import { closestName } from "../didYouMean.ts";
import { commandNamedTopics, docTopic, docTopicCommand, docTopics, docTopicTitle } from "../docTopics.ts";
import { renderHelp } from "../help.ts";
import { renderManPage } from "../manPage.ts";
import { emit } from "../output.ts";

/** Walks `words` down from `root`; an unknown word is a usage error naming the valid ones. */
function findNode(root: CommandGroup, words: string[], commandPath: string): { node: Command | CommandGroup; path: string[] } {
  let node: Command | CommandGroup = root;
  const path = [root.name];
  for (const word of words) {
    if (node.kind === "command") {
      throw inputError("usage", `${commandPath}: "${path.join(" ")}" has no subcommands, got "${word}"`, {
        hint: `run '${commandPath} ${path.slice(1).join(" ")}' for its options`,
      });
    }
    const child: Command | CommandGroup | undefined = node.children.find((c) => c.name === word);
    if (child === undefined) {
      const visible = node.children.filter((c) => !c.hidden).map((c) => c.name);
      const closest = closestName(word, visible);
      throw inputError(
        "usage",
        closest !== undefined
          ? `${commandPath}: unknown command "${word}" under ${path.join(" ")}; did you mean "${closest}"?`
          : `${commandPath}: unknown command "${word}" under ${path.join(" ")} (valid: ${visible.join(", ")})`,
      );
    }
    node = child;
    path.push(word);
  }
  return { node, path };
}

/** The word `zaxy help` takes for the list of guides. */
const topicsWord = "topics";

function printTopicList(ctx: CommandContext): number {
  const topics = Object.entries(docTopics()).map(([name, text]) => ({ name, title: docTopicTitle(text), command: docTopicCommand(name) }));
  const width = Math.max(0, ...topics.map((topic) => topic.name.length));
  emit(ctx, "zaxy.help.topics.v1", { topics }, () =>
    topics.length === 0
      ? "No guides are available in this build."
      : topics.map((topic) => `${topic.name.padEnd(width)}  ${topic.title}${commandNamedTopics.includes(topic.name) ? ` (${topic.command})` : ""}`).join("\n") +
        "\n\nPrint one with 'zaxy help TOPIC' (a topic named like a command: 'zaxy help --topic TOPIC').",
  );
  return 0;
}

/** A guide for a reader at a terminal: the maintainers' HTML comments (`<!-- ... -->`) left out. */
function guideForReader(markdown: string): string {
  return markdown.replace(/<!--[\s\S]*?-->\n?/g, "");
}

function printTopic(ctx: CommandContext, name: string, text: string): number {
  emit(ctx, "zaxy.help.v1", { topic: name, format: "markdown", text }, () => guideForReader(text));
  return 0;
}

function unknownTopic(ctx: CommandContext, name: string, field: string): never {
  const closest = closestName(name, Object.keys(docTopics()));
  throw inputError(
    "usage",
    closest !== undefined
      ? `${ctx.commandPath}: unknown topic "${name}"; did you mean "${closest}"?`
      : `${ctx.commandPath}: unknown topic "${name}" (list them with 'zaxy help topics')`,
    { field },
  );
}

/** `zaxy help WORD` where WORD is no command: a guide, or a usage error naming the closest command or guide. */
function unknownCommandOrTopic(ctx: CommandContext, rootGroup: CommandGroup, word: string): never {
  const commands = rootGroup.children.filter((c) => !c.hidden).map((c) => c.name);
  // A guide named like a command is one candidate, not a tie.
  const closest = closestName(word, [...new Set([...commands, ...Object.keys(docTopics())])]);
  throw inputError(
    "usage",
    closest !== undefined
      ? `${ctx.commandPath}: unknown command or topic "${word}"; did you mean "${closest}"?`
      : `${ctx.commandPath}: unknown command or topic "${word}" (commands: ${commands.join(", ")}; topics: 'zaxy help topics')`,
  );
}

export const helpCommand = defineCommand({
  name: "help",
  store: "self",
  usesRoot: false,
  summary: "Show help for a command, a guide (topic), or the man page (--man)",
  description:
    "Prints the help of COMMAND (the same text as 'zaxy COMMAND --help'), or of zaxy itself\n" +
    "without one. A word that is no command names a guide: 'zaxy help events' prints the\n" +
    "event types guide (docs/events.md), from inside the binary. 'zaxy help topics' (or\n" +
    "--topics) lists the guides; --topic NAME prints one named like a command (hooks, fleet,\n" +
    "graph, store). With --man, prints the man page (roff, section 1) for every command instead.",
  options: {
    man: { type: "boolean", description: "Print the man page (roff) instead" },
    topic: { type: "string", description: "Print this guide of docs/ (e.g. hooks), even when a command has its name" },
    topics: { type: "boolean", description: "List the guides" },
  },
  positionals: [{ name: "COMMAND", description: "Command words, e.g. memory checkout, or a topic, e.g. events", variadic: true }],
  examples: ["zaxy help memory checkout", "zaxy help events", "zaxy help --topic hooks", "zaxy help topics", "zaxy help --man > zaxy.1 && man -l zaxy.1"],
  async run(ctx) {
    const { rootGroup } = await import("../root.ts");
    const topicName = stringOption(ctx, "topic");
    const listTopics = booleanOption(ctx, "topics");
    if (topicName !== undefined || listTopics) {
      if (ctx.positionals.length > 0 || booleanOption(ctx, "man") || (topicName !== undefined && listTopics)) {
        throw inputError("usage", `${ctx.commandPath}: ${listTopics ? "--topics" : "--topic"} takes no COMMAND and no other of --man, --topic, --topics`, { field: listTopics ? "--topics" : "--topic" });
      }
      if (listTopics) return printTopicList(ctx);
      const text = docTopic(topicName!);
      return text === undefined ? unknownTopic(ctx, topicName!, "--topic") : printTopic(ctx, topicName!, text);
    }
    if (booleanOption(ctx, "man")) {
      if (ctx.positionals.length > 0) {
        throw inputError("usage", `${ctx.commandPath}: --man prints the page for every command; give no COMMAND with it`, { field: "--man" });
      }
      // Dated by the build, so one binary always prints the same page.
      const page = renderManPage(rootGroup, { version: zaxyVersion, date: buildStamp.built_at.slice(0, 10) });
      emit(ctx, "zaxy.help.v1", { command: rootGroup.name, format: "man", text: page }, () => page);
      return 0;
    }
    const [first, ...rest] = ctx.positionals;
    if (first !== undefined && !rootGroup.children.some((c) => c.name === first)) {
      const text = first === topicsWord ? undefined : docTopic(first);
      if (first !== topicsWord && text === undefined) unknownCommandOrTopic(ctx, rootGroup, first);
      if (rest.length > 0) {
        throw inputError("usage", `${ctx.commandPath}: "${first}" is a topic and takes no further words, got "${rest[0]}"`);
      }
      return first === topicsWord ? printTopicList(ctx) : printTopic(ctx, first, text!);
    }
    const { node, path } = findNode(rootGroup, ctx.positionals, ctx.commandPath);
    const text = renderHelp(node, path);
    emit(ctx, "zaxy.help.v1", { command: path.join(" "), format: "text", text }, () => text);
    return 0;
  },
});
