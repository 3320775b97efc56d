/**
 * Values Jenkins would refuse (a 500) or silently change (a boolean that is
 * neither true nor false runs as false): refused by the client before any
 * request, naming the parameter and what it takes; what only a plugin's
 * own code can judge is sent as given.
 */
import nock from 'nock'
import { describe, expect, it } from 'vitest'
import type { JobInfo, ParameterDefinition } from '../../../src/jenkins/model/types.js'
import { BASE, JENKINS_404, ORIGIN, jenkinsError, makeClient, useNock } from '../helpers.js'

useNock()

const job = ['deploy']

function jobWith(...parameterDefinitions: ParameterDefinition[]): JobInfo {
  return { name: 'deploy', url: `${BASE}/job/deploy/`, isFolder: false, parameterDefinitions }
}

const DRY: ParameterDefinition = { name: 'DRY', type: 'BooleanParameterDefinition' }
const REF: ParameterDefinition = { name: 'REF', type: 'StringParameterDefinition' }

/** The trigger Jenkins answers, with the form it got; CSRF off. */
function accepting(queueId: number): { forms: string[] } {
  const seen = { forms: [] as string[] }
  nock(ORIGIN)
    .get('/jenkins/crumbIssuer/api/json')
    .reply(...JENKINS_404)
  nock(ORIGIN)
    .post('/jenkins/job/deploy/buildWithParameters')
    .query({ delay: '0sec' })
    .reply(
      201,
      (_uri, body) => {
        seen.forms.push(String(body))
        return ''
      },
      { Location: `${ORIGIN}/jenkins/queue/item/${queueId}/` }
    )
  return seen
}

describe('a boolean parameter', () => {
  for (const value of ['maybe', 'yes', '1', 'on', '']) {
    it(`'${value}' is refused before anything is sent: Jenkins would run it as false`, async () => {
      const { client } = makeClient()
      const error = await jenkinsError(
        client.trigger(jobWith(DRY), job, { DRY: value }),
        'bad-request'
      )
      expect(error.message).toBe(
        `Parameter 'DRY' of job 'deploy' is '${value}', but a boolean parameter takes true or false: Jenkins would run it as false. Nothing was triggered.`
      )
      expect(client.http.requestCounts.total ?? 0).toBe(0)
    })
  }

  it('true and false, in any case, are sent as given (Boolean.parseBoolean ignores case)', async () => {
    for (const [i, value] of ['true', 'FALSE', 'True'].entries()) {
      const { client } = makeClient()
      const seen = accepting(40 + i)
      expect((await client.trigger(jobWith(DRY), job, { DRY: value })).queueId).toBe(40 + i)
      expect(seen.forms).toEqual([`DRY=${value}`])
    }
  })
})

describe('several values', () => {
  it("for core's single-value parameters: refused before anything is sent, naming the type", async () => {
    const cases: Array<[ParameterDefinition, string]> = [
      [REF, 'a string parameter'],
      [{ name: 'REF', type: 'TextParameterDefinition' }, 'a text parameter'],
      [{ name: 'REF', type: 'PasswordParameterDefinition' }, 'a password parameter'],
      [
        { name: 'REF', type: 'ChoiceParameterDefinition', choices: ['a', 'b'] },
        'a choice parameter'
      ],
      [{ name: 'REF', type: 'BooleanParameterDefinition' }, 'a boolean parameter'],
      [{ name: 'REF', type: 'CascadeChoiceParameter' }, 'an Active Choices parameter']
    ]
    for (const [definition, kind] of cases) {
      const { client } = makeClient()
      const error = await jenkinsError(
        client.trigger(jobWith(definition), job, { REF: ['a', 'b'] }),
        'bad-request'
      )
      expect(error.message).toBe(
        `Parameter 'REF' of job 'deploy' is given 2 values, but ${kind} takes one (give one value; a parameter that splits its value, such as a multi-select Active Choices parameter, takes them joined: 'a,b'). Nothing was triggered.`
      )
      expect(client.http.requestCounts.total ?? 0).toBe(0)
    }
  })

  it('the values are never quoted (a password parameter may be given a secret)', async () => {
    const { client } = makeClient()
    const error = await jenkinsError(
      client.trigger(jobWith({ name: 'PW', type: 'PasswordParameterDefinition' }), job, {
        PW: ['s3cret-one', 's3cret-two']
      }),
      'bad-request'
    )
    expect(error.message).not.toMatch(/s3cret/)
  })

  it("for a parameter that takes several (Extended Choice's multi-select) or a plugin's the client does not know: sent, one field each", async () => {
    for (const [i, type] of [
      'PT_MULTI_SELECT',
      'ReleaseParameterDefinition',
      undefined
    ].entries()) {
      const { client } = makeClient()
      const seen = accepting(50 + i)
      const definition: ParameterDefinition = type ? { name: 'TARGETS', type } : { name: 'TARGETS' }
      const result = await client.trigger(jobWith(definition), job, { TARGETS: ['eu', 'us'] })
      expect(result.queueId).toBe(50 + i)
      expect(seen.forms).toEqual(['TARGETS=eu&TARGETS=us'])
    }
  })

  it('one value in an array is one value: checked as one', async () => {
    const { client } = makeClient()
    const error = await jenkinsError(
      client.trigger(jobWith(DRY), job, { DRY: ['yes'] }),
      'bad-request'
    )
    expect(error.message).toContain("is 'yes', but a boolean parameter takes true or false")
  })

  it('a job with files (a multipart upload) is checked the same, before anything is sent', async () => {
    const { client } = makeClient()
    const upload = jobWith(DRY, { name: 'PKG', type: 'FileParameterDefinition' })
    const error = await jenkinsError(
      client.trigger(upload, job, { DRY: 'maybe' }, [
        { name: 'PKG', path: '/dev/null', fileName: 'null', size: 0 }
      ]),
      'bad-request'
    )
    expect(error.message).toContain("Parameter 'DRY' of job 'deploy' is 'maybe'")
    expect(client.http.requestCounts.total ?? 0).toBe(0)
  })
})
