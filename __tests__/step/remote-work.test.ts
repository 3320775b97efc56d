import { describe, expect, it } from 'vitest'
import { State } from '../../src/util/constants.js'
import { RemoteWork, savedTargets, savedWork } from '../../src/step/remote-work.js'

const api = {
  buildUrl: (job: readonly string[], n: number) => `https://ci/job/${job.join('/job/')}/${n}/`
}

function ledger(jobs: string[][]) {
  const state: Record<string, string> = {}
  const l = new RemoteWork(
    { job: [], jobs: jobs.map(job => ({ job })) },
    { saveState: (name, value) => (state[name] = value) }
  )
  return { l, state }
}

describe('RemoteWork', () => {
  it('saves what may still run for the post step, and says when nothing does', () => {
    const { l, state } = ledger([['a'], ['b']])
    expect(l.anything).toBe(false)
    l.queued(0, 11, false)
    expect(state[State.Done]).toBe('false')
    expect(JSON.parse(state[State.Builds] as string)).toEqual([
      { job: ['a'], queueId: 11, own: 1, shared: false }
    ])
    l.queued(1, 12, false)
    l.started(0, { job: ['a'], number: 3, url: 'u' })
    l.finished(1)
    expect(JSON.parse(state[State.Builds] as string)).toEqual([
      { job: ['a'], queueId: 11, number: 3, own: 1, shared: false },
      { job: ['b'], queueId: 12, own: 1, shared: false, done: true }
    ])
    expect(savedTargets(state[State.Builds] as string, api).map(t => t.name)).toEqual(['a'])
    l.finished(0)
    expect(savedTargets(state[State.Builds] as string, api)).toEqual([])
    expect(state[State.Done]).toBe('true')
  })

  it('done, but for the jobs the abort could not reach: those stay for the post step', () => {
    const { l, state } = ledger([['a'], ['b']])
    l.queued(0, 11, false)
    l.queued(1, 12, false)
    l.done({ except: new Set(['b']) })
    expect(state[State.Done]).toBe('false')
    expect(savedTargets(state[State.Builds] as string, api).map(t => [t.name, t.queueId])).toEqual([
      ['b', 12]
    ])
    l.done()
    expect(state[State.Done]).toBe('true')
  })

  it('items folded into one queue item are one target counting them as its own requests', () => {
    const { l } = ledger([['app'], ['app'], ['other']])
    l.queued(0, 7, false)
    // Jenkins answered 303: the second request folded into the first's item.
    l.queued(1, 7, true)
    l.queued(2, 8, false)
    const targets = l.targets(api)
    expect(targets.map(t => [t.name, t.queueId, t.ownRequests, t.shared])).toEqual([
      ['app', 7, 2, false],
      ['other', 8, 1, false]
    ])
    expect(l.targetOf(1, api)?.shared).toBe(false)
  })

  it('an item whose every request folded into one already queued is shared: never ours to stop', () => {
    const { l } = ledger([['app']])
    l.queued(0, 7, true)
    expect(l.targetOf(0, api)?.shared).toBe(true)
    expect(l.targets(api)[0]?.shared).toBe(true)
  })

  it('a trigger cut by the cancel is a target too, to look for', () => {
    const { l } = ledger([['a']])
    const lost = { job: ['a'], parameters: new Map<string, string | undefined>() }
    l.maybeQueued(0, lost)
    expect(l.anything).toBe(true)
    expect(l.targets(api)).toEqual([{ name: 'a', job: ['a'], lostTrigger: lost }])
  })

  it('a build it did not start (build: last) is known but never a target nor saved', () => {
    const { l, state } = ledger([['a']])
    l.started(0, { job: ['a'], number: 5, url: 'u' })
    expect(l.item(0).ref?.number).toBe(5)
    expect(l.anything).toBe(false)
    expect(l.targets(api)).toEqual([])
    expect(savedTargets(state[State.Builds] as string, api)).toEqual([])
  })

  it("an item's note for the post step (returned, ended) is saved and deals with that item", () => {
    const { l, state } = ledger([['a'], ['b'], ['c']])
    l.queued(0, 1, false)
    l.queued(1, 2, false)
    l.queued(2, 3, false)
    l.noted(0, State.Returned, 'queue item 1 of a goes on in Jenkins (wait: false)')
    expect(state[State.Done]).toBe('false')
    l.noted(1, State.Returned, 'queue item 2 of b goes on in Jenkins (wait: false)')
    l.noted(2, State.Ended, 'queue item 3 was cancelled in Jenkins')
    expect(state[State.Returned]).toBe(
      'queue item 1 of a goes on in Jenkins (wait: false); queue item 2 of b goes on in Jenkins (wait: false)'
    )
    expect(state[State.Ended]).toBe('queue item 3 was cancelled in Jenkins')
    expect(state[State.Done]).toBe('true')
  })

  it('done() leaves nothing for the post step', () => {
    const { l, state } = ledger([['a']])
    l.queued(0, 1, false)
    l.done()
    expect(state[State.Done]).toBe('true')
    expect(l.targets(api)).toEqual([])
  })
})

describe('savedWork (the post step)', () => {
  const read = (state: Record<string, string>) => savedWork(key => state[key] ?? '')

  it('what the main step dealt with, the first note that says how', () => {
    const { l, state } = ledger([['a']])
    l.queued(0, 1, false)
    expect(read(state).dealt).toBe(false)
    l.leftRunning('https://ci/queue/item/1/')
    expect(read(state)).toEqual({ dealt: 'left running', shown: 'https://ci/queue/item/1/' })
    expect(read({ [State.Done]: 'true' })).toEqual({ dealt: 'finished', shown: '' })
  })

  it('work still running: its targets', () => {
    const { l, state } = ledger([['a']])
    l.queued(0, 1, false)
    const saved = read(state)
    expect(saved.dealt === false && saved.targets(api).map(t => t.queueId)).toEqual([1])
  })
})

describe('savedTargets (the post step)', () => {
  it('reads back what the main step saved, builds with their URL', () => {
    const { l, state } = ledger([['f', 'a'], ['b'], ['b']])
    l.queued(0, 1, false)
    l.started(0, { job: ['f', 'a'], number: 9, url: '' })
    l.queued(1, 2, false)
    l.queued(2, 2, true)
    expect(savedTargets(state[State.Builds] as string, api)).toEqual([
      {
        name: 'f/a',
        job: ['f', 'a'],
        queueId: 1,
        build: { job: ['f', 'a'], number: 9, url: 'https://ci/job/f/job/a/9/' },
        shared: false,
        ownRequests: 1
      },
      { name: 'b', job: ['b'], queueId: 2, build: undefined, shared: false, ownRequests: 2 }
    ])
  })

  it.each(['', 'not json', '{}', '[null, {"job": "x"}, {"job": [1]}]'])(
    'ignores a damaged state %j',
    text => {
      expect(savedTargets(text, api)).toEqual([])
    }
  )
})
