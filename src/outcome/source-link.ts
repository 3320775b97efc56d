/**
 * A failed test's file and line as a link to that line on GitHub, at the
 * commit under test, for the job summary: the one place the link is built.
 * Outside a workflow (the jenkins-build command in a terminal, without the
 * runner's GITHUB_* variables) there is no commit to link to, and the
 * summary shows the plain `path:line`.
 */
import type { TestLocation } from './test-locations.js'

/** The repository and commit the links go to. */
export interface SourceCommit {
  /** GITHUB_SERVER_URL: https://github.com, or a GitHub Enterprise Server's. */
  serverUrl: string
  /** GITHUB_REPOSITORY: `owner/name`. */
  repository: string
  /** The commit under test. */
  sha: string
}

/**
 * `${server}/${owner}/${name}/blob/${sha}/${path}#L${line}`, each path
 * segment URL-encoded (a `#`, `?` or space in a file name stays part of
 * the path). The caller's link() keeps only http(s).
 */
export function sourceLineUrl(commit: SourceCommit, where: TestLocation): string {
  const encoded = (path: string): string => path.split('/').map(encodeURIComponent).join('/')
  const server = commit.serverUrl.replace(/\/+$/, '')
  return `${server}/${encoded(commit.repository)}/blob/${encodeURIComponent(commit.sha)}/${encoded(where.file)}#L${where.line}`
}

/**
 * The commit the links go to, from the runner's variables and the event;
 * undefined without a server, a repository or a commit. `sha` gives the
 * commit under test: today commit-status.ts's rule (a pull request's head,
 * else GITHUB_SHA), loaded only when a failed test was located (it brings
 * Octokit); one argument to change when the rule becomes the step's
 * resolved commit under test.
 */
export async function sourceCommit(
  env: Readonly<Record<string, string | undefined>> = process.env,
  sha: () => Promise<string | undefined> = async () => {
    const { commitUnderTestSha } = await import(/* webpackMode: "eager" */ './commit-status.js')
    return commitUnderTestSha()
  }
): Promise<SourceCommit | undefined> {
  const serverUrl = env.GITHUB_SERVER_URL
  const repository = env.GITHUB_REPOSITORY
  if (!serverUrl || !repository || !/^[^/]+\/[^/]+$/.test(repository)) return undefined
  const commit = await sha()
  return commit ? { serverUrl, repository, sha: commit } : undefined
}
