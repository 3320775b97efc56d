/**
 * The GitHub client as the step makes it (github-client.ts): Octokit's own
 * warnings go to the debug log, rate limits are waited out and said, and the
 * session says each kind of GitHub
 * trouble once for the step.
 */
import nock from 'nock'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { GithubSession } from '../../src/outcome/github-client.js'
import { recordingLogger } from '../fixtures/recording-logger.js'
import { useGithubFetch } from '../fixtures/github-fetch.js'

const API = 'https://api.github.com'
const TOKEN = 'ghs_clientToken0123456789'

beforeAll(() => nock.disableNetConnect())
beforeEach(() => useGithubFetch())
afterAll(() => nock.enableNetConnect())
afterEach(() => {
  nock.cleanAll()
  vi.restoreAllMocks()
})

describe('GithubSession.client', () => {
  it("Octokit's own warning (a deprecated method) goes to the debug log, not the console", async () => {
    const { logger, at } = recordingLogger()
    const printed = vi.spyOn(console, 'warn')
    nock(API).get('/orgs/o/security-managers').reply(200, [])
    const { client } = new GithubSession({ token: TOKEN, logger })
    await client.rest.orgs.listSecurityManagerTeams({ org: 'o' })
    expect(at('debug')).toEqual([
      'octokit.rest.orgs.listSecurityManagerTeams() is deprecated, see https://docs.github.com/rest/orgs/security-managers#list-security-manager-teams'
    ])
    expect(printed).not.toHaveBeenCalled()
  })

  it('a rate limit is waited out and said', async () => {
    const { logger, at } = recordingLogger()
    const scope = nock(API)
      .get('/user')
      .reply(429, { message: 'You have exceeded a secondary rate limit.' }, { 'retry-after': '1' })
      .get('/user')
      .reply(200, { login: 'alice' })
    const { client } = new GithubSession({ token: TOKEN, logger })
    expect((await client.rest.users.getAuthenticated()).data.login).toBe('alice')
    expect(scope.isDone()).toBe(true)
    expect(at('info')).toEqual([
      expect.stringMatching(/^GitHub's rate limit holds requests back \(HTTP 429, retry-after\)/)
    ])
  })
})

describe('GithubSession.handled', () => {
  it('GitHub not answering: one warning for the step, then the debug log; reports stop', () => {
    const { logger, at } = recordingLogger()
    const session = new GithubSession({ token: TOKEN, logger })
    const failure = { kind: 'timeout', message: 'No answer from GitHub' } as const
    expect(session.handled(failure, 'Commit status a')).toBe(true)
    expect(session.handled(failure, 'Commit status b')).toBe(true)
    expect(session.open).toBe(false)
    expect(at('warning')).toEqual([
      'No answer from GitHub: no further commit status or pull request comment is sent in this step (one already set stays as it is). The build itself is not affected.'
    ])
    expect(at('debug')).toEqual(['Commit status b: No answer from GitHub.'])
  })

  it('a rate limit: one warning naming the report, then the debug log; reports go on', () => {
    const { logger, at } = recordingLogger()
    const session = new GithubSession({ token: TOKEN, logger })
    const failure = { kind: 'rate-limited', message: 'Held back' } as const
    expect(session.handled(failure, 'The comment')).toBe(true)
    expect(session.handled(failure, 'Commit status b')).toBe(true)
    expect(session.open).toBe(true)
    expect(at('warning')).toEqual([
      "Held back: The comment is not sent. That is GitHub's rate limit for the github-token, not a missing permission; reports resume once it has passed. The build itself is not affected."
    ])
    expect(at('debug')).toEqual(['Commit status b: Held back.'])
  })

  it("the step's stop: said each time, never warned about", () => {
    const { logger, at } = recordingLogger()
    const session = new GithubSession({ token: TOKEN, logger })
    const failure = { kind: 'stopped', message: 'Stopped waiting' } as const
    expect(session.handled(failure, 'a')).toBe(true)
    expect(session.handled(failure, 'b')).toBe(true)
    expect(at('info')).toEqual(['Stopped waiting.', 'Stopped waiting.'])
    expect(at('warning')).toEqual([])
    expect(session.open).toBe(true)
  })

  it.each([
    { kind: 'answered', status: 403, message: 'Forbidden' },
    { kind: 'network', message: 'reset' },
    { kind: 'too-large', message: 'too large' }
  ] as const)('$kind is the report’s to say: not handled, nothing said', failure => {
    const { logger, at } = recordingLogger()
    const session = new GithubSession({ token: TOKEN, logger })
    expect(session.handled(failure, 'a')).toBe(false)
    expect([...at('debug'), ...at('info'), ...at('warning')]).toEqual([])
  })
})
