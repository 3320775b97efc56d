/**
 * Peak RSS of a `jobs` step whose summary is large (issue 32 §5): 100 failed
 * builds of 10 failed tests each, every test name 10 KB long. The summary
 * names every failed test of every build (some 10 MB of HTML before it is
 * cut to GitHub's 1 MiB); what the step keeps of it meanwhile is bounded
 * (src/outcome/summary-cap.ts), where it used to grow with its square.
 */
import { startAction } from '../../scripts/action-runner.js'
import type { JobSpec, TestJenkins } from '../../test-server/index.js'
import type { Scenario, Section } from '../scenario.js'
import { closeServer, server, user } from '../runners/jenkins.js'
import { adopt, forget, NODE, watchPeakRss } from '../runners/processes.js'
import { formatMb } from '../stats.js'
import { log } from '../util.js'

const MB = 1024 * 1024
const TARGET_BYTES = 150 * MB

interface Settings {
  builds: number
  failedTests: number
  nameChars: number
}

const settings = (quick: boolean): Settings =>
  quick
    ? { builds: 30, failedTests: 10, nameChars: 10_240 }
    : { builds: 100, failedTests: 10, nameChars: 10_240 }

interface Run {
  peakRss: number
  exitCode: number | null
  /** Bytes of the summary the step wrote (0: none). */
  summaryBytes: number
  /** Whether it said it ran out of memory. */
  heapOut: boolean
  /** Bytes of `summary` the step's stdout said its summary was (the cut warning), or NaN. */
  fullBytes: number
}

/** The step on `jobs`, its RSS sampled until it exits. */
async function measure(jenkins: TestJenkins, s: Settings, names: string[]): Promise<Run> {
  const u = user('summary-memory')
  const running = startAction(
    {
      url: jenkins.url,
      user: u.name,
      token: u.password ?? '',
      job: '',
      jobs: names.join('\n')
    },
    { node: NODE.path, killAfterMs: 600_000 }
  )
  adopt(running.child)
  const stopRss = watchPeakRss(running.child.pid)
  try {
    const result = await running.done
    const cut = /The job summary was (\d+) KiB, over GitHub's limit/.exec(result.stdout)
    return {
      peakRss: stopRss(),
      exitCode: result.code,
      summaryBytes: Buffer.byteLength(result.summary),
      heapOut: /heap out of memory/i.test(result.stderr + result.stdout),
      fullBytes: cut ? Number(cut[1]) * 1024 : NaN
    }
  } finally {
    stopRss()
    forget(running.child)
  }
}

async function run(s: Settings): Promise<Run> {
  const jobs: Record<string, JobSpec> = {}
  const names = Array.from({ length: s.builds }, (_, i) => `failing-${String(i).padStart(3, '0')}`)
  for (const name of names) {
    jobs[name] = {
      script: {
        durationMs: 1000,
        result: 'FAILURE',
        tests: {
          total: s.failedTests,
          failed: s.failedTests,
          skipped: 0,
          caseNameChars: s.nameChars
        }
      }
    }
  }
  const jenkins = await server({
    users: [user('summary-memory')],
    quietPeriodSec: 0,
    executors: s.builds,
    jobs
  })
  try {
    log(
      `summary-memory: jobs, ${s.builds} failed builds of ${s.failedTests} failed tests with ${s.nameChars / 1024} KB names`
    )
    return await measure(jenkins, s, names)
  } finally {
    await closeServer(jenkins)
  }
}

function section(r: Run, s: Settings): Section {
  const what = `${s.builds} failed builds of ${s.failedTests} failed tests with ${s.nameChars / 1024} KB names (jobs)`
  const wrote = r.summaryBytes > 0 && !r.heapOut
  return {
    settings: [
      `- Summary memory: one \`jobs\` step on ${what}, builds of 1 s on as many executors; peak RSS is the kernel's VmHWM of the child, sampled every 50 ms.`
    ],
    rows: [
      {
        metric: `peak RSS, summary of ${what}${wrote ? '' : ' (NO SUMMARY WRITTEN)'}`,
        ours: formatMb(r.peakRss),
        baseline: '',
        ratio: '',
        target: '≤ 150 MB',
        met: r.peakRss <= TARGET_BYTES && wrote,
        missedBy: formatMb(r.peakRss - TARGET_BYTES),
        why: 'What the summary keeps is bounded (src/outcome/summary-cap.ts: at most twice the 1 MiB it may write, collected once cut), and the step names at most 50 failed tests outside the summary (src/step/step-io.ts: 9 annotations, 41 log lines); what is left is garbage V8 collects late (the same step with --max-old-space-size=64 writes the same summary).'
      }
    ],
    notes: [
      `- **Summary memory**: the step wrote a summary of ${formatMb(r.summaryBytes)}${Number.isNaN(r.fullBytes) ? '' : `, cut from ${formatMb(r.fullBytes)}`}, and ${r.exitCode === null ? 'was ended by a signal' : `exited ${r.exitCode} (its builds failed)`}${r.heapOut ? ', out of memory' : ''}. Before the summary's memory was bounded, it kept a slice of its growing buffer after every element, each holding a flat copy of the whole: on main at 703cbf9 this scenario grew to a peak RSS of 4183 MB and died of \`JavaScript heap out of memory\` (no summary, no outputs). It now keeps each element once, cuts what it keeps down to the limit past twice it, and collects what it let go.`
    ]
  }
}

export const summaryMemory: Scenario = {
  name: 'summary-memory',
  summary: 'peak RSS of a jobs step summarising 100 failed builds of 10 long-named failed tests',
  async run(context) {
    const s = settings(context.quick)
    return section(await run(s), s)
  }
}
