/**
 * Where a hand-off's work is (settle.ts whereIs): its queue item when that
 * item builds the hand-off's job; an item of another job (a queue numbered
 * afresh after a restart) is not its own, and its build is looked for by
 * queue id among the job's builds instead.
 */
import { describe, expect, it } from 'vitest'
import { whereIs } from '../../src/step/settle.js'
import type { StepRun } from '../../src/step/bounded-step.js'
import type { PendingHandOff } from '../../src/outcome/pending-hand-offs.js'
import { FakeApi } from '../fixtures/fake-api.js'

const handOff = (queueId: number): PendingHandOff =>
  ({
    sha: 'a'.repeat(40),
    context: 'jenkins/app',
    job: ['app'],
    handOff: { queueId }
  }) as unknown as PendingHandOff

function step(api: FakeApi): StepRun {
  return { api } as unknown as StepRun
}

describe('whereIs', () => {
  it("its own job's item, started: that build is read", async () => {
    const api = new FakeApi()
    api.queueAnswers = [
      { id: 7, task: { url: `${api.baseUrl}/job/app/` }, executable: { number: 3 } }
    ]
    api.buildAnswers = [{ building: false, result: 'SUCCESS' }]
    const where = await whereIs(step(api), handOff(7))
    expect(where).toMatchObject({ kind: 'ended', ref: { job: ['app'], number: 3 } })
    expect(api.calls).toEqual(['getQueueItem 7', 'getBuild 3'])
  })

  it("an item of another job: its build is never taken; the job's builds are searched by queue id", async () => {
    const api = new FakeApi()
    api.queueAnswers = [
      { id: 7, task: { url: `${api.baseUrl}/job/other/` }, executable: { number: 3 } }
    ]
    api.recent = [{ number: 12, queueId: 7 }]
    api.buildAnswers = [{ building: true }]
    const where = await whereIs(step(api), handOff(7))
    expect(where).toEqual({ kind: 'going', what: 'Jenkins build app #12 is still running' })
    expect(api.calls).toEqual(['getQueueItem 7', 'recentBuilds', 'getBuild 12'])
  })

  it("an item of another job, and none of the job's builds from it: no build, said so", async () => {
    const api = new FakeApi()
    api.queueAnswers = [{ id: 7, task: { url: `${api.baseUrl}/job/other/` } }]
    const where = await whereIs(step(api), handOff(7))
    expect(where).toEqual({
      kind: 'no-build',
      why: 'Jenkins no longer knows queue item 7, and no recent build of app came from it'
    })
  })
})
