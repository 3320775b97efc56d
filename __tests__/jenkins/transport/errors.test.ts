import nock from 'nock'
import { describe, expect, it } from 'vitest'
import { JenkinsError } from '../../../src/jenkins/transport/errors.js'
import {
  AUTH,
  BASE,
  COOKIE,
  COOKIE2,
  CRUMB,
  CRUMB2,
  ORIGIN,
  TOKEN,
  USER,
  crumbIssuer,
  jenkinsError,
  makeClient,
  netError,
  useNock
} from '../helpers.js'

useNock()

const LOGIN_PAGE =
  "<html><head><meta http-equiv='refresh' content='1;url=/jenkins/login?from=%2Fjenkins%2Fjob%2Fa%2Fapi%2Fjson'/></head><body>Authentication required</body></html>"

describe('errors a user can act on', () => {
  it('401 names the user and the server, never the token', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/job/a/api/json')
      .query(true)
      .reply(401, 'Unauthorized', { 'WWW-Authenticate': 'Basic realm="Jenkins"' })
    nock(ORIGIN).get('/jenkins/crumbIssuer/api/json').reply(401)
    const error = await jenkinsError(client.getJob(['a']), 'bad-credentials')
    expect(error.message).toBe(
      "Jenkins at https://ci.example.com/jenkins rejected the credentials for user 'alice' (401): check the user and API token"
    )
    expect(error.status).toBe(401)
  })

  it('403 login page → auth-required', async () => {
    const { client } = makeClient({ user: undefined, token: undefined })
    nock(ORIGIN).get('/jenkins/queue/item/1/api/json').reply(403, LOGIN_PAGE, {
      'Content-Type': 'text/html;charset=UTF-8'
    })
    const error = await jenkinsError(client.getQueueItem(1), 'auth-required')
    expect(error.message).toMatch(/^Jenkins requires authentication: set user and token/)
  })

  it('403 login page although credentials were sent → auth-required, hinting at a proxy', async () => {
    const { client } = makeClient()
    nock(ORIGIN).get('/jenkins/queue/item/1/api/json').reply(403, LOGIN_PAGE, {
      'Content-Type': 'text/html'
    })
    const error = await jenkinsError(client.getQueueItem(1), 'auth-required')
    expect(error.message).toContain("user 'alice'")
    expect(error.message).toContain('Authorization header')
  })

  it('403 without permission names the permission and the user Jenkins saw', async () => {
    const { client } = makeClient()
    crumbIssuer()
    nock(ORIGIN).post('/jenkins/job/a/disable').reply(403, '<html>Access denied</html>', {
      'Content-Type': 'text/html',
      'X-You-Are-Authenticated-As': 'alice',
      'X-Required-Permission': 'hudson.model.Item.Configure'
    })
    const error = await jenkinsError(client.disableJob(['a']), 'forbidden')
    expect(error.message).toContain("user 'alice'")
    expect(error.message).toContain('lacks Job/Configure (hudson.model.Item.Configure)')
  })

  it('403 on stop without headers still says Job/Cancel is needed', async () => {
    const { client } = makeClient()
    crumbIssuer()
    nock(ORIGIN)
      .post('/jenkins/job/a/2/stop')
      .reply(403, 'denied', { 'Content-Type': 'text/plain' })
    const error = await jenkinsError(
      client.stopBuild({ job: ['a'], number: 2, url: `${BASE}/job/a/2/` }, 'stop'),
      'forbidden'
    )
    expect(error.message).toContain('Job/Cancel')
  })

  it('HTML with 200 where JSON was expected on every try (SSO proxy) → html, after 3 tries', async () => {
    const { client } = makeClient({ retry: { attempts: 5, baseDelayMs: 1, maxDelayMs: 2 } })
    nock(ORIGIN)
      .get('/jenkins/job/a/4/api/json')
      .times(3)
      .reply(200, '<!DOCTYPE html><html><body>Sign in with SSO</body></html>', {
        'Content-Type': 'text/html'
      })
    const error = await jenkinsError(client.getBuild(['a'], 4), 'html')
    expect(error.message).toContain('Jenkins answered with an HTML page where JSON was expected')
    expect(error.message).toContain('after 3 attempts')
  })

  it('one HTML page (an SSO blip) is retried, and the JSON that follows is read', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/job/a/4/api/json')
      .reply(200, '<html>login</html>', { 'Content-Type': 'application/json' })
      .get('/jenkins/job/a/4/api/json')
      .reply(200, { number: 4, building: true })
    expect((await client.getBuild(['a'], 4)).number).toBe(4)
    expect(client.http.requestCounts['build']).toBe(2)
  })

  it('an HTML body labelled as JSON on every try → html', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/job/a/4/api/json')
      .times(3)
      .reply(200, '<html>login</html>', { 'Content-Type': 'application/json' })
    await jenkinsError(client.getBuild(['a'], 4), 'html')
  })

  it('one malformed JSON answer is retried; malformed every time → protocol', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/job/a/4/api/json')
      .reply(200, '{"number":', { 'Content-Type': 'application/json' })
      .get('/jenkins/job/a/4/api/json')
      .reply(200, { number: 4 })
      .get('/jenkins/job/a/5/api/json')
      .times(3)
      .reply(200, '{"number":', { 'Content-Type': 'application/json' })
    expect((await client.getBuild(['a'], 4)).number).toBe(4)
    const error = await jenkinsError(client.getBuild(['a'], 5), 'protocol')
    expect(error.message).toMatch(/malformed JSON.*after 3 attempts/)
  })

  it('431 (a huge user or token) names the inputs, not just the status', async () => {
    const { client } = makeClient()
    nock(ORIGIN).get('/jenkins/job/a/4/api/json').reply(431)
    const error = await jenkinsError(client.getBuild(['a'], 4), 'bad-request')
    expect(error.message).toMatch(/too large \(431\).*'user' and 'token' inputs/)
    expect(client.http.requestCounts['build']).toBe(1)
  })

  it('405 → bad-request with the short message of a Jetty error page', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/job/a/4/api/json')
      .reply(
        405,
        '<html><head><title>Error 405 This URL requires POST</title></head><body></body></html>',
        { 'Content-Type': 'text/html' }
      )
    const error = await jenkinsError(client.getBuild(['a'], 4), 'bad-request')
    expect(error.message).toContain('This URL requires POST')
  })

  it('DNS failure → network, naming the host', async () => {
    const { client } = makeClient()
    nock(ORIGIN).get('/jenkins/queue/item/1/api/json').replyWithError(netError('ENOTFOUND'))
    const error = await jenkinsError(client.getQueueItem(1), 'network')
    expect(error.message).toMatch(/could not resolve ci\.example\.com/i)
  })

  it('connection refused → network, naming host and port, after the retries', async () => {
    const { client } = makeClient({ url: 'http://ci.example.com:8080' })
    nock('http://ci.example.com:8080')
      .get('/queue/item/1/api/json')
      .times(3)
      .replyWithError(netError('ECONNREFUSED'))
    const error = await jenkinsError(client.getQueueItem(1), 'network')
    expect(error.message).toMatch(
      /^Could not connect to Jenkins at http:\/\/ci\.example\.com:8080: ci\.example\.com:8080 refused the connection \(after 3 attempts in [\d.]+ m?s\)$/
    )
    expect(client.http.requestCounts['queue']).toBe(3)
  })

  it('TLS failure → network, pointing at NODE_EXTRA_CA_CERTS', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/queue/item/1/api/json')
      .replyWithError(
        netError('UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate')
      )
    const error = await jenkinsError(client.getQueueItem(1), 'network')
    expect(error.message).toContain('NODE_EXTRA_CA_CERTS')
    expect(client.http.requestCounts['queue']).toBe(1)
  })
})

