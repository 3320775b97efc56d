/** Time to start and start-up: one run at a time on an idle server. */
import type { BenchContext, Scenario, Section } from '../scenario.js'
import { firstRequestMs, timeToStartMs, triggerMs } from '../figures.js'
import {
  ADMIN,
  closeServer,
  idle,
  job,
  QUIET_PERIOD_SEC,
  server,
  user
} from '../runners/jenkins.js'
import { describeFailure, runBaseline, runOurs, type RunRecord } from '../runners/runs.js'
import { todayBundle } from '../runners/today.js'
import { formatMs, formatRange, formatSeconds as S, median, ratio } from '../stats.js'
import { log, until } from '../util.js'

const settings = (quick: boolean): { runs: number } => ({ runs: quick ? 3 : 10 })

interface Runs {
  ours: RunRecord[]
  today: RunRecord[]
  baseline: RunRecord[]
}

async function measure(runs: number): Promise<Runs> {
  const u = user('idle')
  const jenkins = await server({ users: [u, ADMIN], jobs: { app: job(300) } })
  const ours: RunRecord[] = []
  const today: RunRecord[] = []
  const baseline: RunRecord[] = []
  const todayPath = todayBundle()
  try {
    for (let i = 0; i < runs; i++) {
      log(`idle start ${i + 1}/${runs}`)
      // Alternating which goes first, so neither always meets a cold machine.
      const pair = [
        ['ours', ours],
        ['today', today]
      ] as const
      for (const [side, list] of i % 2 === 0 ? pair : [...pair].reverse()) {
        const o = await runOurs({
          jenkins,
          user: u,
          job: 'app',
          id: `idle-${side}-${i}`,
          inputs: { wait: 'started' },
          killAfterMs: 60_000,
          bundle: side === 'today' ? todayPath : undefined
        })
        if (o.code !== 0 || !o.build) throw new Error(`bench: a run failed.\n${describeFailure(o)}`)
        list.push(o)
        await until(() => idle(jenkins), 30_000, 'an idle server')
      }
      const b = await runBaseline({
        jenkins,
        user: u,
        job: 'app',
        id: `idle-base-${i}`,
        stopWhenStarted: true,
        killAfterMs: 60_000
      })
      if (!b.build) throw new Error(`bench: a run failed.\n${describeFailure(b)}`)
      baseline.push(b)
      await until(() => idle(jenkins), 30_000, 'an idle server')
    }
  } finally {
    await closeServer(jenkins)
  }
  return { ours, today, baseline }
}

function section(runs: Runs, count: number, context: BenchContext): Section {
  const med = (f: (r: RunRecord) => number) => ({
    ours: median(runs.ours.map(f)),
    today: median(runs.today.map(f)),
    base: median(runs.baseline.map(f))
  })
  const tts = med(timeToStartMs)
  const first = med(firstRequestMs)
  const trigger = med(triggerMs)
  const before = med(r => triggerMs(r) - firstRequestMs(r))
  return {
    settings: [
      `- Time to start and start-up: ${count} runs per side (ours, today's, the baseline), one at a time on an idle server (ours and today's with \`wait: started\`; the baseline stopped once its build had a number), a 300 ms job.`
    ],
    rows: [
      {
        metric: 'time to start (process start → build has a number), median',
        ours: S(tts.ours),
        today: S(tts.today),
        baseline: S(tts.base),
        ratio: ratio(tts.ours, tts.base),
        target: '≤ 1 s',
        met: tts.ours <= 1000,
        missedBy: S(tts.ours - 1000),
        why: 'What remains after delay=0sec is Node and bundle start-up, then the crumb and the job GET (together), then the trigger; on a loaded 2-core machine start-up dominates (see the start-up row).'
      },
      {
        metric: 'spawn → trigger request, median',
        ours: formatMs(trigger.ours),
        today: formatMs(trigger.today),
        baseline: formatMs(trigger.base),
        ratio: ratio(trigger.ours, trigger.base),
        target: '',
        met: undefined
      },
      {
        metric: 'start-up (process start → first request), median',
        ours: formatMs(first.ours),
        today: formatMs(first.today),
        baseline: formatMs(first.base),
        ratio: ratio(first.ours, first.base),
        target: '',
        met: undefined
      },
      {
        metric: 'first request → trigger request (the requests the trigger waits for), median',
        ours: formatMs(before.ours),
        today: formatMs(before.today),
        baseline: formatMs(before.base),
        ratio: ratio(before.ours, before.base),
        target: '',
        met: undefined
      }
    ],
    notes: [
      `- **Time to start**: ours triggers with \`delay=0sec\`, so the build starts as soon as the trigger arrives; what remains is process start-up, the crumb and one job GET (sent together), and the trigger (range over runs ${formatRange(runs.ours.map(timeToStartMs))}). The baseline waits out the ${QUIET_PERIOD_SEC} s quiet period (range ${formatRange(runs.baseline.map(timeToStartMs))}).`,
      `- **Spawn to trigger**: ours ${formatMs(trigger.ours)} (today's ${formatMs(trigger.today)}), of which ${formatMs(first.ours)} is start-up under Node ${context.node.version} (Node itself and loading a ${(context.bundleBytes / 1024).toFixed(0)} KiB bundle) and ${formatMs(before.ours)} the crumb and the job GET the trigger needs (sent together; the trigger needs the job's parameter definitions, and the crumb with password authentication). The baseline's ${formatMs(first.base)} start-up loads a 4 KiB script.`
    ]
  }
}

export const idleStart: Scenario = {
  name: 'idle-start',
  summary: 'time to start and start-up, one run at a time on an idle server',
  async run(context) {
    const { runs } = settings(context.quick)
    return section(await measure(runs), runs, context)
  }
}
