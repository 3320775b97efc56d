/** N simultaneous runs of one job with distinct parameters: how many report their own build. */
import type { Scenario, Section } from '../scenario.js'
import { ADMIN, closeServer, job, server, user } from '../runners/jenkins.js'
import { runBaseline, runOurs, type RunRecord } from '../runners/runs.js'
import { ratio } from '../stats.js'
import { log } from '../util.js'

const settings = (quick: boolean): { runs: number } => ({ runs: quick ? 10 : 50 })

interface Runs {
  ours: RunRecord[]
  baseline: RunRecord[]
}

async function measure(n: number): Promise<Runs> {
  const u = user('many')
  const jenkins = await server({
    users: [u, ADMIN],
    // Enough executors for every build at once, and a job that allows concurrent builds.
    executors: n,
    jobs: { 'many-ours': job(3000, {}, true), 'many-base': job(3000, {}, true) }
  })
  try {
    log(`concurrency: ${n} simultaneous runs of ours`)
    const ours = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        runOurs({ jenkins, user: u, job: 'many-ours', id: `many-${i}`, killAfterMs: 180_000 })
      )
    )
    log(`concurrency: ${n} simultaneous runs of the baseline`)
    const baseline = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        runBaseline({ jenkins, user: u, job: 'many-base', id: `many-${i}`, killAfterMs: 180_000 })
      )
    )
    return { ours, baseline }
  } finally {
    await closeServer(jenkins)
  }
}

/** The number it output is the build whose RUN is its own. */
const own = (r: RunRecord): boolean =>
  r.reported !== undefined && r.build !== undefined && r.reported === r.build.number

function section(runs: Runs, n: number): Section {
  const oursOwn = runs.ours.filter(own).length
  const baselineOwn = runs.baseline.filter(own).length
  const wrongOurs = runs.ours.filter(r => r.reported !== r.build?.number)
  return {
    settings: [
      `- Concurrency: ${n} runs started at once on one job that allows concurrent builds, each with its own parameter \`RUN=<i>\` (so Jenkins does not merge them); a run reports its own build when the number it outputs is the build whose \`RUN\` is its own.`
    ],
    executors: n,
    rows: [
      {
        metric: `concurrency: ${n} simultaneous runs of one job report their own build`,
        ours: `${oursOwn}/${n}`,
        baseline: `${baselineOwn}/${n}`,
        ratio: ratio(oursOwn, baselineOwn),
        target: `${n}/${n}`,
        met: oursOwn === n,
        missedBy: `${n - oursOwn} run(s)`,
        why: 'A run that did not report its own build is a product bug: the notes name the runs.'
      }
    ],
    notes: [
      `- **Concurrency**: ours follows the queue item its own trigger returned, never \`lastBuild\`: ${oursOwn}/${runs.ours.length}${wrongOurs.length ? ` (wrong: ${wrongOurs.map(r => `${r.id} reported #${r.reported} for #${r.build?.number}`).join(', ')})` : ''}. The baseline reports whatever \`lastBuild\` is when it looks: ${baselineOwn}/${runs.baseline.length} got their own build.`
    ]
  }
}

export const concurrency: Scenario = {
  name: 'concurrency',
  summary: 'simultaneous runs of one job: how many report their own build',
  async run(context) {
    const { runs } = settings(context.quick)
    return section(await measure(runs), runs)
  }
}