describe('a refused connection: configuration error first, restart later', () => {
  const HOST = 'http://ci.example.com:8080'
  /** The step's own client: a few tries before Jenkins ever answered, the step's 12 after. */
  function stepClient() {
    return makeClient({
      url: HOST,
      deadline: Date.now() + 60_000,
      firstContactAttempts: 3,
      retry: { attempts: 5, baseDelayMs: 1, maxDelayMs: 2 }
    }).client
  }

  it('refused on the first request: 3 tries, and the message says to check url', async () => {
    const client = stepClient()
    nock(HOST).get('/queue/item/1/api/json').times(3).replyWithError(netError('ECONNREFUSED'))
    const error = await jenkinsError(client.getQueueItem(1), 'network')
    expect(error.message).toMatch(
      `Could not connect to Jenkins at ${HOST}: ci.example.com:8080 refused the connection. That was the first request, and nothing has answered at that address yet: check the 'url' input (its host and port) and that Jenkins is running and reachable from this runner (after 3 attempts in `
    )
    expect(client.http.requestCounts['queue']).toBe(3)
  })

  it('refused once Jenkins has answered (a restart): retried as long as reads are, and read', async () => {
    const client = stepClient()
    nock(HOST)
      .get('/queue/item/1/api/json')
      .reply(200, { id: 1 })
      .get('/queue/item/1/api/json')
      .times(8)
      .replyWithError(netError('ECONNREFUSED'))
      .get('/queue/item/1/api/json')
      .reply(200, { id: 1, executable: { number: 3 } })
    await client.getQueueItem(1)
    expect((await client.getQueueItem(1)).executable?.number).toBe(3)
    expect(client.http.requestCounts['queue']).toBe(10)
  })

  it('unreachable counts as never answered too; a reset does not (the server was reached)', async () => {
    const client = stepClient()
    nock(HOST).get('/queue/item/1/api/json').times(3).replyWithError(netError('EHOSTUNREACH'))
    const error = await jenkinsError(client.getQueueItem(1), 'network')
    expect(error.message).toMatch(/is unreachable \(EHOSTUNREACH\)\. That was the first request/)
    const other = stepClient()
    nock(HOST)
      .get('/queue/item/2/api/json')
      .times(4)
      .replyWithError(netError('ECONNRESET'))
      .get('/queue/item/2/api/json')
      .reply(200, { id: 2 })
    expect((await other.getQueueItem(2)).id).toBe(2)
  })

  it('a client without firstContactAttempts (abort, post step) keeps retrying the first request', async () => {
    const { client } = makeClient({ url: HOST, deadline: Date.now() + 60_000 })
    nock(HOST)
      .get('/queue/item/1/api/json')
      .times(6)
      .replyWithError(netError('ECONNREFUSED'))
      .get('/queue/item/1/api/json')
      .reply(200, { id: 1 })
    expect((await client.getQueueItem(1)).id).toBe(1)
  })
})

