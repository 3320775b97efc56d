/**
 * A busy job (concurrent builds, e.g. one per pull request) whose six newest
 * builds are all still running: Jenkins still estimates the next build from
 * its last successful one (Job.getEstimatedDurationCandidates), and so must
 * the follower, from the same single job read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { JenkinsClient } from '../../../src/jenkins/client.js'
import { expectationFrom } from '../../../src/follow/poll-policy.js'
import { startJenkins, type TestJenkins } from '../../../test-server/index.js'
import { ADMIN_TOKEN, startBuild } from '../../e2e/helpers.js'

let jenkins: TestJenkins

beforeAll(async () => {
  jenkins = await startJenkins({
    quietPeriodSec: 0,
    executors: 8,
    users: [{ name: 'admin', password: 'admin', apiToken: ADMIN_TOKEN, permissions: ['admin'] }],
    jobs: {
      busy: {
        concurrent: true,
        parameters: [{ name: 'PR' }],
        script: { durationMs: 600_000 }
      }
    }
  })
  // Finished earlier: the last successful one took 42 s, the failure after it 5 s.
  jenkins.addHistory('busy', [
    { durationMs: 40_000 },
    { durationMs: 42_000 },
    { durationMs: 5_000, result: 'FAILURE' }
  ])
  for (let pr = 1; pr <= 6; pr++) await startBuild(jenkins, 'busy', `PR=${pr}`)
})
afterAll(() => jenkins.close())

describe('a busy job whose six newest builds are running', () => {
  it('the job read brings the last successful build, and the estimate comes from it', async () => {
    const api = new JenkinsClient({
      url: jenkins.url,
      user: 'admin',
      token: ADMIN_TOKEN,
      logger: { debug: () => undefined, info: () => undefined, warning: () => undefined }
    })
    const info = await api.getJob(['busy'])
    const newest = info.recent?.slice(0, 6) ?? []
    expect(newest.map(b => b.building)).toEqual([true, true, true, true, true, true])
    // The last successful build (#2) is older than the six newest (#9–#4).
    expect(info.recent?.slice(6)).toEqual([
      { number: 2, result: 'SUCCESS', duration: 42_000, building: false }
    ])
    // Jenkins' candidates: the last successful build only (the failure is
    // beyond the six newest), so its duration with the assumed spread.
    expect(expectationFrom(info.recent ?? [])).toEqual({ durationMs: 42_000, spreadMs: 2100 })
    // Still one job read.
    expect(jenkins.requests.filter(r => r.kind === 'job' && r.job === 'busy')).toHaveLength(1)
  })
})
