import { describe, expect, it } from 'vitest'
import { resolveGivenBuild } from '../../src/follow/given-build.js'
import { InputError } from '../../src/util/input-error.js'
import type { BuildReference } from '../../src/inputs/build-reference.js'
import { FakeApi, notFound } from '../fixtures/fake-api.js'

const QUEUE_7: BuildReference = { kind: 'queue', id: 7, text: 'https://ci/queue/item/7/' }

function task(job: string) {
  return { name: job, url: `https://ci.example/job/${job}/` }
}

describe('resolveGivenBuild: a queue item URL', () => {
  it('takes an item of the job (names compared as Jenkins does, case aside)', async () => {
    const api = new FakeApi()
    api.queueAnswers = [{ id: 7, task: task('App') }]
    expect(await resolveGivenBuild(api, ['app'], QUEUE_7)).toEqual({
      queueId: 7,
      queueUrl: `${api.baseUrl}/queue/item/7/`
    })
    expect(api.calls).toEqual(['getQueueItem 7'])
  })

  it('refuses an item of another job, naming both', async () => {
    const api = new FakeApi()
    api.queueAnswers = [{ id: 7, task: task('other') }]
    await expect(resolveGivenBuild(api, ['app'], QUEUE_7)).rejects.toThrow(
      new InputError(
        "Input 'build' URL ('https://ci/queue/item/7/') is queue item 7 of job 'other', not of 'app' (input 'job'): follow a build of the job given in 'job'. Nothing was triggered."
      )
    )
  })

  it('refuses an item whose task names no job rather than pass it unchecked', async () => {
    const api = new FakeApi()
    api.queueAnswers = [{ id: 7, task: null }]
    await expect(resolveGivenBuild(api, ['app'], QUEUE_7)).rejects.toThrow(
      'but Jenkins did not say which job it is of'
    )
  })

  it('forgotten by Jenkins: taken when one of the job’s recent builds came from it', async () => {
    const api = new FakeApi()
    api.queueAnswers = [notFound()]
    api.recent = [
      { number: 3, queueId: 6 },
      { number: 2, queueId: 7 }
    ]
    expect(await resolveGivenBuild(api, ['app'], QUEUE_7)).toMatchObject({ queueId: 7 })
    expect(api.calls).toEqual(['getQueueItem 7', 'recentBuilds'])
  })

  it('forgotten by Jenkins and from none of the job’s recent builds: refused, saying so', async () => {
    const api = new FakeApi()
    api.queueAnswers = [notFound()]
    api.recent = [{ number: 3, queueId: 6 }]
    await expect(resolveGivenBuild(api, ['app'], QUEUE_7)).rejects.toThrow(
      "is queue item 7, which Jenkins no longer knows, and no recent build of job 'app' (input 'job') came from it"
    )
  })
})

describe('resolveGivenBuild: a permalink', () => {
  it("the job's lastSuccessfulBuild (a URL under Jenkins' own root URL): the build it names now", async () => {
    const api = new FakeApi()
    api.buildAnswers = [{ number: 12, result: 'SUCCESS' }]
    const latest: BuildReference = { kind: 'latest', mode: 'last-successful', text: 'x' }
    const start = await resolveGivenBuild(api, ['app'], latest)
    expect(start).toMatchObject({ build: { number: 12, result: 'SUCCESS' } })
    expect(api.calls).toEqual(['getBuild lastSuccessfulBuild'])
  })
})
