/**
 * The git pre-commit hook `zaxy hooks install` writes (docs/hooks.md). A POSIX `sh` script, so
 * it runs wherever git does. For every staged `*.jsonl` under a `.eventloom/` directory (at any
 * depth; additions, copies, modifications and renames, not deletions) it audits the STAGED
 * content — the index version from `git show :<path>`, copied to a temporary file under the same
 * file name — with `zaxy compact <file> --audit`, prints the report, and refuses the commit
 * (exit 1) when any audit is unsafe or cannot run. The working tree is never read.
 *
 * What must never change: the marker line (it is how `zaxy hooks install` recognises its own
 * hook) and that the hook fails closed (a log it could not audit blocks the commit).
 */

/** First comment line of every hook this module writes. */
export const hookMarker = "# zaxy pre-commit hook: audits staged Eventloom logs (zaxy hooks install; docs/hooks.md)";

/** `value` as one single-quoted POSIX shell word. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * The hook's text for a given way of running zaxy (an absolute path, or `zaxy` from PATH).
 *
 * @example
 * preCommitScript("/usr/local/bin/zaxy").startsWith("#!/bin/sh\n"); // true
 */
export function preCommitScript(zaxyCommand: string): string {
  return `#!/bin/sh
${hookMarker}
# For each staged *.jsonl under a .eventloom/ directory, audits the staged (index) content with
# \`zaxy compact FILE --audit\` and refuses the commit when a log is unsafe to compact or could not
# be audited. Bypass once with \`git commit --no-verify\`. Reinstall: zaxy hooks install --force
ZAXY=${shellQuote(zaxyCommand)}

tmp_root=$(mktemp -d "\${TMPDIR:-/tmp}/zaxy-pre-commit.XXXXXX") || exit 1
trap 'rm -rf "$tmp_root"' EXIT
trap 'exit 1' INT TERM HUP

git -c core.quotePath=false diff --cached --name-only --diff-filter=ACMR > "$tmp_root/staged" || exit 1

checked=0
failed=0
while IFS= read -r path; do
  case "$path" in
    .eventloom/*.jsonl | */.eventloom/*.jsonl) ;;
    *) continue ;;
  esac
  if [ "$checked" -eq 0 ] && ! command -v "$ZAXY" >/dev/null 2>&1; then
    echo "zaxy pre-commit: cannot run $ZAXY to audit $path; install zaxy or run zaxy hooks install --force" >&2
    exit 1
  fi
  checked=$((checked + 1))
  dir="$tmp_root/$checked"
  mkdir "$dir" || exit 1
  staged="$dir/\${path##*/}"
  if ! git show ":$path" > "$staged"; then
    echo "zaxy pre-commit: cannot read the staged content of $path" >&2
    failed=$((failed + 1))
    continue
  fi
  echo "zaxy pre-commit: auditing staged $path"
  "$ZAXY" compact "$staged" --audit
  status=$?
  if [ "$status" -eq 1 ]; then
    echo "zaxy pre-commit: $path is UNSAFE to compact (see the report above)" >&2
    failed=$((failed + 1))
  elif [ "$status" -ne 0 ]; then
    echo "zaxy pre-commit: the audit of $path could not run (exit $status)" >&2
    failed=$((failed + 1))
  fi
done < "$tmp_root/staged"

if [ "$failed" -gt 0 ]; then
  echo "zaxy pre-commit: commit refused: $failed of $checked staged Eventloom log(s) failed the compaction audit." >&2
  echo "zaxy pre-commit: fix them (see the remediation plan) or bypass once with git commit --no-verify." >&2
  exit 1
fi
exit 0
`;
}
