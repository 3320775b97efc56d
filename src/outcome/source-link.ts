/**
 * A failed test's file and line as a link to that line on GitHub, at the
 * commit under test, for the job summary: the one place the link is built.
 * The commit is the step's (github-reports.ts sourceCommit). Outside a
 * workflow (the jenkins-build command in a terminal, without the runner's
 * GITHUB_* variables) there is no commit to link to, and the summary shows
 * the plain `path:line`.
 */
import type { TestLocation } from './test-locations.js'

/** The repository and commit the links go to. */
export interface SourceCommit {
  /** GITHUB_SERVER_URL: https://github.com, or a GitHub Enterprise Server's. */
  serverUrl: string
  /** GITHUB_REPOSITORY: `owner/name`. */
  repository: string
  /** The commit under test, as the step resolved it. */
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
