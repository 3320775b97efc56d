/** Requests per run for a 1-minute build: the job's first build (no estimate), then a repeat (with one). */
import type { JobSpec } from '../../test-server/index.js'
import type { Row, Scenario, Section } from '../scenario.js'
import { kinds, requestRate, wallMs } from '../figures.js'
import { ADMIN, closeServer, job, server, user } from '../runners/jenkins.js'
import { expectSuccess, runBaseline, runOurs, type RunRecord } from '../runners/runs.js'
import {
  formatMb,
  formatMs,
  formatRate,
  formatSeconds as S,
  markdownTable,
  ratio
} from '../stats.js'
import { log } from '../util.js'

/** Three builds at once (log on, log off, baseline), each with its executor. */
const EXECUTORS = 3

const settings = (quick: boolean): { buildMs: number } => ({ buildMs: quick ? 15_000 : 60_000 })

interface Runs {
  first: { logOn: RunRecord; logOff: RunRecord }
  repeat: { logOn: RunRecord; logOff: RunRecord; baseline: RunRecord }
}

async function measure(buildMs: number): Promise<Runs> {
  const users = [user('req-on'), user('req-off'), user('req-base')] as const
  const lines = Array.from({ length: Math.round(buildMs / 1000) }, (_, i) => `step ${i + 1}`)
  const spec = (): JobSpec => job(buildMs, { consoleLines: lines })
  const jenkins = await server({
    users: [...users, ADMIN],
    executors: EXECUTORS,
    jobs: { 'long-on': spec(), 'long-off': spec(), 'long-base': spec() }
  })
  const kill = buildMs + 60_000
  const pair = (round: string): Promise<[RunRecord, RunRecord]> =>
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
      })
    ])
  try {
    log(`requests: first build of a ${formatMs(buildMs)} job, log on and off`)
    const [firstOn, firstOff] = await pair('first')
    log(`requests: repeat build (Jenkins now has an estimate), log on and off, and the baseline`)
    const [[logOn, logOff], baseline] = await Promise.all([
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
      first: { logOn: expectSuccess(firstOn), logOff: expectSuccess(firstOff) },
      repeat: {
        logOn: expectSuccess(logOn),
        logOff: expectSuccess(logOff),
        baseline: expectSuccess(baseline)
      }
    }
  } finally {
    await closeServer(jenkins)
  }
}

const WHY_RATE =
  "Polls are spaced by Jenkins' estimatedDuration (src/poll-policy.ts): slow while the end is far, fast around it; a larger slowMs or a smaller window of fast polls would lower the rate at the cost of detection delay."

function section(runs: Runs, buildMs: number): Section {
  const r = runs.repeat
  const longLabel = buildMs === 60_000 ? '1-minute' : `${formatMs(buildMs)}`
  const rateBase = requestRate(r.baseline)
  const requestRow = (log: 'on' | 'off', run: RunRecord): Row => ({
    metric: `requests per run, ${longLabel} build, log ${log}`,
    ours: `${run.requests.length}`,
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
        ['ours, repeat build, log on', r.logOn],
        ['ours, repeat build, log off', r.logOff],
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
      `- Requests: a ${longLabel} build with ${Math.round(buildMs / 1000)} console lines; ours with log on and off, first as the job's first build (Jenkins has no estimate), then as a repeat (the figures in the table); the baseline alongside the repeat. Every request of a run is attributed by its user (each run has its own).`
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
      `- **Requests**: with log on, ours reads the console (\`log\` requests) and the complete log doubles as the end signal, so the build JSON is polled only around the end; with log off it polls the build JSON (a \`tree\` of 8 fields). Polls are spaced by Jenkins' \`estimatedDuration\`: slow (2 s) while the end is far, fast (250 ms) around it.`,
      `- **A job's first build** has no \`estimatedDuration\`: ours then polls every 250 ms for 2 s, 500 ms until 10 s, then backs off with the build's age (elapsed ÷ 10, from 1 s up to 2 s), which made ${formatRate(requestRate(runs.first.logOn))} over this build (log on; ${formatRate(requestRate(runs.first.logOff))} log off). The price is a detection delay of up to 2 s (1 s on average) on a job's first build when it runs longer than 20 s; once the job has one finished build, polling follows Jenkins' estimate and drops to the table's figure.`
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
