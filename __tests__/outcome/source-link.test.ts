import { describe, expect, it } from 'vitest'
import { commitUnderTestSha, type StatusContext } from '../../src/outcome/commit-status.js'
import { sourceCommit, sourceLineUrl } from '../../src/outcome/source-link.js'

const COMMIT = { serverUrl: 'https://github.com', repository: 'owner/repo', sha: 'a'.repeat(40) }

describe('sourceLineUrl', () => {
  it('links the line of the file at the commit', () => {
    expect(
      sourceLineUrl(COMMIT, {
        file: 'src/test/java/com/example/calc/CalculatorTest.java',
        line: 42
      })
    ).toBe(
      `https://github.com/owner/repo/blob/${'a'.repeat(40)}/src/test/java/com/example/calc/CalculatorTest.java#L42`
    )
  })

  it('URL-encodes each path segment: a #, ?, %, space or quote stays part of the path', () => {
    expect(
      sourceLineUrl(
        { ...COMMIT, serverUrl: 'https://ghe.example.com/' },
        { file: 'tests/a b#1/x?y%"<z>.py', line: 7 }
      )
    ).toBe(
      `https://ghe.example.com/owner/repo/blob/${'a'.repeat(40)}/tests/a%20b%231/x%3Fy%25%22%3Cz%3E.py#L7`
    )
  })
})

describe('sourceCommit', () => {
  const env = { GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'owner/repo' }
  const sha = (value: string | undefined) => () => Promise.resolve(value)

  it('is the server, the repository and the commit under test', async () => {
    await expect(sourceCommit(env, sha('c'.repeat(40)))).resolves.toEqual({
      serverUrl: 'https://github.com',
      repository: 'owner/repo',
      sha: 'c'.repeat(40)
    })
  })

  it.each([
    ['no server (a terminal)', { GITHUB_REPOSITORY: 'owner/repo' }, 'c'],
    ['no repository', { GITHUB_SERVER_URL: 'https://github.com' }, 'c'],
    ['a repository that is not owner/name', { ...env, GITHUB_REPOSITORY: 'a/b/c' }, 'c'],
    ['no commit', env, undefined]
  ])('is undefined with %s: the summary shows plain path:line', async (_, vars, commit) => {
    await expect(sourceCommit(vars, sha(commit))).resolves.toBeUndefined()
  })

  it("uses the commit statuses' rule by default: a pull request's head, not the merge commit", async () => {
    const ctx: StatusContext = {
      repo: { owner: 'owner', repo: 'repo' },
      sha: 'b'.repeat(40),
      eventName: 'pull_request',
      payload: { pull_request: { number: 1, head: { sha: 'a'.repeat(40) } } }
    }
    expect(commitUnderTestSha(ctx)).toBe('a'.repeat(40))
    expect(commitUnderTestSha({ ...ctx, eventName: 'push', payload: {} })).toBe('b'.repeat(40))
    expect(commitUnderTestSha({ ...ctx, sha: '', payload: {} })).toBeUndefined()
  })
})
