/**
 * A GitHub login: letters, digits, `-` and `_` (enterprise-managed users),
 * and `[bot]` for an app. The one test for the `status-creator` input and
 * the logins in GitHub's answers.
 */
export function githubLoginOf(value: unknown): string | undefined {
  return typeof value === 'string' && /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}(?:\[bot\])?$/.test(value)
    ? value
    : undefined
}
