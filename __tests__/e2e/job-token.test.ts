/**
 * End to end: `job-token`, the job's "Trigger builds remotely" token. Sent
 * in the form (never the URL), anonymously (with anonymous read) or beside
 * a user who may only read; refusals say what to do and never show it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorAnnotation, type ActionRun } from '../../scripts/action-runner.js'
import { startJenkins, type TestJenkins } from '../../test-server/index.js'
import { describeRun, run, RUNTIMES } from './helpers.js'

const JOB_TOKEN = 'jt-7Rq2-remote-trigger-secret'
const WRONG = 'jt-not-the-right-one-8841'
const READER = {
  name: 'reader',
  apiToken: '11ff22ee33dd44cc55bb66aa7788990011',
  permissions: ['read' as const]
}
const NODE24 = RUNTIMES[1]?.path ?? process.execPath

const jobs = () => ({
  remote: { authToken: JOB_TOKEN, script: { durationMs: 150, consoleLines: ['remote build'] } },
  other: { authToken: JOB_TOKEN, script: { durationMs: 150 } },
  wrong: { authToken: JOB_TOKEN, script: { durationMs: 150 } },
  'wrong-user': { authToken: JOB_TOKEN, script: { durationMs: 150 } }
})

/** Nothing a run leaves behind or any request line carries shows the tokens. */
function noToken(r: ActionRun, jenkins: TestJenkins): void {
  for (const secret of [JOB_TOKEN, WRONG]) {
    const shown = r.stdout
      .split('\n')
      .filter(l => l.includes(secret) && !l.startsWith('::add-mask::'))
    expect(shown).toEqual([])
    expect(r.stderr + JSON.stringify(r.outputs) + r.summary).not.toContain(secret)
    for (const request of jenkins.requests) {
      expect(request.path + request.query).not.toContain(secret)
    }
  }
}

describe('job-token', () => {
  let open: TestJenkins
  let closed: TestJenkins
  beforeAll(async () => {
    // Anonymous users may read (Overall/Read, Job/Read), but not build.
    open = await startJenkins({ quietPeriodSec: 0, anonymousRead: true, jobs: jobs() })
    // Anonymous users get nothing; `reader` may read only.
    closed = await startJenkins({
      quietPeriodSec: 0,
      users: [READER],
      jobs: jobs()
    })
  })
  afterAll(async () => {
    await Promise.all([open.close(), closed.close()])
  })

  describe.concurrent('', () => {
    it('anonymous with anonymous read: a crumb, the token in the form, a remote cause with the run as note', async () => {
      const r = await run(NODE24, { url: open.url, job: 'remote', 'job-token': JOB_TOKEN })
      expect(r.code, describeRun(r)).toBe(0)
      expect(r.outputs.result).toBe('SUCCESS')
      const build = open.builds('remote')[0]
      expect(build?.causes).toEqual([
        {
          _class: 'hudson.model.Cause$RemoteCause',
          addr: '127.0.0.1',
          note: 'GitHub Actions https://github.com/owner/repo/actions/runs/1',
          shortDescription:
            'Started by remote host 127.0.0.1 with note: GitHub Actions https://github.com/owner/repo/actions/runs/1'
        }
      ])
      const triggers = open.requests.filter(q => q.kind === 'trigger' && q.job === 'remote')
      expect(triggers.map(t => [t.method, t.path, t.query, t.user, t.status])).toEqual([
        ['POST', '/job/remote/build', 'delay=0sec', 'anonymous', 201]
      ])
      expect(open.requests.filter(q => q.kind === 'crumb').length).toBeGreaterThanOrEqual(1)
      expect(r.stdout).toMatch(/^Started by remote host 127\.0\.0\.1 with note: GitHub Actions/m)
      noToken(r, open)
    })

    it('without anonymous read: a clear error (a job token alone is not enough), nothing triggered', async () => {
      const r = await run(process.execPath, {
        url: closed.url,
        job: 'remote',
        'job-token': JOB_TOKEN
      })
      expect(r.code, describeRun(r)).toBe(1)
      expect(errorAnnotation(r)).toMatch(
        /refused anonymous read of job 'remote' \(403\): a job token alone is not enough here, because Jenkins finds the job, and hands out the CSRF crumb its trigger needs, only to callers who may read it \(Overall\/Read and Job\/Read\)\. Give user\/token \(that user then needs only Job\/Read: the job token stands in for Job\/Build\), or grant anonymous read\.$/
      )
      expect(closed.builds('remote')).toEqual([])
      expect(closed.requests.filter(q => q.kind === 'trigger' && q.job === 'remote')).toEqual([])
      noToken(r, closed)
    })

    it('beside a user who may only read: the token stands in for Job/Build', async () => {
      const r = await run(NODE24, {
        url: closed.url,
        user: READER.name,
        token: READER.apiToken,
        job: 'other',
        'job-token': JOB_TOKEN
      })
      expect(r.code, describeRun(r)).toBe(0)
      expect(closed.builds('other')[0]?.causes[0]?._class).toBe('hudson.model.Cause$RemoteCause')
      const triggers = closed.requests.filter(q => q.kind === 'trigger' && q.job === 'other')
      expect(triggers.map(t => [t.user, t.status])).toEqual([['reader', 201]])
      noToken(r, closed)
    })

    it('a wrong token, anonymously: refused, the token not shown', async () => {
      const r = await run(process.execPath, { url: open.url, job: 'wrong', 'job-token': WRONG })
      expect(r.code, describeRun(r)).toBe(1)
      expect(errorAnnotation(r)).toBe(
        `Jenkins at ${new URL(open.url).origin} refused the job token for the trigger of job 'wrong' (403): it is not the job's "Trigger builds remotely" token, or the job has no such token and anonymous users lack Job/Build. Check 'job-token' (its value is not shown).`
      )
      expect(open.builds('wrong')).toEqual([])
      noToken(r, open)
    })

    it('a wrong token beside a user: "Invalid token provided."', async () => {
      const r = await run(NODE24, {
        url: closed.url,
        user: READER.name,
        token: READER.apiToken,
        job: 'wrong-user',
        'job-token': WRONG
      })
      expect(r.code, describeRun(r)).toBe(1)
      expect(errorAnnotation(r)).toMatch(
        /refused the job token for the trigger of job 'wrong-user' \(403 "Invalid token provided\."\): it is not the job's "Trigger builds remotely" token\. Check 'job-token'/
      )
      expect(closed.builds('wrong-user')).toEqual([])
      noToken(r, closed)
    })
  })
})
