import nock from 'nock'
import { describe, expect, it } from 'vitest'
import { AUTH, BASE, ORIGIN, jenkinsError, makeClient, useNock, JENKINS_404 } from '../helpers.js'

useNock()

const BUILD = { job: ['pipe'], number: 4, url: `${BASE}/job/pipe/4/` }
const DESCRIBE = '/jenkins/job/pipe/4/wfapi/describe'

describe('describeRun', () => {
  it('reads RunExt as the Stage View plugin writes it', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get(DESCRIBE)
      .matchHeader('authorization', AUTH)
      .reply(
        200,
        {
          _links: { self: { href: '/jenkins/job/pipe/4/wfapi/describe' } },
          id: '4',
          name: '#4',
          status: 'FAILED',
          startTimeMillis: 1700000000000,
          endTimeMillis: 1700000009000,
          durationMillis: 9000,
          queueDurationMillis: 3,
          pauseDurationMillis: 0,
          stages: [
            {
              _links: { self: { href: '/jenkins/job/pipe/4/execution/node/6/wfapi/describe' } },
              id: '6',
              name: 'Build',
              execNode: '',
              status: 'SUCCESS',
              startTimeMillis: 1700000000100,
              durationMillis: 4000,
              pauseDurationMillis: 0
            },
            {
              _links: { self: { href: '/jenkins/job/pipe/4/execution/node/12/wfapi/describe' } },
              id: '12',
              name: 'Test',
              execNode: '',
              status: 'FAILED',
              error: { message: 'script returned exit code 1', type: 'hudson.AbortException' },
              startTimeMillis: 1700000004100,
              durationMillis: 4800,
              pauseDurationMillis: 0
            },
            { id: '20', name: 42 },
            null
          ]
        },
        { 'Content-Type': 'application/json; charset=UTF-8' }
      )
    expect(await client.describeRun(BUILD)).toEqual({
      status: 'FAILED',
      stages: [
        {
          id: '6',
          name: 'Build',
          status: 'SUCCESS',
          startTimeMillis: 1700000000100,
          durationMillis: 4000,
          pauseDurationMillis: 0
        },
        {
          id: '12',
          name: 'Test',
          status: 'FAILED',
          startTimeMillis: 1700000004100,
          durationMillis: 4800,
          pauseDurationMillis: 0,
          error: 'script returned exit code 1'
        }
      ]
    })
  })

  it('404 (no Stage View plugin, or not a Pipeline) is no stages, not an error', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get(DESCRIBE)
      .reply(...JENKINS_404)
    expect(await client.describeRun(BUILD)).toBeUndefined()
  })

  it('other failures are errors; transient ones are retried first', async () => {
    const { client } = makeClient()
    nock(ORIGIN).get(DESCRIBE).reply(502, 'proxy').get(DESCRIBE).reply(200, { stages: [] })
    expect(await client.describeRun(BUILD)).toEqual({ status: undefined, stages: [] })
    nock(ORIGIN).get(DESCRIBE).reply(403, 'denied')
    await jenkinsError(client.describeRun(BUILD), 'forbidden')
  })
})
