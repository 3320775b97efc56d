/**
 * End to end: the pictures of the job summary — the stage timeline (a
 * Mermaid gantt block) of a Pipeline with a failed stage and a stage paused
 * at an `input`, of several jobs (a section per build), with hostile stage
 * names; the job's history line and `history` output; a freestyle build
 * without a chart. Every request checked is this run's own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startJenkins, type TestJenkins } from '../../test-server/index.js'
import { formatDuration } from '../../src/util/duration.js'
import { ADMIN_TOKEN, auth, describeRun, run, RUNTIMES, startBuild } from './helpers.js'

const ADMIN = `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}`

/** The ```mermaid blocks of a summary, as lines. */
function charts(summary: string): string[][] {
  const blocks: string[][] = []
  let open: string[] | undefined
  for (const line of summary.split('\n')) {
    if (open) {
      if (line.startsWith('```')) {
        blocks.push(open)
        open = undefined
      } else open.push(line)
    } else if (line === '```mermaid') open = []
  }
  expect(open, 'an unclosed code block').toBeUndefined()
  return blocks
}

/** What the gantt lexer makes of a task line: its title (up to `:`) and data (up to `#`/`;`). */
function bar(line: string): { title: string; tags: string; start: number; end: number } {
  const match = /^ {4}([^:\n]+) :([a-z, ]+?), (\d+), (\d+)$/.exec(line)
  expect(match, line).not.toBeNull()
  return {
    title: match?.[1] ?? '',
    tags: match?.[2] ?? '',
    start: Number(match?.[3]),
    end: Number(match?.[4])
  }
}

/** The chart's first lines: its axis depends on the stages' span (summary-timeline.ts axisTicks). */
const HEADER = [
  'gantt',
  '    dateFormat x',
  expect.stringMatching(/^ {4}axisFormat %H:%M(:%S(\.%L)?)?$/),
  expect.stringMatching(/^ {4}tickInterval [1-9]\d*(millisecond|second|minute)$/)
]
const STATEMENT =
  /^(gantt|dateformat|inclusiveenddates|topaxis|axisformat|tickinterval|includes|excludes|todaymarker|weekday|weekend|title|accdescription|acctitle|accdescr|section|click|href|call|\d{4}-\d\d-\d\d)/i

interface DescribedStage {
  name: string
  status: string
  startTimeMillis: number
  durationMillis: number
}

interface ListedBuild {
  number: number
  result: string | null
  duration: number
  building: boolean
}

/** The job's builds as the server lists them (newest first). */
async function listedBuilds(jenkins: TestJenkins, job: string): Promise<ListedBuild[]> {
  const tree = encodeURIComponent('builds[number,result,duration,building]{0,50}')
  const res = await fetch(`${jenkins.url}/job/${job}/api/json?tree=${tree}`, {
    headers: { authorization: ADMIN }
  })
  return ((await res.json()) as { builds: ListedBuild[] }).builds
}

async function describeStages(jenkins: TestJenkins, path: string): Promise<DescribedStage[]> {
  const res = await fetch(`${jenkins.url}${path}wfapi/describe`, {
    headers: { authorization: ADMIN }
  })
  return ((await res.json()) as { stages: DescribedStage[] }).stages
}

const HOSTILE = [
  'ends ``` the block',
  'key: value',
  '#1; crit',
  'two\nlines',
  '</details><img src=x onerror=alert(1)>',
  '%%{init: {"theme": "forest"}}%%',
  'click Build href "javascript:alert(1)"',
  '[a link](https://evil.example)'
]

