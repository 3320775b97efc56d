/**
 * Several builds from one step (issue 13): twenty 1-minute builds followed
 * by one step with `jobs`, side by side with twenty single-job runs of the
 * action (a matrix: one runner per job); then many single-job runs at once
 * against one server, for what a busy repository costs its Jenkins.
 */
import os from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'
import {
  mulberry32,
  type BuildState,
  type JobSpec,
  type TestJenkins
} from '../../test-server/index.js'
import type { Row, Scenario, Section } from '../scenario.js'
import { ADMIN, closeServer, job, server, user } from '../runners/jenkins.js'
import { printedAt } from '../runners/records.js'
import { expectSuccess, runOurs, type RunRecord } from '../runners/runs.js'
import {
  countBy,
  formatRate,
  formatSeconds as S,
  markdownTable,
  median,
  percentile,
  ratio
} from '../stats.js'
import { log } from '../util.js'
import {
  CROWD_NICE,
  crowdFigures,
  crowdPlan,
  crowdTable,
  failuresNote,
  planText,
  steadyRateText,
  type Crowd
} from './jobs-crowd.js'

const SEED = 20_261_130

interface Settings {
  /** Builds in the one step, and single-job runs beside it. */
  builds: number
  buildMs: number
  /** Relative spread of the jobs' durations (uniform ± this share): a monorepo's jobs differ. */
  jitter: number
  history: number
  /** Single-job runs at once against one server. */
  crowds: number[]
  /** Their builds' length (longer for a large crowd: crowdPlan). */
  crowdBuildMs: number
}

const settings = (quick: boolean): Settings => ({
  builds: quick ? 6 : 20,
  buildMs: quick ? 15_000 : 60_000,
  jitter: 0.05,
  history: 5,
  crowds: quick ? [10, 20] : [50, 200],
  crowdBuildMs: quick ? 15_000 : 90_000
})

/** One build of a side: its job, its server state, and when the step reported its end. */
interface Followed {
  job: string
  build: BuildState
  /** When the step printed that it finished (epoch ms). */
  reportedAt: number
}

interface Side {
  label: string
  runs: RunRecord[]
  followed: Followed[]
  /** First spawn to last exit. */
  spanMs: number
  requests: number
  kinds: Record<string, number>
}

function followedBy(r: RunRecord, jenkins: TestJenkins, jobs: string[]): Followed[] {
  return jobs.map(name => {
    const build = jenkins.builds(name).find(b => b.parameters.RUN === r.id)
    if (!build || build.finishedAt === null) throw new Error(`bench: ${r.id} did not end ${name}`)
    return {
      job: name,
      build,
      reportedAt: printedAt(r, `Jenkins build ${name} #${build.number} finished:`)
    }
  })
}

function side(label: string, runs: RunRecord[], followed: Followed[]): Side {
  const start = Math.min(...runs.map(r => r.spawnAt))
  const end = Math.max(...runs.map(r => r.exitAt))
  const requests = runs.flatMap(r => r.requests)
  return {
    label,
    runs,
    followed,
    spanMs: end - start,
    requests: requests.length,
    kinds: countBy(requests, q => q.kind)
  }
}

const delays = (s: Side): number[] =>
  s.followed.map(f => f.reportedAt - (f.build.finishedAt as number))
const rate = (s: Side): number => s.requests / (s.spanMs / 1000)
/** What the step cost beyond its builds: its wall time minus the time from the first build's start to the last one's end. */
function overheadMs(s: Side): number {
  const first = Math.min(...s.followed.map(f => f.build.startedAt))
  const last = Math.max(...s.followed.map(f => f.build.finishedAt as number))
  return s.spanMs - (last - first)
}
/** Runner time billed: every run's wall time, summed (a matrix bills each runner). */
const runnerMs = (s: Side): number => s.runs.reduce((n, r) => n + (r.exitAt - r.spawnAt), 0)

async function measurePair(s: Settings): Promise<{ jobs: Side; singles: Side }> {
  const random = mulberry32(SEED)
  const draw = (): number => Math.round(s.buildMs * (1 + s.jitter * (2 * random() - 1)))
  const lines = Array.from({ length: Math.round(s.buildMs / 1000) }, (_, i) => `step ${i + 1}`)
  const plan = Array.from({ length: s.builds }, (_, i) => ({
    i,
    durationMs: draw(),
    history: Array.from({ length: s.history }, draw)
  }))
  const jobs: Record<string, JobSpec> = {}
  for (const p of plan) {
    // The same durations and history on both sides: a paired comparison.
    jobs[`several-${p.i}`] = job(p.durationMs, { consoleLines: lines })
    jobs[`single-${p.i}`] = job(p.durationMs, { consoleLines: lines })
  }
  const several = user('several')
  const singles = plan.map(p => user(`single-${p.i}`))
  const jenkins = await server({ users: [several, ...singles, ADMIN], executors: s.builds, jobs })
  try {
    for (const p of plan) {
      for (const prefix of ['several', 'single']) {
        jenkins.addHistory(
          `${prefix}-${p.i}`,
          p.history.map(durationMs => ({ durationMs }))
        )
      }
    }
    const kill = s.buildMs * 2 + 60_000
    const names = plan.map(p => `several-${p.i}`)
    log(`jobs: ${s.builds} builds from one step`)
    const one = expectSuccess(
      await runOurs({
        jenkins,
        user: several,
        job: names[0] as string,
        id: 'several',
        inputs: { job: '', jobs: names.join('\n') },
        killAfterMs: kill
      })
    )
    log(`jobs: ${s.builds} single-job runs at once`)
    const matrix = await Promise.all(
      plan.map(async p => {
        // A matrix's runners start within a moment of each other.
        await sleep(p.i * 50)
        return expectSuccess(
          await runOurs({
            jenkins,
            user: singles[p.i] as NonNullable<(typeof singles)[number]>,
            job: `single-${p.i}`,
            id: `single-${p.i}`,
            killAfterMs: kill
          })
        )
      })
    )
    return {
      jobs: side('one step, jobs', [one], followedBy(one, jenkins, names)),
      singles: side(
        'single-job runs',
        matrix,
        matrix.flatMap(r => followedBy(r, jenkins, [r.job]))
      )
    }
  } finally {
    await closeServer(jenkins)
  }
}

