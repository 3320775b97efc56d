import nock from 'nock'
import { describe, expect, it } from 'vitest'
import { EXECUTORS_TREE, runningKey } from '../../../src/jenkins/reads/executors.js'
import { buildOfUrl } from '../../../src/jenkins/reads/decode.js'
import { JENKINS_404, ORIGIN, jenkinsError, makeClient, useNock } from '../helpers.js'

useNock()

const PLACEHOLDER =
  'org.jenkinsci.plugins.workflow.support.steps.ExecutorStepExecution$PlaceholderTask$PlaceholderExecutable'

function computers(body: unknown, status = 200) {
  return nock(ORIGIN)
    .get('/jenkins/computer/api/json')
    .query({ tree: EXECUTORS_TREE })
    .reply(status, body as nock.Body, {
      'Content-Type': 'application/json',
      'X-Jenkins': '2.541.1'
    })
}

describe('runningBuilds (computer/api/json)', () => {
  it('a deadline of its own gives the read its tries within it; without one, the client policy', async () => {
    const down = () =>
      nock(ORIGIN)
        .get('/jenkins/computer/api/json')
        .query({ tree: EXECUTORS_TREE })
        .times(5)
        .reply(503, 'Service Unavailable', { 'Retry-After': '0' })
    const { client } = makeClient()
    down()
    computers({ _class: 'hudson.model.ComputerSet', computer: [] })
    expect(await client.runningBuilds({ deadline: Date.now() + 60_000 })).toEqual([])
    expect(client.http.requestCounts['computer']).toBe(6)
    const { client: plain } = makeClient()
    down()
    await jenkinsError(plain.runningBuilds(), 'server')
    expect(plain.http.requestCounts['computer']).toBe(3)
    nock.cleanAll()
  })

  it('lists each build once, from executors and one-off executors, by the path of its URL', async () => {
    const { client } = makeClient()
    computers({
      _class: 'hudson.model.ComputerSet',
      computer: [
        {
          _class: 'hudson.model.Hudson$MasterComputer',
          executors: [
            { currentExecutable: null },
            {
              currentExecutable: {
                _class: PLACEHOLDER,
                // Jenkins' configured root URL: another host than ours.
                url: 'http://jenkins.internal:8080/job/mb/job/feature%252Fx/7/',
                number: 7,
                timestamp: 1000
              }
            }
          ],
          oneOffExecutors: [
            {
              currentExecutable: {
                _class: 'org.jenkinsci.plugins.workflow.job.WorkflowRun',
                url: 'http://jenkins.internal:8080/job/mb/job/feature%252Fx/7/',
                number: 7,
                queueId: 41,
                estimatedDuration: 60000
              }
            }
          ]
        },
        {
          _class: 'hudson.slaves.SlaveComputer',
          executors: [
            {
              currentExecutable: {
                _class: 'hudson.model.FreeStyleBuild',
                url: 'http://jenkins.internal:8080/job/My%20Job/12/',
                number: 12,
                queueId: 40,
                timestamp: 2000,
                estimatedDuration: -1
              }
            },
            // Broken or foreign entries are skipped, not fatal.
            { currentExecutable: { url: 'http://jenkins.internal:8080/computer/x/' } },
            { currentExecutable: { url: 42 } },
            null
          ]
        },
        null
      ]
    })
    const builds = await client.runningBuilds()
    expect(builds).toEqual([
      {
        job: ['mb', 'feature%2Fx'],
        number: 7,
        queueId: 41,
        timestamp: 1000,
        estimatedDuration: 60000
      },
      { job: ['My Job'], number: 12, queueId: 40, timestamp: 2000, estimatedDuration: -1 }
    ])
    expect(client.http.requestCounts['computer']).toBe(1)
  })

  it('an empty or odd answer is no build', async () => {
    const { client } = makeClient()
    computers({ _class: 'hudson.model.ComputerSet' })
    expect(await client.runningBuilds()).toEqual([])
  })

  it('a refusal is an error the caller can fall back on (not retried)', async () => {
    const { client } = makeClient()
    computers('<html>denied</html>', 403)
    await jenkinsError(client.runningBuilds(), 'forbidden')
    nock(ORIGIN)
      .get('/jenkins/computer/api/json')
      .query(true)
      .reply(...JENKINS_404)
    await jenkinsError(client.runningBuilds(), 'not-found')
  })
})

describe('buildOfUrl', () => {
  it.each([
    ['https://ci/job/a/job/b/3/', { job: ['a', 'b'], number: 3 }],
    ['https://ci/ctx/job/caf%C3%A9/1', { job: ['café'], number: 1 }],
    ['/job/a/12/', { job: ['a'], number: 12 }]
  ])('%s', (url, expected) => {
    expect(buildOfUrl(url)).toEqual(expected)
  })

  it.each([
    'https://ci/job/a/',
    'https://ci/job/a/lastBuild/',
    'https://ci/computer/x/1/',
    'https://ci/job/a/b/3/',
    'https://ci/job/%E0%A4%A/1/'
  ])('%s is not a build URL', url => expect(buildOfUrl(url)).toBeUndefined())

  it('keys ignore case, as Jenkins item names do', () => {
    expect(runningKey(['Team', 'App'], 3)).toBe(runningKey(['team', 'app'], 3))
    expect(runningKey(['team', 'app'], 3)).not.toBe(runningKey(['team', 'app'], 4))
  })
})
