/**
 * End to end: `branch` and `scan` on multibranch projects, the bundle run as
 * the runner runs it. Each test has a project of its own, so that every
 * request it asserts on (scans included, which are per project) is its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorAnnotation, type ActionRun } from '../../scripts/action-runner.js'
import { startJenkins, type JobSpec, type TestJenkins } from '../../test-server/index.js'
import { commands } from '../fixtures/runner-log.js'
import { auth, describeRun, run, RUNTIMES } from './helpers.js'

const quick = (line: string): JobSpec => ({ script: { durationMs: 150, consoleLines: [line] } })

/** A multibranch project with `main` and `feature/x` already scanned, and the heads given. */
function project(heads: Record<string, JobSpec> = {}): JobSpec {
  return {
    type: 'multibranch',
    scanDurationMs: 300,
    jobs: { main: quick('main branch'), 'feature%2Fx': quick('feature x') },
    heads: { main: {}, 'feature/x': {}, ...heads }
  }
}

let jenkins: TestJenkins

beforeAll(async () => {
  jenkins = await startJenkins({
    quietPeriodSec: 0,
    jobs: {
      'new-pr': project({ 'PR-42': quick('pull request 42') }),
      'new-slash': project({ 'feature/new-thing': quick('a new branch with a slash') }),
      existing: project(),
      slash: project(),
      never: project({ 'PR-7': quick('pull request 7') }),
      'no-branch': project(),
      missing: project()
    }
  })
})
afterAll(() => jenkins.close())

/** The requests of one project (its scans) and of one of its branch jobs. */
function requestsOf(projectName: string, branchItem: string) {
  return {
    scans: jenkins.requests.filter(r => r.kind === 'scan' && r.job === projectName),
    triggers: jenkins.requests.filter(
      r => r.kind === 'trigger' && r.job === `${projectName}/${branchItem}`
    )
  }
}

/** Commands no line of a successful run may form (Jenkins text included: the scan log, names). */
const FORBIDDEN = ['error', 'warning', 'notice', 'set-output', 'set-env', 'add-path', 'echo']

function ok(r: ActionRun): void {
  expect(r.code, describeRun(r)).toBe(0)
  const formed = commands(r.stdout).filter(c => FORBIDDEN.includes(c.name))
  expect(formed, describeRun(r)).toEqual([])
}

