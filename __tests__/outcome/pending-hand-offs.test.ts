/**
 * Where a settle run looks (pending-hand-offs.ts), request by request with
 * nock: the two searches, the page its run number picks when there are
 * more than 100, the heads and statuses read once each, and which statuses
 * count as this action's hand-offs.
 */
import nock from 'nock'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { GithubSession } from '../../src/outcome/github-client.js'
import { pendingHandOffs, stillPending } from '../../src/outcome/pending-hand-offs.js'
import type { Logger } from '../../src/util/logger.js'
import { useGithubFetch } from '../fixtures/github-fetch.js'

const API = 'https://api.github.com'
const BASE = 'https://ci.example.com/jenkins'
const sha = (n: number): string => n.toString(16).padStart(40, 'c')

beforeEach(() => useGithubFetch())
beforeAll(() => nock.disableNetConnect())
afterAll(() => nock.enableNetConnect())
afterEach(() => {
  nock.cleanAll()
  vi.unstubAllEnvs()
})

function setup(
  o: { creator?: string; runNumber?: number; commit?: string; context?: string } = {}
) {
  const lines: string[] = []
  const logger: Logger = {
    debug: m => lines.push(`debug: ${m}`),
    info: m => lines.push(`info: ${m}`),
    warning: m => lines.push(`warning: ${m}`)
  }
  const session = new GithubSession({ token: 'ghs_settle0123456789', logger })
  vi.stubEnv('GITHUB_RUN_NUMBER', String(o.runNumber ?? 0))
  const settle = { creator: o.creator, context: o.context }
  const look = () =>
    pendingHandOffs({
      session,
      owner: 'o',
      repo: 'r',
      settings: { url: BASE, job: [], settle, commit: o.commit }
    })
  return { session, lines, look }
}

/** The search for `state`, page `page`, answering these pull request numbers of `total`. */
function search(state: string, numbers: number[], total = numbers.length, page = 1) {
  return nock(API)
    .get('/search/issues')
    .query({
      q: `repo:o/r is:pr is:open status:${state}`,
      sort: 'created',
      order: 'asc',
      per_page: '100',
      page: String(page)
    })
    .reply(200, { total_count: total, items: numbers.map(number => ({ number })) })
}

function status(fields: Record<string, unknown>) {
  return {
    state: 'pending',
    context: 'jenkins/app',
    description: 'Handed off to Jenkins: queue item 7',
    target_url: `${BASE}/job/app/`,
    creator: { login: 'github-actions[bot]' },
    ...fields
  }
}

