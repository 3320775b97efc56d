import nock from 'nock'
import { describe, expect, it } from 'vitest'
import { abortRemote } from '../../src/follow/cancel.js'
import { BASE, JENKINS_404, ORIGIN, makeClient, useNock } from '../jenkins/helpers.js'

useNock()

const timings = { stopWaitMs: 5, termWaitMs: 5, killWaitMs: 5, pollMs: 1, shareCheckMs: 50 }
const job = ['app']

/** Answers build JSON as Jenkins does with `tree`: only the fields asked for (jenkins-api.md 5.5). */
function buildJson(building: () => boolean) {
  return nock(ORIGIN)
    .get('/jenkins/job/app/4/api/json')
    .query(true)
    .times(20)
    .reply(uri => {
      const tree = new URL(uri, ORIGIN).searchParams.get('tree') ?? ''
      const full: Record<string, unknown> = {
        number: 4,
        building: building(),
        result: building() ? null : 'ABORTED'
      }
      const out: Record<string, unknown> = { _class: 'hudson.model.FreeStyleBuild' }
      for (const field of tree.split(',')) if (field in full) out[field] = full[field]
      return [200, out]
    })
}

describe('abortRemote with the real client', () => {
  it('asks for the fields the client needs, so a stop is sent and seen to end', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/crumbIssuer/api/json')
      .reply(...JENKINS_404)
    let stopped = false
    const scope = buildJson(() => !stopped)
    nock(ORIGIN)
      .post('/jenkins/job/app/4/stop')
      .reply(() => {
        stopped = true
        return [302, '', { Location: `${BASE}/job/app/4/` }]
      })
    const done = await abortRemote(
      client,
      { job, build: { job, number: 4, url: `${BASE}/job/app/4/` } },
      { debug: () => undefined, info: () => undefined, warning: m => expect.fail(m) },
      { timings }
    )
    expect(done).toBe('stopped Jenkins build #4 (stop; result ABORTED)')
    scope.persist(false)
    nock.cleanAll()
  })
})