describe('redirects', () => {
  it('follows a same-origin redirect for a GET, with credentials', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/job/a/4/api/json')
      .reply(302, '', { Location: '/jenkins/job/A/4/api/json' })
      .get('/jenkins/job/A/4/api/json')
      .matchHeader('authorization', AUTH)
      .reply(200, { number: 4 })
    expect((await client.getBuild(['a'], 4)).number).toBe(4)
  })

  it('never follows a redirect to another origin (no credentials leave)', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/job/a/4/api/json')
      .reply(302, '', { Location: 'https://sso.example.org/login?next=x' })
    const other = nock('https://sso.example.org').get('/login').query(true).reply(200, 'stolen')
    const error = await jenkinsError(client.getBuild(['a'], 4), 'redirect')
    expect(error.message).toContain('https://sso.example.org')
    expect(other.isDone()).toBe(false)
    nock.cleanAll()
  })

  it('never follows an https → http downgrade', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/job/a/4/api/json')
      .reply(301, '', { Location: 'http://ci.example.com/jenkins/job/a/4/api/json' })
    const plain = nock('http://ci.example.com').get('/jenkins/job/a/4/api/json').reply(200, {})
    await jenkinsError(client.getBuild(['a'], 4), 'redirect')
    expect(plain.isDone()).toBe(false)
    nock.cleanAll()
  })
})