describe('branch and scan', () => {
  describe.concurrent('', () => {
    it('a new pull request: one scan, and the build the scan started is followed, not a second one', async () => {
      const r = await run(RUNTIMES[1]?.path ?? process.execPath, {
        ...auth(jenkins),
        job: 'new-pr',
        branch: 'PR-42'
      })
      ok(r)
      const builds = jenkins.builds('new-pr/PR-42')
      expect(builds).toHaveLength(1)
      expect(builds[0]?.causes).toEqual([
        { _class: 'jenkins.branch.BranchIndexingCause', shortDescription: 'Branch indexing' }
      ])
      const { scans, triggers } = requestsOf('new-pr', 'PR-42')
      expect(scans.map(s => [s.method, s.path, s.query, s.status])).toEqual([
        ['POST', '/job/new-pr/build', 'delay=0sec', 302]
      ])
      expect(triggers).toEqual([])
      expect(r.outputs).toMatchObject({
        result: 'SUCCESS',
        'build-number': '1',
        'build-url': `${jenkins.url}/job/new-pr/job/PR-42/1/`,
        'job-url': `${jenkins.url}/job/new-pr/job/PR-42/`,
        'queue-url': `${jenkins.url}/queue/item/${builds[0]?.queueId}/`
      })
      expect(r.stdout).toMatch(
        /^Branch 'PR-42' of new-pr has no job in Jenkins yet: scanning new-pr \(branch indexing\)/m
      )
      expect(r.stdout).toMatch(/^::group::Scan of new-pr$/m)
      expect(r.stdout).toMatch(/^Scheduled build for branch: PR-42$/m)
      expect(r.stdout).toMatch(
        /^Branch indexing created new-pr\/PR-42 and started its first build \(cause: Branch indexing\): following (queue item \d+|build #1) instead of triggering a second build\.$/m
      )
      expect(r.stdout).toMatch(/^pull request 42$/m)
    })

    it('a new branch with a slash: found by the scan, its job reached as feature%252Fnew-thing', async () => {
      const r = await run(process.execPath, {
        ...auth(jenkins, 'password'),
        job: 'new-slash',
        branch: 'feature/new-thing'
      })
      ok(r)
      expect(jenkins.builds('new-slash/feature%2Fnew-thing')).toHaveLength(1)
      expect(requestsOf('new-slash', 'feature%2Fnew-thing').triggers).toEqual([])
      expect(r.outputs['build-url']).toBe(
        `${jenkins.url}/job/new-slash/job/feature%252Fnew-thing/1/`
      )
      // Every request to the branch job's URLs (queue items name it too, at their own URL).
      const mine = jenkins.requests.filter(
        r2 => r2.job === 'new-slash/feature%2Fnew-thing' && r2.kind !== 'queue'
      )
      expect(mine.length).toBeGreaterThan(0)
      for (const request of mine)
        expect(request.path).toMatch(/^\/job\/new-slash\/job\/feature%252Fnew-thing\//)
    })

    it('an existing branch: triggered at once, no scan', async () => {
      const r = await run(process.execPath, { ...auth(jenkins), job: 'existing', branch: 'main' })
      ok(r)
      const { scans, triggers } = requestsOf('existing', 'main')
      expect(scans).toEqual([])
      expect(triggers.map(t => [t.path, t.status])).toEqual([['/job/existing/job/main/build', 201]])
      expect(r.outputs.result).toBe('SUCCESS')
      // The default status context is the project's, the same for every branch.
      expect(r.stdout).not.toMatch(/scanning/)
    })

    it('an existing branch with a slash: sent as %252F', async () => {
      const r = await run(RUNTIMES[1]?.path ?? process.execPath, {
        ...auth(jenkins),
        job: 'slash',
        branch: 'feature/x'
      })
      ok(r)
      const { scans, triggers } = requestsOf('slash', 'feature%2Fx')
      expect(scans).toEqual([])
      expect(triggers.map(t => t.path)).toEqual(['/job/slash/job/feature%252Fx/build'])
      expect(r.outputs['build-url']).toBe(`${jenkins.url}/job/slash/job/feature%252Fx/1/`)
    })

    it('scan: never fails at once, naming the closest branches, with no scan and no trigger', async () => {
      const r = await run(process.execPath, {
        ...auth(jenkins),
        job: 'never',
        branch: 'feature/y',
        scan: 'never'
      })
      expect(r.code, describeRun(r)).toBe(1)
      expect(errorAnnotation(r)).toBe(
        `Multibranch project never has no branch 'feature/y' (scan: never) on ${jenkins.url}. Closest branches: feature/x.`
      )
      const { scans, triggers } = requestsOf('never', 'feature%2Fy')
      expect(scans).toEqual([])
      expect(triggers).toEqual([])
      // PR-7 is a head the last scan has not seen: never means it stays unscanned.
      expect(jenkins.state.findJob('never/PR-7')).toBeUndefined()
    })

    it('a branch the scan does not find: fails once the scan is over, listing the branches', async () => {
      const r = await run(process.execPath, {
        ...auth(jenkins),
        job: 'missing',
        branch: 'PR-404'
      })
      expect(r.code, describeRun(r)).toBe(1)
      expect(errorAnnotation(r)).toMatch(
        /^The scan of missing finished without a branch 'PR-404' on .*: is it pushed \(or the pull request open\), and does the project's branch source discover it\? The scan log is at .*\/job\/missing\/indexing\/console\. It has: feature\/x, main\.$/
      )
      expect(requestsOf('missing', 'PR-404').scans).toHaveLength(1)
    })

    it('a multibranch project without branch: says to set branch', async () => {
      const r = await run(process.execPath, { ...auth(jenkins), job: 'no-branch' })
      expect(r.code, describeRun(r)).toBe(1)
      expect(errorAnnotation(r)).toMatch(
        /^Jenkins item no-branch is a multibranch project \(org\.jenkinsci\.plugins\.workflow\.multibranch\.WorkflowMultiBranchProject, on .*\): its jobs are its branches and pull requests\. Set 'branch' to the one to build/
      )
      expect(jenkins.requests.filter(q => q.job === 'no-branch' && q.method === 'POST')).toEqual([])
    })
  })
})