async function measureCrowd(n: number, baseBuildMs: number): Promise<Crowd> {
  const { spacingMs, buildMs } = crowdPlan(n, baseBuildMs)
  const lines = Array.from({ length: Math.round(buildMs / 1000) }, (_, i) => `step ${i + 1}`)
  const u = user('crowd')
  const jenkins = await server({
    users: [u, ADMIN],
    executors: n,
    jobs: { crowd: job(buildMs, { consoleLines: lines }, true) }
  })
  try {
    jenkins.addHistory(
      'crowd',
      Array.from({ length: 5 }, () => ({ durationMs: buildMs }))
    )
    log(
      `jobs: ${n} single-job runs at once against one server (${S(buildMs)} builds, start-ups ${spacingMs} ms apart)`
    )
    let load = NaN
    const firstEnd = setInterval(() => {
      if (jenkins.builds('crowd').some(b => b.finishedAt !== null)) {
        load = os.loadavg()[0] as number
        clearInterval(firstEnd)
      }
    }, 250)
    // A failed run is a figure of the crowd (crowdFigures), not the end of the bench.
    const runs = await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        // Start-ups spread as pushes to a busy repository's pull requests are,
        // and so that the start-ups do not measure this 2-core machine
        // (crowdPlan), every run following its build well before the
        // first one ends (the steady window).
        await sleep(i * spacingMs)
        return runOurs({
          jenkins,
          user: u,
          job: 'crowd',
          id: `crowd-${i}`,
          nice: CROWD_NICE,
          killAfterMs: buildMs * 3 + 120_000
        })
      })
    )
    clearInterval(firstEnd)
    const crowd = crowdFigures({
      runs,
      requests: jenkins.requests.filter(q => q.user === u.name),
      spacingMs,
      buildMs,
      load
    })
    if (crowd.failed > 0)
      log(`jobs: ${crowd.failed} of ${n} runs failed (first: ${crowd.firstFailure})`)
    return crowd
  } finally {
    await closeServer(jenkins)
  }
}

const RATE_TARGET = 2
const DELAY_TARGET = 1000

function kindList(k: Record<string, number>): string {
  return Object.entries(k)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, count]) => `${name} ${count}`)
    .join(', ')
}

