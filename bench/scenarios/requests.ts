/** Requests per run for a 1-minute build: the job's first build (no estimate), then a repeat (with one). */
import type { JobSpec } from '../../test-server/index.js'
import type { Row, Scenario, Section } from '../scenario.js'
import { kinds, requestRate, wallMs } from '../figures.js'
import { ADMIN, closeServer, job, server, user } from '../runners/jenkins.js'
import { expectSuccess, runBaseline, runOurs, type RunRecord } from '../runners/runs.js'
import { todayBundle } from '../runners/today.js'
import { DEFAULT_POLL_POLICY as P } from '../../src/follow/poll-policy.js'
import {
  formatMb,
  formatMs,
  formatRate,
  formatSeconds as S,
  markdownTable,
  ratio
} from '../stats.js'
import { log } from '../util.js'

/** Four builds at once (log on, log off, today's, baseline), each with its executor. */
const EXECUTORS = 4

const settings = (quick: boolean): { buildMs: number } => ({ buildMs: quick ? 15_000 : 60_000 })

interface Runs {
  first: { logOn: RunRecord; logOff: RunRecord; today: RunRecord }
  repeat: { logOn: RunRecord; logOff: RunRecord; today: RunRecord; baseline: RunRecord }
}

async function measure(buildMs: number): Promise<Runs> {
  const users = [user('req-on'), user('req-off'), user('req-base'), user('req-today')] as const
  const lines = Array.from({ length: Math.round(buildMs / 1000) }, (_, i) => `step ${i + 1}`)
  const spec = (): JobSpec => job(buildMs, { consoleLines: lines })
  const jenkins = await server({
    users: [...users, ADMIN],
    executors: EXECUTORS,
    jobs: { 'long-on': spec(), 'long-off': spec(), 'long-base': spec(), 'long-today': spec() }
  })
  const kill = buildMs + 60_000
  const today = todayBundle()
  const pair = (round: string): Promise<[RunRecord, RunRecord, RunRecord]> =>
    Promise.all([
      runOurs({
        jenkins,
        user: users[0],
        job: 'long-on',
        id: `${round}-on`,
        rss: true,
        killAfterMs: kill
      }),
      runOurs({
        jenkins,
        user: users[1],
        job: 'long-off',
        id: `${round}-off`,
        inputs: { log: 'false' },
        rss: true,
        killAfterMs: kill
      }),
      runOurs({
        jenkins,
        user: users[3],
        job: 'long-today',
        id: `${round}-today`,
        rss: true,
        killAfterMs: kill,
        bundle: today
      })
    ])
  try {
    log(`requests: first build of a ${formatMs(buildMs)} job, log on and off`)
    const [firstOn, firstOff, firstToday] = await pair('first')
    log(`requests: repeat build (Jenkins now has an estimate), log on and off, and the baseline`)
    const [[logOn, logOff, repeatToday], baseline] = await Promise.all([
      pair('repeat'),
      runBaseline({
        jenkins,
        user: users[2],
        job: 'long-base',
        id: 'repeat-base',
        rss: true,
        killAfterMs: kill
      })
    ])
    return {
      first: {
        logOn: expectSuccess(firstOn),
        logOff: expectSuccess(firstOff),
        today: expectSuccess(firstToday)
      },
      repeat: {
        logOn: expectSuccess(logOn),
        logOff: expectSuccess(logOff),
        today: expectSuccess(repeatToday),
        baseline: expectSuccess(baseline)
      }
    }
  } finally {
    await closeServer(jenkins)
  }
}

const WHY_RATE =
  "With log on, the console's pace sets the rate: a poll every 1.9 s while it grows (the 2 s lag target), plus the run's fixed requests and the polls aimed at the expected end (src/follow/poll-policy.ts)."

function section(runs: Runs, buildMs: number): Section {
  const r = runs.repeat
  const longLabel = buildMs === 60_000 ? '1-minute' : `${formatMs(buildMs)}`
  const rateBase = requestRate(r.baseline)
  const requestRow = (log: 'on' | 'off', run: RunRecord): Row => ({
    metric: `requests per run, ${longLabel} build, log ${log}`,
    ours: `${run.requests.length}`,
    ...(log === 'on' ? { today: `${r.today.requests.length}` } : {}),
    baseline: `${r.baseline.requests.length}`,
    ratio: ratio(run.requests.length, r.baseline.requests.length),
    target: '',
    met: undefined
  })
  const rateRow = (log: 'on' | 'off', run: RunRecord): Row => {
    const rate = requestRate(run)
    return {
      metric: `requests per second per followed build, ${longLabel} build, log ${log}`,
      ours: formatRate(rate),
      ...(log === 'on' ? { today: formatRate(requestRate(r.today)) } : {}),
      baseline: formatRate(rateBase),
      ratio: ratio(rate, rateBase),
      target: '≤ 1/s',
      met: rate <= 1,
      missedBy: formatRate(rate - 1),
      why: WHY_RATE
    }
  }
  const kindList = (k: Record<string, number>): string =>
    Object.entries(k)
      .map(([name, count]) => `${name} ${count}`)
      .join(', ')
  const kindTable = markdownTable(
    ['run', 'requests', 'by kind', 'step wall time', 'req/s', 'peak RSS'],
    (
      [
        ['ours, first build (no estimate), log on', runs.first.logOn],
        ['ours, first build (no estimate), log off', runs.first.logOff],
        ['today (before #10), first build, log on', runs.first.today],
        ['ours, repeat build, log on', r.logOn],
        ['ours, repeat build, log off', r.logOff],
        ['today (before #10), repeat build, log on', r.today],
        ['baseline', r.baseline]
      ] as const
    ).map(([label, x]) => [
      label,
      `${x.requests.length}`,
      kindList(kinds(x)),
      S(wallMs(x)),
      formatRate(requestRate(x)),
      formatMb(x.peakRssBytes ?? NaN)
    ])
  )
  return {
    settings: [
      `- Requests: a ${longLabel} build with ${Math.round(buildMs / 1000)} console lines; ours with log on and off and today's with log on, first as the job's first build (Jenkins has no estimate), then as a repeat (the figures in the table); the baseline alongside the repeat. Every request of a run is attributed by its user (each run has its own).`
    ],
    executors: EXECUTORS,
    rows: [
      requestRow('on', r.logOn),
      requestRow('off', r.logOff),
      rateRow('on', r.logOn),
      rateRow('off', r.logOff)
    ],
    details: [`### Requests per run, ${longLabel} build`, '', kindTable],
    notes: [
      `- **Requests**: with log on, ours reads the console (\`log\` requests), which is also the end signal: the build JSON is read once, after the log closed (today's read it once more at the start). With log off it polls the build JSON (a \`tree\` of 8 fields), backing off with the build's age up to 5 s and aiming at the expected end. Per minute of this build (a console line a second), ours made ${r.logOn.requests.length} requests and today's ${r.today.requests.length}.`,
      `- **A job's first build** has no \`estimatedDuration\`: ours polls it every ${formatMs(P.youngMs)} for its first ${formatMs(P.youngForMs)}, then at the console's pace (every ${formatMs(P.liveMs)} while it grows), which made ${formatRate(requestRate(runs.first.logOn))} over this build (log on; ${formatRate(requestRate(runs.first.logOff))} log off; today's ${formatRate(requestRate(runs.first.today))}).`
    ]
  }
}

export const requests: Scenario = {
  name: 'requests',
  summary: "requests per run and per second over a 1-minute build, the job's first and a repeat",
  async run(context) {
    const { buildMs } = settings(context.quick)
    return section(await measure(buildMs), buildMs)
  }
}
