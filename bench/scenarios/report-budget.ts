/**
 * The test report's byte budget held against reports whose cases are longer
 * than the test server's (issue 19): a 100,000-case report, its failures at
 * its end (never reached, so the budget is what stops the read), with case
 * names of the default length and several times it. Bytes are what the
 * server handed over for the report's requests (RequestLogEntry.bytes), so
 * a client that read past its budget, or read a page twice, would show.
 */
import { startAction } from '../../scripts/action-runner.js'
import type { TestJenkins } from '../../test-server/index.js'
import type { Scenario, Section } from '../scenario.js'
import { ADMIN, closeServer, server } from '../runners/jenkins.js'
import { adopt, forget, NODE } from '../runners/processes.js'
import { formatMb, formatMs, median } from '../stats.js'
import { log, until } from '../util.js'

/** DEFAULT_BUDGET.totalBytes in src/jenkins/reports/test-report.ts. */
const BUDGET = 4 * 1024 * 1024
const CASES = 100_000

/** Case names: the test server's own (`case000042`, 10 characters), then 10×, 40× and 100× as long. */
const NAME_CHARS = [10, 100, 400, 1000] as const

interface Run {
  bytes: number
  requests: number
  cases: number
  /** Bytes the action counted itself (its debug line): the same figure when nothing was cut. */
  counted: number
  /** Cases asked for more than once. */
  again: number
  ms: number
}

interface Shape {
  nameChars: number
  /** Bytes per case in the page JSON, from the runs. */
  perCase: number
  runs: Run[]
}

const TOKEN_AUTH = `${ADMIN.name}:${ADMIN.apiToken}`

/** Cases the pages asked for twice, from their `{from,to}` ranges. */
function askedAgain(queries: string[]): number {
  const seen = new Set<string>()
  let again = 0
  for (const query of queries) {
    const m = /\]\{(\d+),(\d+)\}\]\{(\d+),(\d+)\},childReports/.exec(decodeURIComponent(query))
    if (!m) continue
    const [caseFrom, caseTo, from, to] = m.slice(1).map(Number) as [number, number, number, number]
    for (let s = from; s < Math.min(to, CASES / 100); s++) {
      for (let c = caseFrom; c < Math.min(caseTo, 100); c++) {
        const key = `${s}:${c}`
        if (seen.has(key)) again++
        seen.add(key)
      }
    }
  }
  return again
}

async function once(jenkins: TestJenkins, job: string): Promise<Run> {
  const since = Date.now()
  const running = startAction(
    {
      url: jenkins.url,
      user: ADMIN.name,
      token: ADMIN.apiToken ?? '',
      job,
      build: 'last',
      accept: 'SUCCESS,UNSTABLE'
    },
    { node: NODE.path, killAfterMs: 300_000, env: { RUNNER_DEBUG: '1' } }
  )
  adopt(running.child)
  try {
    const result = await running.done
    const ms = Date.now() - since
    if (result.code !== 0) throw new Error(`bench: a run failed (exit ${result.code})`)
    const read = /Read (\d+) test cases \((\d+) bytes, (\d+) request\(s\)\)/.exec(result.stdout)
    if (!read) throw new Error(`bench: no read figures in the ${job} run`)
    const pages = jenkins.requests.filter(
      q => q.time >= since && q.path === `/job/${job}/1/testReport/api/json`
    )
    return {
      bytes: pages.reduce((sum, q) => sum + (q.bytes ?? 0), 0),
      requests: pages.length,
      cases: Number(read[1]),
      counted: Number(read[2]),
      again: askedAgain(pages.map(q => q.query)),
      ms
    }
  } finally {
    forget(running.child)
  }
}

async function measure(runs: number): Promise<Shape[]> {
  const jobs = Object.fromEntries(
    NAME_CHARS.map(chars => [
      `report-${chars}`,
      {
        script: {
          durationMs: 10,
          result: 'UNSTABLE' as const,
          tests: {
            total: CASES,
            failed: 25,
            skipped: 100,
            failuresAt: 'end' as const,
            caseNameChars: chars
          }
        }
      }
    ])
  )
  const jenkins = await server({ users: [ADMIN], jobs })
  const auth = { authorization: `Basic ${Buffer.from(TOKEN_AUTH).toString('base64')}` }
  try {
    const shapes: Shape[] = []
    for (const chars of NAME_CHARS) {
      const job = `report-${chars}`
      await fetch(`${jenkins.url}/job/${job}/build?delay=0sec`, { method: 'POST', headers: auth })
      await until(() => jenkins.builds(job).some(b => !b.building), 60_000, `the ${job} build`)
      log(`report-budget: ${CASES} cases named with ${chars} characters, ${runs} runs`)
      const shape: Shape = { nameChars: chars, perCase: 0, runs: [] }
      for (let i = 0; i < runs; i++) shape.runs.push(await once(jenkins, job))
      shape.perCase = median(shape.runs.map(r => r.bytes / Math.max(1, r.cases)))
      shapes.push(shape)
    }
    return shapes
  } finally {
    await closeServer(jenkins)
  }
}

function section(shapes: Shape[], runs: number): Section {
  const base = shapes[0]?.perCase ?? 1
  return {
    settings: [
      `- Report budget: 100,000-case reports (25 failed at the end, 100 skipped, 100 cases per suite) with case names of ${NAME_CHARS.join(', ')} characters (the test server's own is 10), ${runs} runs each. Bytes are what the server handed over for the report's requests (its request log), against the 4 MiB budget.`
    ],
    rows: shapes.map(shape => {
      const bytes = median(shape.runs.map(r => r.bytes))
      const most = Math.max(...shape.runs.map(r => r.bytes))
      const again = Math.max(...shape.runs.map(r => r.again))
      return {
        metric: `bytes read for a 100,000-case report, ${shape.nameChars}-character case names (${(shape.perCase / base).toFixed(1)}× the bytes per case), failures at its end (median)`,
        ours: `${bytes.toLocaleString('en-US')} bytes (${formatMb(bytes)}) in ${median(shape.runs.map(r => r.requests))} requests (${median(shape.runs.map(r => r.cases)).toLocaleString('en-US')} cases; most ${most.toLocaleString('en-US')}; ${again} read twice)`,
        baseline: `${BUDGET.toLocaleString('en-US')} bytes (budget)`,
        ratio: (bytes / BUDGET).toFixed(2),
        target: '≤ budget, every run; nothing read twice',
        met: most <= BUDGET && again === 0,
        missedBy: formatMb(most - BUDGET),
        why: 'A page cut at its limit shows here as what the server handed over, more than the client read.'
      }
    }),
    notes: [
      `- **Report budget**: the first page is the first suite's first 200 cases; later pages are sized from the bytes per suite and per case read so far, within what is left of the budget (a page aims at 256 KiB and may not pass 1 MiB or the budget); a page larger than its limit is cut off and used up to its last whole case. Per run the action counted the same bytes as the server served (${shapes.every(s => s.runs.every(r => r.counted === r.bytes)) ? 'every run' : 'not every run: a page was cut'}). Wall time per run (median): ${shapes.map(s => `${s.nameChars} characters ${formatMs(median(s.runs.map(r => r.ms)))}`).join(', ')}.`
    ]
  }
}

export const reportBudget: Scenario = {
  name: 'report-budget',
  summary: 'bytes read against the 4 MiB budget for 100,000-case reports with long case names',
  async run(context) {
    const runs = context.quick ? 3 : 5
    return section(await measure(runs), runs)
  }
}