function section(pair: { jobs: Side; singles: Side }, crowds: Crowd[], s: Settings): Section {
  const { jobs, singles } = pair
  const label = s.buildMs === 60_000 ? '1-minute' : `${S(s.buildMs)}`
  const what = `${s.builds} ${label} builds`
  const jobsDelays = delays(jobs)
  const singleDelays = delays(singles)
  const rows: Row[] = [
    {
      metric: `${what} from one step (jobs): requests per second at Jenkins`,
      ours: formatRate(rate(jobs)),
      baseline: `${formatRate(rate(singles))} (${s.builds} single-job runs)`,
      ratio: ratio(rate(jobs), rate(singles)),
      target: `≤ ${RATE_TARGET}/s`,
      met: rate(jobs) <= RATE_TARGET,
      missedBy: formatRate(rate(jobs) - RATE_TARGET),
      why: `Each build costs a few requests whatever the schedule (its job read, trigger, final read, console, queue item when it left the queue unseen): ${s.builds} of them over one ${label} step are most of this figure; the polls are rounds of computer/api/json for all builds at once (see the table).`
    },
    {
      metric: `${what} from one step (jobs): delay from each build's end to its report, median`,
      ours: S(median(jobsDelays)),
      baseline: `${S(median(singleDelays))} (single-job runs)`,
      ratio: ratio(median(jobsDelays), median(singleDelays)),
      target: '≤ 1 s',
      met: median(jobsDelays) <= DELAY_TARGET,
      missedBy: S(median(jobsDelays) - DELAY_TARGET),
      why: 'A build leaves the running list only once Jenkins has closed its log (the end gap of this server), then one read of its JSON reports it; rounds are densest near the builds’ expected ends.'
    },
    {
      metric: `${what} from one step (jobs): delay from each build's end to its report, p95`,
      ours: S(percentile(jobsDelays, 95)),
      baseline: `${S(percentile(singleDelays, 95))} (single-job runs)`,
      ratio: ratio(percentile(jobsDelays, 95), percentile(singleDelays, 95)),
      target: '',
      met: undefined
    },
    {
      metric: `${what} from one step (jobs): step overhead (wall time − the builds' span)`,
      ours: S(overheadMs(jobs)),
      baseline: `${S(median(singles.runs.map(r => r.exitAt - r.spawnAt - ((r.build?.finishedAt ?? NaN) - (r.build?.startedAt ?? NaN)))))} per run (median)`,
      ratio: '',
      target: '',
      met: undefined
    },
    {
      metric: `${what}: runner time billed`,
      ours: `${S(runnerMs(jobs))} (one runner)`,
      baseline: `${S(runnerMs(singles))} (${s.builds} runners)`,
      ratio: ratio(runnerMs(jobs), runnerMs(singles)),
      target: '',
      met: undefined
    }
  ]
  for (const c of crowds) {
    rows.push({
      metric: `${c.runs} single-job runs of ${S(c.buildMs)} builds at once: requests per second Jenkins receives (while all follow)`,
      ours: steadyRateText(c),
      baseline: '',
      ratio: '',
      target: '',
      met: undefined
    })
  }
  const perRunMedian = median(crowds.map(c => c.perRunRate))
  const table = markdownTable(
    ['side', 'requests', 'by kind', 'span', 'req/s', 'delay median / p95', 'runner time'],
    [jobs, singles].map(x => [
      x.label,
      `${x.requests}`,
      kindList(x.kinds),
      S(x.spanMs),
      formatRate(rate(x)),
      `${S(median(delays(x)))} / ${S(percentile(delays(x), 95))}`,
      S(runnerMs(x))
    ])
  )
  return {
    settings: [
      `- Several jobs: ${s.builds} jobs whose builds last ${label} ± ${Math.round(s.jitter * 100)} % (seeded; each job has ${s.history} earlier builds drawn the same way, so Jenkins has an estimate), one console line a second. Ours with \`jobs\` listing all ${s.builds} (one process); then ${s.builds} single-job runs of the action at once on a copy of the same jobs (a matrix: one process, one runner each, started 50 ms apart). The delay runs from the build's \`building: false\` to the step's \`finished\` line for it. Then single-job runs at once of a job with history, against one server: ${planText(crowds)}. Beyond 50 runs the start-ups are spread and the builds lengthened to twice the start-up window, so that the start-ups do not measure this 2-core machine and every run follows its build well before the first ends; the crowd's runs run at niceness ${CROWD_NICE}, so that the server, which shares the bench's process, goes first as Jenkins on its own machine would.`
    ],
    executors: Math.max(s.builds, ...crowds.map(c => c.runs)),
    rows,
    details: [
      `### ${what}: one step with jobs, and ${s.builds} single-job runs`,
      '',
      table,
      '',
      `### Many single-job runs against one Jenkins`,
      '',
      crowdTable(crowds)
    ],
    notes: [
      `- **Several jobs**: one step followed ${s.builds} builds with ${jobs.requests} requests (${formatRate(rate(jobs))} over ${S(jobs.spanMs)}); the ${s.builds} single-job runs made ${singles.requests} (${formatRate(rate(singles))}), ${ratio(singles.requests, jobs.requests)} as many. The step's polls are rounds: \`computer/api/json\` lists every running build (and \`queue/api/json\` while some wait), so one request watches them all, aimed at the earliest expected end; each build then costs one read of its JSON and one of its console once it ended, printed in its own group. Detection: median ${S(median(jobsDelays))} (p95 ${S(percentile(jobsDelays, 95))}) against ${S(median(singleDelays))} (p95 ${S(percentile(singleDelays, 95))}) for single runs, which read each console live.`,
      `- **A busy repository**: ${crowds.map(c => `${c.runs} runs at once cost Jenkins ${formatRate(c.steadyRate)} while they all followed their builds`).join('; ')} — about ${formatRate(perRunMedian)} per run, each reading its console live (a poll every 1.9 s while it grows) and aiming at the end. The rate grows with the number of runs: each run's schedule is its own (${crowds.length > 1 ? `per run ${crowds.map(c => formatRate(c.perRunRate)).join(' at ')}` : 'see above'}). The same 200 builds from ten steps of \`jobs\` (twenty each) would cost what ten of the several-jobs steps above cost: about ${formatRate(rate(jobs) * 10)}. ${failuresNote(crowds)}`
    ]
  }
}

export const jobs: Scenario = {
  name: 'jobs',
  summary:
    'twenty 1-minute builds from one step (jobs) vs twenty single-job runs; many single-job runs at once',
  async run(context) {
    const s = settings(context.quick)
    const pair = await measurePair(s)
    const crowds: Crowd[] = []
    for (const n of s.crowds) crowds.push(await measureCrowd(n, s.crowdBuildMs))
    return section(pair, crowds, s)
  }
}
