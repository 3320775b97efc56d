/**
 * Who the github-token acts as (github-identity.ts): what decides which
 * comments are the action's to edit. GitHub's answers as docs.github.com
 * gives them: GET /user names the login of a personal token and refuses an
 * installation token (403 "Resource not accessible by integration").
 */
import nock from 'nock'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { GithubSession } from '../../src/outcome/github-client.js'
import { GITHUB_ACTIONS_BOT, TokenIdentity } from '../../src/outcome/github-identity.js'
import type { Logger } from '../../src/util/logger.js'
import { silentLogger } from '../fixtures/recording-logger.js'
import { recordingLogger } from '../fixtures/recording-logger.js'
import { useGithubFetch } from '../fixtures/github-fetch.js'

const API = 'https://api.github.com'

beforeAll(() => nock.disableNetConnect())
afterAll(() => nock.enableNetConnect())
afterEach(() => nock.cleanAll())

/** URLs the client asked for, as they reach fetch (before nock sees them). */
const fetched: string[] = []
afterEach(() => (fetched.length = 0))

function identity(configured?: string, logger: Logger = silentLogger) {
  useGithubFetch((input: string | URL | Request, init?: RequestInit) => {
    fetched.push(String(input instanceof Request ? input.url : input))
    return fetch(input, init)
  })
  const session = new GithubSession({ token: 'ghs_identity0123456789', logger })
  return new TokenIdentity({ session, configured })
}

describe('TokenIdentity', () => {
  it('a personal token: the login GET /user answers, asked once', async () => {
    const scope = nock(API).get('/user').once().reply(200, { login: 'Alice', type: 'User' })
    const me = identity()
    expect(await Promise.all([me.login(), me.login()])).toEqual(['Alice', 'Alice'])
    expect(await me.owns('alice')).toBe(true)
    expect(await me.owns('mallory')).toBe(false)
    expect(await me.owns(undefined)).toBe(false)
    expect(scope.isDone()).toBe(true)
  })

  it('an installation token, refused GET /user: github-actions[bot], as GITHUB_TOKEN writes', async () => {
    nock(API).get('/user').reply(403, { message: 'Resource not accessible by integration' })
    const me = identity()
    expect(await me.login()).toBe(GITHUB_ACTIONS_BOT)
    expect(await me.owns('github-actions[bot]')).toBe(true)
  })

  it.each([
    ['a 401', 401, { message: 'Bad credentials' }],
    ['a 502', 502, { message: 'Bad gateway' }],
    ['an answer without a login', 200, { id: 3 }]
  ])('%s: not known, and nothing is owned', async (_, status, body) => {
    nock(API).get('/user').reply(status, body)
    const me = identity()
    expect(await me.login()).toBeUndefined()
    expect(await me.owns('github-actions[bot]')).toBe(false)
  })

  it("the author GitHub gives the step's own comment is who the token is", async () => {
    nock(API).get('/user').reply(403, { message: 'Resource not accessible by integration' })
    const me = identity()
    expect(await me.login()).toBe(GITHUB_ACTIONS_BOT)
    me.learn('other-app[bot]')
    expect(await me.login()).toBe('other-app[bot]')
    expect(await me.owns(GITHUB_ACTIONS_BOT)).toBe(false)
  })

  it('a login the workflow names: used as it is, nothing asked, not overridden', async () => {
    const asked = nock(API).get('/user').reply(200, { login: 'someone-else' })
    const me = identity('deploy-app[bot]')
    me.learn('someone-else')
    expect(await me.login()).toBe('deploy-app[bot]')
    expect(asked.isDone()).toBe(false)
  })

  it.each([
    ['an empty login', ''],
    ['a login that is no string', 7]
  ])('GET /user with %s: not known', async (_, login) => {
    nock(API).get('/user').reply(200, { login })
    const me = identity()
    expect(await me.login()).toBeUndefined()
    expect(await me.owns('7')).toBe(false)
  })

  it('learned before anything was asked: GET /user is never sent, and it is said once', async () => {
    const asked = nock(API).get('/user').reply(200, { login: 'someone-else' })
    const { logger, at } = recordingLogger()
    const me = identity(undefined, logger)
    me.learn('writer-app[bot]')
    me.learn('writer-app[bot]')
    expect(await me.login()).toBe('writer-app[bot]')
    // A GET /user started anyway would reach fetch once Octokit's hooks have run.
    await new Promise(resolve => setImmediate(resolve))
    expect(fetched).toEqual([])
    expect(asked.isDone()).toBe(false)
    expect(at('debug')).toEqual(['The github-token writes as writer-app[bot].'])
  })

  it('learned after GET /user answered: the answer to its own comment wins, without a second line', async () => {
    nock(API).get('/user').reply(200, { login: 'Alice' })
    const { logger, at } = recordingLogger()
    const me = identity(undefined, logger)
    expect(await me.login()).toBe('Alice')
    me.learn('alice-bot')
    expect(await me.login()).toBe('alice-bot')
    expect(at('debug')).toEqual(['The github-token acts as Alice (GET /user).'])
  })

  it('learned while GET /user is still unanswered: no line, and the learned author wins', async () => {
    let answer!: () => void
    const held = new Promise<void>(resolve => (answer = resolve))
    nock(API)
      .get('/user')
      .reply(async () => {
        await held
        return [200, { login: 'Alice' }]
      })
    const { logger, at } = recordingLogger()
    const me = identity(undefined, logger)
    const first = me.login()
    me.learn('alice-bot')
    answer()
    expect(await first).toBe('Alice')
    expect(await me.login()).toBe('alice-bot')
    expect(at('debug')).toEqual(['The github-token acts as Alice (GET /user).'])
  })

  it('an author GitHub does not name changes nothing', async () => {
    const { logger, at } = recordingLogger()
    const me = identity(undefined, logger)
    me.learn('writer-app[bot]')
    me.learn(undefined)
    me.learn('')
    expect(await me.login()).toBe('writer-app[bot]')
    expect(at('debug')).toHaveLength(1)
  })

  it('with a configured login, what GitHub answers is not learned, nor said', async () => {
    const { logger, at } = recordingLogger()
    const me = identity('deploy-app[bot]', logger)
    me.learn('someone-else')
    expect(await me.owns('someone-else')).toBe(false)
    expect(at('debug')).toEqual([])
  })

  it('a failure that is not GitHub stalling: said in the debug log, nothing owned', async () => {
    nock(API).get('/user').reply(401, { message: 'Bad credentials' })
    const { logger, at } = recordingLogger()
    const me = identity(undefined, logger)
    expect(await me.login()).toBeUndefined()
    expect(at('debug')).toContainEqual(
      expect.stringMatching(
        /^Could not tell who the github-token is \(.*Bad credentials.*\): nothing on GitHub counts as this action's to edit\.$/
      )
    )
    expect(at('warning')).toEqual([])
  })
})
