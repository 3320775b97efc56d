/**
 * Who the github-token acts as (github-identity.ts): what decides which
 * comments are the action's to edit. GitHub's answers as docs.github.com
 * gives them: GET /user names the login of a personal token and refuses an
 * installation token (403 "Resource not accessible by integration").
 */
import nock from 'nock'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { githubClient, GithubSession } from '../../src/outcome/github-client.js'
import { GITHUB_ACTIONS_BOT, TokenIdentity } from '../../src/outcome/github-identity.js'
import { silentLogger } from '../../src/util/logger.js'

const API = 'https://api.github.com'

beforeAll(() => nock.disableNetConnect())
afterAll(() => nock.enableNetConnect())
afterEach(() => nock.cleanAll())

function identity(configured?: string) {
  const session = new GithubSession({ logger: silentLogger })
  const client = githubClient({
    token: 'ghs_identity0123456789',
    logger: silentLogger,
    fetch,
    session
  })
  return new TokenIdentity({ client, session, logger: silentLogger, configured })
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
})
