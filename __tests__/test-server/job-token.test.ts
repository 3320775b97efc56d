/**
 * "Trigger builds remotely" tokens as BuildAuthorizationToken.checkPermission
 * and ParameterizedJobMixIn.getBuildCause handle them (jenkins-api.md 3.1,
 * 3.6), behind the CrumbFilter and Jenkins.getTarget like any request.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { startJenkins, type ServerOptions, type TestJenkins } from '../../test-server/index.js'
import { ADMIN, crumbSession, get, post, queueId, waitFor } from './helpers.js'

const JOB_TOKEN = 'job-token-7f3a'
let jenkins: TestJenkins | undefined

async function start(options: ServerOptions = {}): Promise<TestJenkins> {
  jenkins = await startJenkins({
    users: [
      { ...ADMIN, permissions: ['admin'] },
      { name: 'reader', apiToken: 'tok-reader', permissions: ['read'] }
    ],
    quietPeriodSec: 0,
    jobs: {
      remote: { authToken: JOB_TOKEN, script: { durationMs: 30 } },
      params: {
        authToken: JOB_TOKEN,
        parameters: [{ name: 'A', default: 'x' }],
        script: { durationMs: 30 }
      },
      plain: { script: { durationMs: 30 } }
    },
    ...options
  })
  return jenkins
}

afterEach(async () => {
  await jenkins?.close()
  jenkins = undefined
})

const READER = 'Basic ' + Buffer.from('reader:tok-reader').toString('base64')

describe('job tokens', () => {
  it('a right token stands in for Job/Build and records a RemoteCause with the forwarded address and the note', async () => {
    const j = await start()
    const res = await post(j, '/job/remote/build?delay=0sec', {
      auth: READER,
      body: `token=${JOB_TOKEN}&cause=${encodeURIComponent('GitHub Actions run 9')}`,
      headers: { 'x-forwarded-for': '203.0.113.9, 10.0.0.1' }
    })
    expect(res.status).toBe(201)
    queueId(res.headers.get('location'))
    const build = await waitFor(() => j.builds('remote')[0], 'the build')
    expect(build.causes).toEqual([
      {
        _class: 'hudson.model.Cause$RemoteCause',
        addr: '203.0.113.9',
        note: 'GitHub Actions run 9',
        shortDescription: 'Started by remote host 203.0.113.9 with note: GitHub Actions run 9'
      }
    ])
    await waitFor(() => (j.builds('remote')[0]?.building === false ? true : undefined))
    expect(j.builds('remote')[0]?.consoleText()).toMatch(
      /^Started by remote host 203\.0\.113\.9 with note: GitHub Actions run 9\n/
    )
    // Without the token the reader lacks Job/Build.
    const denied = await post(j, '/job/remote/build', { auth: READER })
    expect(denied.status).toBe(403)
    expect(denied.headers.get('x-required-permission')).toBe('hudson.model.Item.Build')
  })

  it('buildWithParameters takes the token too, before any other check', async () => {
    const j = await start()
    const res = await post(j, '/job/params/buildWithParameters', {
      auth: READER,
      body: `token=${JOB_TOKEN}&A=given`
    })
    expect(res.status).toBe(201)
    const build = await waitFor(() => j.builds('params')[0], 'the build')
    expect(build.parameters).toEqual({ A: 'given' })
    expect(build.causes[0]?._class).toBe('hudson.model.Cause$RemoteCause')
    expect(build.causes[0]?.note).toBeNull()
  })

  it('a wrong token: "Invalid token provided." for a user (no permission headers), the login page for anonymous', async () => {
    const j = await start({ anonymousRead: true })
    const asAdmin = await post(j, '/job/remote/build', { body: 'token=wrong' })
    expect(asAdmin.status).toBe(403)
    expect(await asAdmin.text()).toContain('<p class="error">Invalid token provided.</p>')
    expect(asAdmin.headers.get('x-required-permission')).toBeNull()
    const session = await crumbSession(j, null)
    expect(session.crumb).toMatch(/^[0-9a-f]{64}$/)
    const anonymous = await fetch(`${j.url}/job/remote/build`, {
      method: 'POST',
      headers: {
        cookie: session.cookie,
        [session.field]: session.crumb,
        'content-type': 'application/x-www-form-urlencoded'
      },
      body: 'token=wrong',
      redirect: 'manual'
    })
    expect(anonymous.status).toBe(403)
    expect(await anonymous.text()).toContain('/login?from=')
    expect(j.builds('remote')).toEqual([])
  })

  it('an anonymous token POST needs a crumb (CrumbFilter has no exclusion for it), which needs anonymous read', async () => {
    const j = await start({ anonymousRead: true })
    const noCrumb = await fetch(`${j.url}/job/remote/build`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=${JOB_TOKEN}`,
      redirect: 'manual'
    })
    expect(noCrumb.status).toBe(403)
    expect(await noCrumb.text()).toContain('No valid crumb')
    const session = await crumbSession(j, null)
    const ok = await fetch(`${j.url}/job/remote/build`, {
      method: 'POST',
      headers: {
        cookie: session.cookie,
        [session.field]: session.crumb,
        'content-type': 'application/x-www-form-urlencoded'
      },
      body: `token=${JOB_TOKEN}`,
      redirect: 'manual'
    })
    expect(ok.status).toBe(201)
    const build = await waitFor(() => j.builds('remote')[0], 'the build')
    expect(build.causes[0]).toMatchObject({
      _class: 'hudson.model.Cause$RemoteCause',
      addr: '127.0.0.1'
    })
  })

  it('without anonymous read there is no crumb, and with CSRF off Jenkins.getTarget still refuses the POST', async () => {
    const j = await start()
    expect((await get(j, '/crumbIssuer/api/json', null)).status).toBe(403)
    await j.close()
    const noCsrf = await start({ csrf: false })
    const res = await fetch(`${noCsrf.url}/job/remote/build`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=${JOB_TOKEN}`,
      redirect: 'manual'
    })
    expect(res.status).toBe(403)
    expect(await res.text()).toContain('/login?from=')
    expect(noCsrf.builds('remote')).toEqual([])
  })

  it('a token on a job without one is ignored: Job/Build decides, and the cause is the user', async () => {
    const j = await start()
    const res = await post(j, '/job/plain/build', { body: 'token=anything' })
    expect(res.status).toBe(201)
    const build = await waitFor(() => j.builds('plain')[0], 'the build')
    expect(build.causes[0]?._class).toBe('hudson.model.Cause$UserIdCause')
  })
})
