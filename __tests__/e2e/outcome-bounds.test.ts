/**
 * End to end: outputs and summaries stay bounded whatever Jenkins sends —
 * test counts that are not counts, 2,000 stages with 4 KB names, thirty
 * failed builds with long-named stages and tests at once, and a
 * 100,000-case report with long case names whose failures are at the end
 * (read within its byte budget, each case once). Every request checked is
 * this run's own (job and build number).
 */
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startJenkins, type JobSpec, type TestJenkins } from '../../test-server/index.js'
import { auth, describeRun, run, RUNTIMES } from './helpers.js'

/** GitHub's limit on one step's summary. */
const MIB = 1024 * 1024
/** The test report's byte budget (src/jenkins/reports/test-report.ts DEFAULT_BUDGET). */
const REPORT_BUDGET = 4 * MIB

/** Whether fenced code blocks and <details>, <table>, <pre> all close. */
function balanced(text: string): boolean {
  const fences = text.split('\n').filter(line => /^\s*```/.test(line)).length
  const count = (re: RegExp) => (text.match(re) ?? []).length
  return (
    fences % 2 === 0 &&
    count(/<details>/g) === count(/<\/details>/g) &&
    count(/<table>/g) === count(/<\/table>/g) &&
    count(/<pre>/g) === count(/<\/pre>/g)
  )
}

/** `n` stages, each named with `chars` characters, the last `last`. */
function stages(n: number, chars: number, last: 'SUCCESS' | 'UNSTABLE' = 'SUCCESS') {
  return Array.from({ length: n }, (_, i) => ({
    name: `stage ${String(i).padStart(4, '0')} `.padEnd(chars, 'x'),
    durationMs: 0,
    result: i === n - 1 ? last : ('SUCCESS' as const)
  }))
}

/** A failing job of the many: long stage names, 25 failed tests with long names and details. */
function failing(i: number): JobSpec {
  return {
    type: 'pipeline',
    script: {
      stages: stages(120, 300, 'UNSTABLE'),
      tests: {
        suites: [
          {
            name: `Suite${i}`,
            cases: Array.from({ length: 25 }, (_, k) => ({
              className: `com.example.many${i}.${'Long'.repeat(60)}Test`,
              name: `fails ${k} `.padEnd(300, 'y'),
              status: 'FAILED' as const,
              errorDetails: `expected ${k} `.padEnd(400, 'z')
            }))
          }
        ]
      }
    }
  }
}

const MANY = 30

/** The `tree` ranges of a report page: suites [from, to), cases [caseFrom, caseTo). */
function rangesOf(query: string): [number, number, number, number] | undefined {
  const m = /\]\{(\d+),(\d+)\}\]\{(\d+),(\d+)\},childReports/.exec(decodeURIComponent(query))
  return m ? [Number(m[3]), Number(m[4]), Number(m[1]), Number(m[2])] : undefined
}

describe.each(RUNTIMES)('outputs and summaries bounded ($name)', ({ path: node }) => {
  let jenkins: TestJenkins
  beforeAll(async () => {
    const jobs: Record<string, JobSpec> = {
      'huge-counts': {
        script: {
          durationMs: 50,
          claimedDuration: 1e21,
          result: 'UNSTABLE',
          tests: {
            suites: [{ name: 'S', cases: [{ className: 'a.B', name: 'c', status: 'FAILED' }] }],
            claims: { total: 1e21, skipped: 1e300 }
          }
        }
      },
      'long-stages': { type: 'pipeline', script: { stages: stages(2000, 4096) } },
      'long-report': {
        script: {
          durationMs: 50,
          result: 'UNSTABLE',
          tests: {
            total: 100_000,
            failed: 5,
            skipped: 0,
            failuresAt: 'end',
            casesPerSuite: 100,
            caseNameChars: 400
          }
        }
      }
    }
    for (let i = 0; i < MANY; i++) jobs[`many-${String(i).padStart(2, '0')}`] = failing(i)
    jenkins = await startJenkins({ quietPeriodSec: 0, executors: MANY + 4, jobs })
  })
  afterAll(() => jenkins.close())

  describe.concurrent('bounds', () => {
    it('counts that are not counts (tests, duration) are ignored with a warning; every count output is plain digits', async () => {
      const r = await run(node, { ...auth(jenkins), job: 'huge-counts', accept: 'UNSTABLE' })
      expect(r.code, describeRun(r)).toBe(0)
      expect(r.outputs['tests-total']).toBeUndefined()
      expect(r.outputs['tests-failed']).toBeUndefined()
      expect(r.outputs['tests-skipped']).toBeUndefined()
      expect(r.outputs['build-number']).toMatch(/^\d+$/)
      expect(r.outputs.duration).toBeUndefined()
      expect(r.stdout).toContain(
        `::warning::Ignored the duration Jenkins gave build #${r.outputs['build-number']} (1e+21): not a whole number of milliseconds. The duration output is not set.`
      )
      expect(r.summary).toContain('<tr><th>Duration</th><td>unknown</td></tr>')
      expect(r.stdout).toContain(
        '::warning::Ignored the test counts of "hudson.tasks.junit.TestResultAction": totalCount 1e+21, skipCount 1e+300 are not whole numbers from 0 to 9007199254740991.'
      )
      expect(r.summary).not.toMatch(/e\+\d/)
      for (const [name, value] of Object.entries(r.outputs)) {
        expect(value, name).not.toMatch(/^-?\d+(\.\d+)?e[+-]\d+$/i)
      }
    })

    it('2,000 stages with 4 KB names: the stages output is capped, valid JSON, with the warning docs/outputs.md quotes', async () => {
      const r = await run(node, { ...auth(jenkins), job: 'long-stages' })
      expect(r.code, describeRun(r)).toBe(0)
      const output = r.outputs.stages ?? ''
      expect(Buffer.byteLength(output)).toBeLessThanOrEqual(64 * 1024)
      const parsed = JSON.parse(output) as Array<{ name: string; status: string }>
      expect(parsed.length).toBeGreaterThan(0)
      expect(parsed[0]?.name).toBe(`stage 0000 `.padEnd(4096, 'x'))
      expect(parsed.every(s => s.status === 'SUCCESS')).toBe(true)
      const warning = r.stdout
        .split('\n')
        .find(line => line.startsWith('::warning::The stages output'))
      expect(warning, r.stdout).toBeDefined()
      // docs/outputs.md quotes this message, numbers aside, with the build's URL as <build-url>.
      const quoted =
        /step warns: `(The stages output [^`]+)`/.exec(
          readFileSync('docs/outputs.md', 'utf8')
        )?.[1] ?? ''
      const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      const pattern = quoted
        .split('<build-url>')
        .map(part => escape(part).replace(/\d+/g, '\\d+'))
        .join(escape(r.outputs['build-url'] ?? ''))
      expect(warning?.slice('::warning::'.length)).toMatch(new RegExp(`^${pattern}$`))
      expect(warning).toContain(`it lists the first ${parsed.length} of 500 stages.`)
      // Names are cut wherever they are printed: the summary's stage rows.
      expect(r.summary).toContain(`<td>stage 0000 ${'x'.repeat(188)}…</td>`)
      expect(r.summary).not.toContain('x'.repeat(200))
      expect(Buffer.byteLength(r.summary)).toBeLessThan(MIB)
      // 8 MB of stages to read and cap: on a busy machine this takes longer than the default 30 s.
    }, 120_000)

    it(`${MANY} failed builds with long-named stages and tests: the summary stays under 1 MiB, whole, and says what it left out`, async () => {
      const names = Array.from({ length: MANY }, (_, i) => `many-${String(i).padStart(2, '0')}`)
      const r = await run(
        node,
        { ...auth(jenkins), jobs: names.join('\n') },
        { killAfterMs: 90_000 }
      )
      expect(r.code, describeRun(r)).toBe(1)
      expect(Buffer.byteLength(r.summary)).toBeLessThan(MIB)
      expect(balanced(r.summary)).toBe(true)
      // The overview stays whole: one row per build.
      expect(r.summary).toContain('<h2>Jenkins builds</h2>')
      for (const name of names) expect(r.summary).toContain(`>${name}</a>`)
      const leftOut =
        /<p>✂️ This summary was cut to stay under GitHub&#39;s limit of 1 MiB for a step: left out (\d+) section\(s\) \((.*?)\)\. The build&#39;s pages in Jenkins have everything\.<\/p>\n$/.exec(
          r.summary
        )
      expect(leftOut, r.summary.slice(-2000)).not.toBeNull()
      expect(Number(leftOut?.[1])).toBeGreaterThan(0)
      expect(leftOut?.[2]).toMatch(
        /^&#39;many-\d\d &#35;\d+: UNSTABLE › (Failed tests|Stages)&#39;, &#39;many-\d\d/
      )
      expect(r.stdout).toMatch(
        /::warning::The job summary was \d+ KiB, over GitHub's limit of 1 MiB for a step: left out \d+ section\(s\)/
      )
      // docs/outputs.md quotes the line, numbers and the sections named aside.
      const quoted =
        /its last line says what was left out: `([^`]+)`/.exec(
          readFileSync('docs/outputs.md', 'utf8')
        )?.[1] ?? ''
      const [before, after] = quoted.split(/\(.*\)/)
      const line = (/<p>✂️ (.*)<\/p>\n$/.exec(r.summary)?.[1] ?? '').replace(
        /&#(\d+);/g,
        (_, code: string) => String.fromCodePoint(Number(code))
      )
      expect(line.replace(/\d+/g, 'N').startsWith((before ?? '').replace(/\d+/g, 'N'))).toBe(true)
      expect(line.endsWith(after ?? '')).toBe(true)
      expect(before).toContain('left out')
      // Names are cut in the summary's tables (links keep the whole page
      // address; console lines, quoted apart, are cut at 500 characters).
      const text = r.summary.replace(/href="[^"]*"/g, '').replace(/<pre>.*?<\/pre>/g, '')
      expect(text.includes('y'.repeat(200)), 'a test name longer than 200 characters').toBe(false)
      expect(text.includes('x'.repeat(200)), 'a stage name longer than 200 characters').toBe(false)
      expect(text).toContain(`>fails 0 ${'y'.repeat(191)}…</a>`)
    })

    it('a 100,000-case report with long case names and its failures at the end: read within the budget, each case once', async () => {
      const r = await run(
        node,
        { ...auth(jenkins), job: 'long-report', accept: 'SUCCESS,UNSTABLE' },
        { env: { RUNNER_DEBUG: '1' } }
      )
      expect(r.code, describeRun(r)).toBe(0)
      const n = r.outputs['build-number']
      expect([r.outputs['tests-total'], r.outputs['tests-failed']]).toEqual(['100000', '5'])
      const pages = jenkins.requests.filter(
        q => q.path === `/job/long-report/${n}/testReport/api/json` && q.user === 'admin'
      )
      // What the server handed over for this report, every request counted.
      const served = pages.reduce((sum, q) => sum + (q.bytes ?? 0), 0)
      expect(served).toBeLessThanOrEqual(REPORT_BUDGET)
      expect(served).toBeGreaterThan(REPORT_BUDGET / 2)
      const read = /Read (\d+) test cases \((\d+) bytes, (\d+) request\(s\)\)/.exec(r.stdout)
      expect(read, r.stdout).not.toBeNull()
      expect(Number(read?.[2])).toBe(served)
      expect(Number(read?.[3])).toBe(pages.length)
      // No case asked for twice.
      const asked = new Set<string>()
      let cases = 0
      for (const page of pages) {
        const ranges = rangesOf(page.query)
        if (!ranges) continue
        const [from, to, caseFrom, caseTo] = ranges
        for (let s = from; s < Math.min(to, 1000); s++) {
          for (let c = caseFrom; c < Math.min(caseTo, 100); c++) {
            const key = `${s}:${c}`
            expect(asked.has(key), key).toBe(false)
            asked.add(key)
            cases++
          }
        }
      }
      expect(cases).toBeGreaterThanOrEqual(Number(read?.[1]))
      expect(r.summary).toContain(
        `0 of 5 failed tests shown. The report is too large to read whole: these come from its first ${read?.[1]} of 100000 tests.`
      )
      console.log(
        `long-report: ${served} bytes served in ${pages.length} requests for ${read?.[1]} cases (budget ${REPORT_BUDGET})`
      )
    })
  })
})
