/**
 * `zaxy help [COMMAND ...]` prints what `zaxy COMMAND ... --help` prints; `zaxy help --man`
 * prints the man page. Both are rendered from the command tree (src/cli/help.ts,
 * src/cli/manPage.ts), imported when the command runs: root.ts registers this command, so a
 * static import would be circular.
 */
import { inputError } from "../../errors.ts";
import { buildStamp } from "../../generated/buildStamp.ts";
import { zaxyVersion } from "../../version.ts";
import { booleanOption, type Command, type CommandGroup, defineCommand } from "../command.ts";
import { closestName } from "../didYouMean.ts";
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

export const helpCommand = defineCommand({
  name: "help",
  store: "self",
  usesRoot: false,
  summary: "Show help for a command, or the man page (--man)",
  description:
    "Prints the help of COMMAND (the same text as 'zaxy COMMAND --help'), or of zaxy itself\n" +
    "without one. With --man, prints the man page (roff, section 1) for every command instead.",
  options: {
    man: { type: "boolean", description: "Print the man page (roff) instead" },
  },
  positionals: [{ name: "COMMAND", description: "Command words, e.g. memory checkout", variadic: true }],
  examples: ["zaxy help memory checkout", "zaxy help --man > zaxy.1 && man -l zaxy.1"],
  async run(ctx) {
    const { rootGroup } = await import("../root.ts");
    if (booleanOption(ctx, "man")) {
      if (ctx.positionals.length > 0) {
        throw inputError("usage", `${ctx.commandPath}: --man prints the page for every command; give no COMMAND with it`, { field: "--man" });
      }
      // Dated by the build, so one binary always prints the same page.
      const page = renderManPage(rootGroup, { version: zaxyVersion, date: buildStamp.built_at.slice(0, 10) });
      emit(ctx, "zaxy.help.v1", { command: rootGroup.name, format: "man", text: page }, () => page);
      return 0;
    }
    const { node, path } = findNode(rootGroup, ctx.positionals, ctx.commandPath);
    const text = renderHelp(node, path);
    emit(ctx, "zaxy.help.v1", { command: path.join(" "), format: "text", text }, () => text);
    return 0;
  },
});
