/**
 * A full commit id as git and GitHub write it: 40 (SHA-1) or 64 (SHA-256)
 * hexadecimal digits. The one test for the `commit` input, the event the
 * runner wrote and GitHub's answers: a branch name, `../..` or a line
 * break must never be taken for a commit.
 */
export function commitShaOf(value: unknown): string | undefined {
  return typeof value === 'string' && /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/i.test(value)
    ? value.toLowerCase()
    : undefined
}
