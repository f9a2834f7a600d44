/**
 * `zaxy completion bash|zsh|fish`: prints a completion script for the shell, generated from the
 * command tree `--help` renders (src/cli/completion.ts). The tree is imported when the command
 * runs: root.ts registers this command, so a static import would be circular.
 */
import { inputError } from "../../errors.ts";
import { defineCommand } from "../command.ts";
import { completionScript, completionShells, isCompletionShell } from "../completion.ts";
import { emit } from "../output.ts";

export const completionCommand = defineCommand({
  name: "completion",
  store: "self",
  usesRoot: false,
  summary: "Print a shell completion script (bash, zsh or fish)",
  description:
    "Prints a completion script for SHELL on stdout, generated from the same command tree as\n" +
    "--help: subcommands at every level, each command's options, option values (file names,\n" +
    "directories, choices). Hidden commands are not offered.",
  options: {},
  positionals: [{ name: "SHELL", description: `The shell: ${completionShells.join(", ")}`, required: true }],
  examples: [
    "source <(zaxy completion bash)",
    "zaxy completion bash > /etc/bash_completion.d/zaxy",
    'zaxy completion zsh > "${fpath[1]}/_zaxy"',
    "zaxy completion fish > ~/.config/fish/completions/zaxy.fish",
  ],
  async run(ctx) {
    const shell = ctx.positionals[0];
    if (!isCompletionShell(shell)) {
      throw inputError("usage", `${ctx.commandPath}: unknown shell ${JSON.stringify(shell)} (valid: ${completionShells.join(", ")})`, {
        field: "SHELL",
        expected: completionShells.join(", "),
        actual: shell,
      });
    }
    const { rootGroup } = await import("../root.ts");
    const script = completionScript(shell, rootGroup);
    emit(ctx, "zaxy.completion.v1", { shell, script }, () => script);
    return 0;
  },
});