describe('secrets', () => {
  it('never puts the token, Authorization value or crumb in a log line or error message', async () => {
    const { client, logger } = makeClient()
    const messages: string[] = []
    const collect = async (promise: Promise<unknown>) => {
      const error = await promise.then(
        () => undefined,
        (e: unknown) => e
      )
      if (error instanceof Error) messages.push(error.message, String(error.stack))
    }
    crumbIssuer('Jenkins-Crumb')
    // Bodies that echo the secrets back must not carry them into messages.
    nock(ORIGIN)
      .post('/jenkins/job/a/disable')
      .reply(400, `bad header ${AUTH} with crumb ${CRUMB} and ${TOKEN}`, {
        'Content-Type': 'text/plain'
      })
      .post('/jenkins/job/a/7/stop')
      .reply(403, `denied ${TOKEN}`, { 'X-Required-Permission': 'hudson.model.Item.Cancel' })
      .get('/jenkins/job/a/api/json')
      .query(true)
      .reply(401)
      .get('/jenkins/queue/item/1/api/json')
      .times(3)
      .reply(503, `busy ${TOKEN}`, { 'Content-Type': 'text/plain' })
      .get('/jenkins/job/a/7/api/json')
      .replyWithError(netError('EPROTO', `TLS alert for ${TOKEN}`))
      .get('/jenkins/job/a/8/api/json')
      .reply(302, '', { Location: `https://${USER}:${TOKEN}@evil.example.net/` })
    await collect(client.disableJob(['a']))
    await collect(client.stopBuild({ job: ['a'], number: 7, url: '' }, 'stop'))
    await collect(client.getJob(['a']))
    await collect(client.getQueueItem(1))
    await collect(client.getBuild(['a'], 7))
    await collect(client.getBuild(['a'], 8))
    expect(messages.length).toBeGreaterThanOrEqual(12)
    const said = [...messages, ...logger.lines.map(line => line.message)]
    const base64 = AUTH.slice('Basic '.length)
    for (const text of said) {
      expect(text).not.toContain(TOKEN)
      expect(text).not.toContain(base64)
      expect(text).not.toContain(CRUMB)
    }
  })

  it('every path, the trigger included, redacts the token, the Basic value, every crumb and the session cookie', async () => {
    const { client, logger } = makeClient()
    const session = COOKIE.split('=')[1] as string
    const base64 = AUTH.slice('Basic '.length)
    const secrets = [TOKEN, base64, CRUMB, CRUMB2, session]
    const echo = `you sent ${AUTH} (${TOKEN}) crumb ${CRUMB} session ${session}`
    // A secret cut by the 200-character limit of a quoted body, and one URL-encoded.
    const cut = `${'x'.repeat(190)}${TOKEN}`
    const encoded = `token=${encodeURIComponent(TOKEN)}&crumb=${CRUMB}`
    crumbIssuer('Jenkins-Crumb', CRUMB, COOKIE)
    const plain = { name: 'a', url: `${BASE}/job/a/`, parameterDefinitions: [], isFolder: false }
    nock(ORIGIN)
      .post('/jenkins/job/a/build')
      .query(true)
      .reply(400, echo, { 'Content-Type': 'text/plain' })
      .post('/jenkins/job/a/build')
      .query(true)
      .reply(409, cut, { 'Content-Type': 'text/plain' })
      .post('/jenkins/job/a/build')
      .query(true)
      .reply(400, encoded, { 'Content-Type': 'text/plain' })
      .post('/jenkins/queue/cancelItem')
      .query(true)
      .reply(400, echo, { 'Content-Type': 'text/plain' })
      .post('/jenkins/job/a/7/stop')
      .reply(400, cut, { 'Content-Type': 'text/plain' })
      .get('/jenkins/job/a/api/json')
      .query(true)
      .reply(400, echo, { 'Content-Type': 'text/plain' })
      .get('/jenkins/job/a/7/api/json')
      .reply(405, `<html><head><title>Error 405 ${echo}</title></head></html>`, {
        'Content-Type': 'text/html'
      })
      .get('/jenkins/job/a/8/api/json')
      .reply(200, { message: echo }, { 'Content-Type': 'text/plain' })
    // A crumb refused, then a new session and crumb: the old ones stay secret.
    nock(ORIGIN).post('/jenkins/job/a/disable').reply(403, 'No valid crumb was included')
    crumbIssuer('Jenkins-Crumb', CRUMB2, COOKIE2)
    nock(ORIGIN)
      .post('/jenkins/job/a/disable')
      .reply(400, `${echo} new ${CRUMB2} ${COOKIE2}`, { 'Content-Type': 'text/plain' })
    secrets.push(COOKIE2.split('=')[1] as string)
    const messages: string[] = []
    const collect = async (promise: Promise<unknown>): Promise<void> => {
      const error = await promise.then(
        () => undefined,
        (e: unknown) => e
      )
      expect(error).toBeInstanceOf(Error)
      messages.push((error as Error).message, String((error as Error).stack))
    }
    await collect(client.trigger(plain, ['a'], {}))
    await collect(client.trigger(plain, ['a'], {}))
    await collect(client.trigger(plain, ['a'], {}))
    await collect(client.cancelQueueItem(3))
    await collect(client.stopBuild({ job: ['a'], number: 7, url: '' }, 'stop'))
    await collect(client.getJob(['a']))
    await collect(client.getBuild(['a'], 7))
    await collect(client.getBuild(['a'], 8))
    await collect(client.disableJob(['a']))
    // The bodies were quoted: the redaction is what this test sees, not an empty message.
    expect(messages.filter(m => m.includes('***')).length).toBeGreaterThanOrEqual(8)
    const said = [...messages, ...logger.lines.map(line => line.message)]
    for (const text of said) {
      for (const secret of secrets) expect(text).not.toContain(secret)
      // Not even the start of a token cut off by the quote limit.
      expect(text).not.toContain(TOKEN.slice(0, 8))
    }
  })

  it('errors are JenkinsError instances', async () => {
    const { client } = makeClient()
    nock(ORIGIN).get('/jenkins/job/a/1/api/json').reply(409)
    const error = await client.getBuild(['a'], 1).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(JenkinsError)
  })
})