describe.each(RUNTIMES)('summary pictures ($name)', ({ path: node }) => {
  let jenkins: TestJenkins
  let bare: TestJenkins
  beforeAll(async () => {
    bare = await startJenkins({
      stageView: false,
      quietPeriodSec: 0,
      jobs: {
        pipe: {
          type: 'pipeline',
          script: { stages: [{ name: 'Only', durationMs: 30, result: 'FAILURE' }] }
        }
      }
    })
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      executors: 8,
      jobs: {
        gate: {
          type: 'pipeline',
          script: {
            stages: [
              { name: 'Build', durationMs: 50 },
              { name: 'Test', durationMs: 50, result: 'FAILURE', catchError: true },
              { name: 'Approve', durationMs: 20, input: { message: 'Ship it?', id: 'Ship' } }
            ]
          }
        },
        hostile: {
          type: 'pipeline',
          script: { stages: HOSTILE.map(name => ({ name, durationMs: 10 })) }
        },
        // Stages whose start Jenkins reports past JavaScript's last date, or at the epoch.
        clocks: {
          type: 'pipeline',
          script: {
            stages: [
              { name: 'Build', durationMs: 20 },
              { name: 'Safe max', durationMs: 10, reportedStartMillis: Number.MAX_SAFE_INTEGER },
              {
                name: 'Past last date',
                durationMs: 10,
                reportedStartMillis: 8_640_000_000_000_001
              },
              { name: 'Epoch', durationMs: 10, reportedStartMillis: 1 },
              { name: 'Deploy', durationMs: 20 }
            ]
          }
        },
        'pipe-a': {
          type: 'pipeline',
          script: {
            stages: [
              { name: 'Compile', durationMs: 30 },
              { name: 'Check', durationMs: 30, result: 'UNSTABLE' }
            ]
          }
        },
        // A hostile job name Jenkins allows (checkGoodName refuses %, #, :, ;, < and > but not backticks).
        'pipe ```b': {
          type: 'pipeline',
          script: {
            stages: [
              { name: 'Unit', durationMs: 30 },
              { name: 'Lint', durationMs: 30, result: 'FAILURE' }
            ]
          }
        },
        free: { script: { durationMs: 50 } },
        solo: { script: { durationMs: 50 } },
        known: { script: { durationMs: 50, result: 'FAILURE' } }
      }
    })
    jenkins.addHistory(
      'known',
      Array.from({ length: 12 }, (_, i) => ({
        durationMs: 1000 * (i + 1),
        result: i % 4 === 3 ? ('FAILURE' as const) : ('SUCCESS' as const)
      }))
    )
  })
  afterAll(async () => {
    await jenkins.close()
    await bare.close()
  })

  describe.concurrent('charts', () => {
    it('draws a failed stage as crit and a stage paused at an input as active', async () => {
      const build = await startBuild(jenkins, 'gate')
      const path = `/job/gate/${build.number}/`
      const end = Date.now() + 20_000
      while (
        !(await describeStages(jenkins, path)).some(s => s.status === 'PAUSED_PENDING_INPUT')
      ) {
        if (Date.now() > end) throw new Error('the build never paused at its input')
        await new Promise(resolve => setTimeout(resolve, 50))
      }
      const mark = jenkins.requests.length
      const r = await run(node, { ...auth(jenkins), job: 'gate', build: 'last', wait: 'started' })
      const during = jenkins.requests.slice(mark)
      expect(r.code, describeRun(r)).toBe(0)
      expect(r.outputs['build-number']).toBe(String(build.number))
      const described = await describeStages(jenkins, path)
      const [chart, ...more] = charts(r.summary)
      expect(more).toEqual([])
      expect(chart?.slice(0, HEADER.length)).toEqual(HEADER)
      const bars = (chart ?? []).slice(HEADER.length).map(bar)
      expect(bars.map(b => [b.title, b.tags])).toEqual([
        ['Build', 'done'],
        ['Test (failed)', 'crit'],
        ['Approve (waiting for input)', 'active']
      ])
      // Each bar starts where Jenkins says the stage started; finished ones end where it ended.
      expect(bars.map(b => b.start)).toEqual(described.map(s => s.startTimeMillis))
      expect(bars.slice(0, 2).map(b => b.end - b.start)).toEqual(
        described.slice(0, 2).map(s => s.durationMillis)
      )
      expect(r.summary).toContain('<h3>Stage timeline</h3>\n\n```mermaid\n')
      expect(JSON.parse(r.outputs.stages ?? '[]')).toEqual([
        expect.objectContaining({ name: 'Build', status: 'SUCCESS' }),
        expect.objectContaining({ name: 'Test', status: 'FAILED' }),
        expect.objectContaining({ name: 'Approve', status: 'PAUSED_PENDING_INPUT' })
      ])
      // One read of the stages, by this step.
      expect(during.filter(q => q.path === `${path}wfapi/describe`).map(q => q.status)).toEqual([
        200
      ])
      await fetch(`${jenkins.url}${path}input/Ship/abort`, {
        method: 'POST',
        headers: { authorization: ADMIN }
      })
    })

    it('hostile stage names end nothing and add nothing', async () => {
      const r = await run(node, { ...auth(jenkins), job: 'hostile' })
      expect(r.code, describeRun(r)).toBe(0)
      const [chart, ...more] = charts(r.summary)
      expect(more).toEqual([])
      expect(chart?.slice(0, HEADER.length)).toEqual(HEADER)
      const bars = (chart ?? []).slice(HEADER.length).map(bar)
      // One bar per stage: no name added a line of its own.
      expect(bars).toHaveLength(HOSTILE.length)
      for (const b of bars) {
        expect(b.tags).toBe('done')
        expect(b.title).not.toMatch(STATEMENT)
        expect(b.title).not.toMatch(/[`<>&"%#;:{}[\]\\|]/)
      }
      expect(bars.map(b => b.title)).toEqual([
        'ends the block',
        'key value',
        '1 crit',
        'two lines',
        '/details img src=x onerror=alert(1)',
        'init theme forest',
        '_click Build href javascript alert(1)',
        'a link (https //evil.example)'
      ])
      // Two fence lines in the whole summary: the chart's own.
      expect(r.summary.split('\n').filter(l => l.includes('```'))).toEqual(['```mermaid', '```'])
      expect(r.summary).not.toContain('</details>')
      expect(r.summary).not.toContain('<img')
      // The stages table has the names as escaped text; the chart none of their marks.
      expect(chart?.join('\n')).not.toMatch(/%%|<|`/)
    })

    it('stages at times Mermaid cannot place get no bar, the others do; all stay in the table', async () => {
      const r = await run(node, { ...auth(jenkins), job: 'clocks' })
      expect(r.code, describeRun(r)).toBe(0)
      const [chart, ...more] = charts(r.summary)
      expect(more).toEqual([])
      expect(chart?.slice(0, HEADER.length)).toEqual(HEADER)
      const bars = (chart ?? []).slice(HEADER.length).map(bar)
      expect(bars.map(b => b.title)).toEqual(['Build', 'Deploy'])
      for (const b of bars) expect(Number.isNaN(new Date(b.end).getTime())).toBe(false)
      const names = ['Build', 'Safe max', 'Past last date', 'Epoch', 'Deploy']
      expect(JSON.parse(r.outputs.stages ?? '[]')).toEqual(
        names.map(name => expect.objectContaining({ name }))
      )
      for (const name of names) expect(r.summary).toContain(`<td>${name}</td>`)
    })

    it('several jobs: one chart, a section per Pipeline build', async () => {
      const r = await run(node, {
        ...auth(jenkins),
        jobs: 'pipe-a\npipe ```b\nfree',
        accept: 'SUCCESS,UNSTABLE,FAILURE'
      })
      expect(r.code, describeRun(r)).toBe(0)
      const builds = JSON.parse(r.outputs.builds ?? '[]') as Array<{ job: string; number: number }>
      const number = (job: string): number | undefined => builds.find(b => b.job === job)?.number
      const [chart, ...more] = charts(r.summary)
      expect(more).toEqual([])
      expect(chart).toEqual([
        ...HEADER,
        `    section pipe-a #${number('pipe-a')}`,
        expect.stringMatching(/^ {4}Compile :done, \d+, \d+$/),
        expect.stringMatching(/^ {4}Check \(unstable\) :crit, done, \d+, \d+$/),
        `    section pipe b #${number('pipe ```b')}`,
        expect.stringMatching(/^ {4}Unit :done, \d+, \d+$/),
        expect.stringMatching(/^ {4}Lint \(failed\) :crit, \d+, \d+$/)
      ])
      // The chart follows the table, after a blank line (a fence right after HTML is not one).
      expect(r.summary).toMatch(/<\/table>\n<h3>Stage timeline<\/h3>\n\n```mermaid\n/)
      // The job name's backticks stay text everywhere else (the table escapes them).
      expect(r.summary.split('\n').filter(l => l.includes('```'))).toEqual(['```mermaid', '```'])
      expect(r.outputs.history).toBeUndefined()
    })

    it('a Jenkins without the Stage View plugin: no chart, no warning, the verdict as before', async () => {
      const r = await run(node, { ...auth(bare), job: 'pipe' })
      expect(r.code, describeRun(r)).toBe(1)
      expect(r.outputs.stages).toBe('[]')
      expect(r.outputs.history).toBe('[]')
      expect(r.summary).not.toContain('```')
      expect(r.stdout).not.toMatch(/^::warning/m)
      // Asked (at the end, and by the input watcher if the build outlived its first look), each a 404.
      const asked = bare.requests.filter(
        q => q.path === `/job/pipe/${r.outputs['build-number']}/wfapi/describe`
      )
      expect(asked.length).toBeGreaterThanOrEqual(1)
      expect(asked.every(q => q.status === 404)).toBe(true)
    })

    it('a freestyle build: no chart, no history line, an empty history, no error', async () => {
      const r = await run(node, { ...auth(jenkins), job: 'solo' })
      expect(r.code, describeRun(r)).toBe(0)
      expect(r.summary).not.toContain('```')
      expect(r.summary).not.toContain('Stage timeline')
      expect(r.summary).not.toContain('finished build(s)')
      const n = Number(r.outputs['build-number'])
      // Its first build: no earlier one.
      expect(n).toBe(1)
      expect(r.outputs.history).toBe('[]')
      expect(jenkins.requests.filter(q => q.path.startsWith(`/job/solo/${n}/wfapi`))).toEqual([])
      expect(r.stdout).not.toMatch(/^::(error|warning)/m)
    })
  })

  it("the history: the job's last 10 finished builds as a line and an output, from the job read", async () => {
    const earlier = (await listedBuilds(jenkins, 'known')).filter(b => !b.building)
    const since = jenkins.requests.length
    const r = await run(node, { ...auth(jenkins), job: 'known', accept: 'SUCCESS,FAILURE' })
    expect(r.code, describeRun(r)).toBe(0)
    const n = Number(r.outputs['build-number'])
    const expected = earlier
      .filter(b => b.number < n)
      .sort((a, b) => b.number - a.number)
      .slice(0, 10)
      .map(b => ({
        number: b.number,
        result: b.result,
        duration: b.duration,
        url: `${jenkins.url}/job/known/${b.number}/`
      }))
    expect(expected).toHaveLength(10)
    expect(JSON.parse(r.outputs.history ?? 'null')).toEqual(expected)
    const symbols = [...expected]
      .reverse()
      .map(b => `<a href="${b.url}">${b.result === 'SUCCESS' ? '✅' : '❌'}</a>`)
      .join(' ')
    const durations = expected.map(b => b.duration).sort((a, b) => a - b)
    const median = formatDuration(Math.round(((durations[4] ?? 0) + (durations[5] ?? 0)) / 2))
    expect(r.summary).toContain(
      `<p>Last 10 finished build(s), oldest first: ${symbols} — median duration ${median}.</p>`
    )
    // No request of its own: the job was read once, as before.
    const jobReads = jenkins.requests
      .slice(since)
      .filter(q => q.path === '/job/known/api/json' && q.query.includes('builds'))
    expect(jobReads).toHaveLength(1)

    // build: last reads them once: the builds before the one it reports.
    const last = await run(node, { ...auth(jenkins), job: 'known', build: 'last' })
    expect(last.code, describeRun(last)).toBe(1)
    expect(last.outputs['build-number']).toBe(String(n))
    expect(JSON.parse(last.outputs.history ?? 'null')).toEqual(expected)
    expect(last.summary).toContain(`oldest first: ${symbols} — median duration ${median}.</p>`)

    // wait: false costs nothing more either.
    const mark = jenkins.requests.length
    const quick = await run(node, { ...auth(jenkins), job: 'known', wait: 'false' })
    expect(quick.code, describeRun(quick)).toBe(0)
    expect(JSON.parse(quick.outputs.history ?? 'null')).toHaveLength(10)
    expect(
      jenkins.requests
        .slice(mark)
        .filter(q => q.method === 'GET' && q.path.startsWith('/job/known/'))
        .map(q => q.path)
    ).toEqual(['/job/known/api/json'])
  })
})