describe('pendingHandOffs', () => {
  it('with nothing pending: the two searches alone', async () => {
    const a = search('pending', [])
    const b = search('failure', [])
    const { look } = setup()
    expect(await look()).toEqual([])
    expect(a.isDone() && b.isDone()).toBe(true)
  })

  it("takes only the latest status of a context that is this identity's hand-off below url", async () => {
    search('pending', [1])
    search('failure', [2])
    nock(API)
      .get('/repos/o/r/pulls/1')
      .reply(200, { head: { sha: sha(1) } })
    nock(API)
      .get('/repos/o/r/pulls/2')
      .reply(200, { head: { sha: sha(2) } })
    nock(API)
      .get(`/repos/o/r/commits/${sha(1)}/statuses`)
      .query({ per_page: '100' })
      .reply(200, [
        status({ context: 'mine' }),
        // Older than the first of its context: not the latest.
        status({ context: 'mine', description: 'Handed off to Jenkins: queue item 6' }),
        status({ context: 'theirs', creator: { login: 'mallory' } }),
        status({ context: 'elsewhere', target_url: 'https://evil.example.com/jenkins/job/app/' }),
        status({ context: 'typed', description: 'Handed off to Jenkins: queue item 7 ' }),
        status({ context: 'done', state: 'success' })
      ])
    nock(API)
      .get(`/repos/o/r/commits/${sha(2)}/statuses`)
      .query({ per_page: '100' })
      .reply(200, [
        status({ context: 'lint', state: 'failure', creator: { login: 'lint[bot]' } }),
        status({ context: 'build', description: 'Handed off to Jenkins: build #4' })
      ])
    const user = nock(API)
      .get('/user')
      .reply(403, { message: 'Resource not accessible by integration' })
    const { look, lines } = setup()
    const found = await look()
    expect(found.map(h => [h.sha, h.pull, h.context, h.job, h.handOff])).toEqual([
      [sha(1), 1, 'mine', ['app'], { queueId: 7 }],
      [sha(2), 2, 'build', ['app'], { build: 4 }]
    ])
    expect(user.isDone()).toBe(true)
    expect(lines).toContain(
      `debug: Settle: 'theirs' on #1 (${sha(1).slice(0, 12)}) was written by mallory, not by the github-token's identity (github-actions[bot]): left alone.`
    )
    expect(lines).toContain(
      `debug: Settle: 'elsewhere' on #1 (${sha(1).slice(0, 12)}) points at no job below ${BASE}: left alone, nothing is requested there.`
    )
    expect(nock.pendingMocks()).toEqual([])
  })

  it('reads the page its run number picks, at most 100 commits, and warns of the rest', async () => {
    search('pending', [1], 250)
    const third = search(
      'pending',
      Array.from({ length: 100 }, (_, i) => 201 + i),
      250,
      3
    )
    search('failure', [])
    for (let n = 201; n <= 300; n++) {
      nock(API)
        .get(`/repos/o/r/pulls/${n}`)
        .reply(200, { head: { sha: sha(n) } })
      nock(API)
        .get(`/repos/o/r/commits/${sha(n)}/statuses`)
        .query({ per_page: '100' })
        .reply(200, [])
    }
    // 3 pages: run 5 reads page 1 + 5 % 3 = 3.
    const { look, lines } = setup({ runNumber: 5 })
    expect(await look()).toEqual([])
    expect(third.isDone()).toBe(true)
    expect(lines.filter(l => l.startsWith('warning'))).toEqual([
      'warning: Settle: 150 more commits with a pending or failing status were left for a later run (at most 100 are read a run; each run reads the next ones).'
    ])
    expect(nock.pendingMocks()).toEqual([])
  })

  it('reads the commit input, once, with the given creator and context', async () => {
    search('pending', [3])
    search('failure', [])
    nock(API)
      .get('/repos/o/r/pulls/3')
      .reply(200, { head: { sha: sha(3) } })
    nock(API)
      .get(`/repos/o/r/commits/${sha(3)}/statuses`)
      .query({ per_page: '100' })
      .once()
      .reply(200, [
        status({ context: 'a', creator: { login: 'My-App[bot]' } }),
        status({ context: 'b', creator: { login: 'my-app[bot]' } })
      ])
    const { look } = setup({ commit: sha(3), creator: 'my-app[bot]', context: 'b' })
    const found = await look()
    expect(found.map(h => [h.sha, h.pull, h.context])).toEqual([[sha(3), undefined, 'b']])
    expect(nock.pendingMocks()).toEqual([])
  })
})

describe('stillPending', () => {
  it('is true only while the latest status of the context is that hand-off', async () => {
    const h = {
      sha: sha(9),
      context: 'jenkins/app',
      job: ['app'],
      handOff: { queueId: 7 },
      status: {
        state: 'pending' as const,
        context: 'jenkins/app',
        description: 'Handed off to Jenkins: queue item 7',
        targetUrl: `${BASE}/job/app/`,
        creator: 'github-actions[bot]'
      }
    }
    const { session, lines } = setup()
    const where = { session, owner: 'o', repo: 'r' }
    const statuses = nock(API)
      .get(`/repos/o/r/commits/${sha(9)}/statuses`)
      .query({ per_page: '100' })
    statuses.reply(200, [status({})])
    expect(await stillPending(where, h)).toBe(true)
    nock(API)
      .get(`/repos/o/r/commits/${sha(9)}/statuses`)
      .query({ per_page: '100' })
      .reply(200, [status({ description: 'Handed off to Jenkins: queue item 8' }), status({})])
    expect(await stillPending(where, h)).toBe(false)
    nock(API)
      .get(`/repos/o/r/commits/${sha(9)}/statuses`)
      .query({ per_page: '100' })
      .reply(200, [status({ state: 'success', description: 'Jenkins #3: SUCCESS' })])
    expect(await stillPending(where, h)).toBe(false)
    nock(API)
      .get(`/repos/o/r/commits/${sha(9)}/statuses`)
      .query({ per_page: '100' })
      .reply(500, { message: 'boom' })
    expect(await stillPending(where, h)).toBe(false)
    expect(lines.filter(l => l.startsWith('warning'))).toHaveLength(1)
  })
})
