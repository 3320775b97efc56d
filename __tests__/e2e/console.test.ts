/**
 * End to end: the build's console in the step log (issue 4). What matters is
 * what the runner makes of stdout, so the log is read the way the runner
 * reads it (helpers.runnerView): a console line must never become a
 * workflow command.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAction } from '../../scripts/action-runner.js'
import { startJenkins, type TestJenkins } from '../../test-server/index.js'
import {
  auth,
  commands,
  describeRun,
  run,
  runnerView,
  RUNTIMES,
  watchPeakRss,
  type LogLine
} from './helpers.js'

const HOSTILE = [
  '::add-mask::leak',
  '::set-output name=x::y',
  '::error::boom',
  '::stop-commands::abc',
  '::endgroup::',
  '  ::warning::indented',
  'still the console'
]
const BIG_BYTES = 32 * 1024 * 1024
/** A JS heap cap below the console's size: holding the console (or a backlog of it) in memory fails the run. */
const HEAP_CAP = { NODE_OPTIONS: '--max-old-space-size=16' }

/** The lines between the action's stop-commands marker and its resume token. */
function stoppedRegion(lines: LogLine[]): LogLine[] {
  const start = lines.findIndex(l => !l.stopped && l.command?.name === 'stop-commands')
  const end = lines.findIndex((l, i) => i > start && l.stopped && l.command !== undefined)
  expect(start).toBeGreaterThanOrEqual(0)
  expect(end).toBeGreaterThan(start)
  return lines.slice(start + 1, end)
}

describe.each(RUNTIMES)('console streaming ($name)', ({ path: node }) => {
  let jenkins: TestJenkins
  beforeAll(async () => {
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      executors: 4,
      jobs: {
        hostile: { script: { durationMs: 300, consoleLines: HOSTILE } },
        quiet: { script: { durationMs: 200, consoleLines: ['should not be shown'] } },
        notes: {
          type: 'pipeline',
          script: {
            durationMs: 300,
            consoleNotes: true,
            consoleLines: ['[Pipeline] echo', 'noted line']
          }
        },
        small: { script: { durationMs: 1000, consoleLines: ['a', 'b'] } },
        // Jenkins closes the log well after building turns false (Run.execute,
        // WorkflowRun.finish): listeners, Finished:, clean-up, then the close.
        ending: {
          type: 'pipeline',
          script: {
            durationMs: 1500,
            consoleLines: ['[Pipeline] echo', 'working'],
            endGap: { finishedAfterMs: 300, closedAfterMs: 1500 },
            completedLines: ['Notified by a RunListener'],
            afterFinishedLines: ['Failed to clean up stashes', 'the very last line']
          }
        },
        big: { script: { durationMs: 1000, consoleBytes: BIG_BYTES } }
      }
    })
  })
  afterAll(() => jenkins.close())

  describe.concurrent('log', () => {
    it('streams the console in a group named after the job and build, with commands stopped', async () => {
      const r = await run(node, { ...auth(jenkins), job: 'hostile' })
      expect(r.code, describeRun(r)).toBe(0)
      const lines = runnerView(r.stdout)
      const acted = lines.filter(l => !l.stopped && l.command)
      const group = acted.findIndex(l => l.command?.name === 'group')
      expect(acted[group]?.command?.value).toBe(
        `Console of Jenkins hostile #${r.outputs['build-number']}`
      )
      expect(acted[group + 1]?.command?.name).toBe('stop-commands')
      const token = acted[group + 1]?.command?.value ?? ''
      expect(token).toMatch(/^[0-9a-f-]{36}$/)
      // The console never saw the token before the stop.
      expect(r.stdout.indexOf(token)).toBe(r.stdout.indexOf(`::stop-commands::${token}`) + 17)

      const region = stoppedRegion(lines).map(l => l.text)
      for (const line of HOSTILE) expect(region).toContain(line)
      // After the resume token, commands work again: the group closes.
      const resumed = lines.findIndex(l => l.text === `::${token}::`)
      expect(lines[resumed + 1]?.command?.name).toBe('endgroup')
      expect(lines[resumed + 1]?.stopped).toBe(false)
    })

    it('lets no console line act as a workflow command', async () => {
      const r = await run(node, { ...auth(jenkins), job: 'hostile' })
      expect(r.code, describeRun(r)).toBe(0)
      const acted = commands(r.stdout)
      expect(acted.filter(c => c?.name === 'add-mask').map(c => c?.value)).not.toContain('leak')
      expect(acted.filter(c => c?.name === 'set-output')).toEqual([])
      expect(acted.filter(c => c?.name === 'error')).toEqual([])
      expect(acted.filter(c => c?.name === 'warning')).toEqual([])
      // One group, closed once: the console's ::endgroup:: did not close it early.
      expect(acted.filter(c => c?.name === 'group')).toHaveLength(1)
      expect(acted.filter(c => c?.name === 'endgroup')).toHaveLength(1)
      expect(r.outputs).not.toHaveProperty('x')
      expect(r.outputs.result).toBe('SUCCESS')
    })

    it('log: false prints no console', async () => {
      const r = await run(node, { ...auth(jenkins), job: 'quiet', log: 'false' })
      expect(r.code, describeRun(r)).toBe(0)
      expect(r.stdout).not.toContain('should not be shown')
      expect(r.stdout).not.toContain('::group::')
      expect(r.stdout).not.toContain('::stop-commands::')
      expect(jenkins.requests.filter(q => q.kind === 'log' && q.job === 'quiet')).toEqual([])
      expect(r.outputs.result).toBe('SUCCESS')
    })

    it('strips ConsoleNotes', async () => {
      const r = await run(node, { ...auth(jenkins), job: 'notes' })
      expect(r.code, describeRun(r)).toBe(0)
      expect(jenkins.builds('notes')[0]?.consoleText()).toContain('\x1b[8mha:')
      const region = stoppedRegion(runnerView(r.stdout)).map(l => l.text)
      expect(region).toContain('[Pipeline] echo')
      expect(region).toContain('noted line')
      expect(r.stdout).not.toContain('\x1b[8mha:')
      expect(r.stdout).not.toContain('\x1b[0m')
      expect(r.stdout).not.toContain('\r')
    })
  })

  it('shows the console to its last line, after Finished:, and reads the build JSON only once it has ended', async () => {
    const r = await run(node, { ...auth(jenkins), job: 'ending' })
    expect(r.code, describeRun(r)).toBe(0)
    expect(r.outputs.result).toBe('SUCCESS')
    const region = stoppedRegion(runnerView(r.stdout)).map(l => l.text)
    expect(region.slice(-5)).toEqual([
      '[Pipeline] End of Pipeline',
      'Notified by a RunListener',
      'Finished: SUCCESS',
      'Failed to clean up stashes',
      'the very last line'
    ])
    const [build] = jenkins.builds('ending')
    expect(build?.number).toBe(Number(r.outputs['build-number']))
    const own = jenkins.requests.filter(
      q => q.job === 'ending' && q.path.includes(`/job/ending/${build?.number}/`)
    )
    const logs = own.filter(q => q.kind === 'log')
    const reads = own.filter(q => q.kind === 'build')
    // The console's last request came after Jenkins closed the log, and
    // nothing was asked of the build while the console said it was running.
    expect(Math.max(...logs.map(q => q.time))).toBeGreaterThanOrEqual(
      build?.logClosedAt ?? Infinity
    )
    expect(reads.length).toBeGreaterThan(0)
    for (const read of reads)
      expect(read.time).toBeGreaterThanOrEqual(build?.finishedAt ?? Infinity)
    // The full JSON the outputs come from was read once the log was closed.
    const full = reads.filter(q => !q.query.includes('tree='))
    expect(full).toHaveLength(1)
    expect(full[0]?.time).toBeGreaterThanOrEqual(build?.logClosedAt ?? Infinity)
  })

  it('streams a 32 MB console completely, in flat memory', async () => {
    // The same action with a tiny console: the baseline of this runtime.
    const small = startAction({ ...auth(jenkins), job: 'small' }, { node, env: HEAP_CAP })
    const smallRss = watchPeakRss(small.child.pid!)
    const smallRun = await small.done
    const baseline = smallRss.stop()
    expect(smallRun.code, describeRun(smallRun)).toBe(0)

    const action = startAction(
      { ...auth(jenkins), job: 'big' },
      { node, env: HEAP_CAP, killAfterMs: 120_000 }
    )
    const rss = watchPeakRss(action.child.pid!)
    const r = await action.done
    const peak = rss.stop()
    expect(r.code, `exit ${r.code} ${r.signal}\n${r.stderr}\n${r.stdout.slice(-2000)}`).toBe(0)

    const [build] = jenkins.builds('big')
    const streamed = stoppedRegion(runnerView(r.stdout))
      .map(l => l.text)
      .join('\n')
    // Every byte Jenkins stored, in order, with its final newline.
    expect(Buffer.byteLength(streamed) + 1).toBe(build?.consoleLength())
    expect(build?.consoleLength()).toBeGreaterThan(BIG_BYTES)
    expect(streamed.endsWith('Finished: SUCCESS')).toBe(true)
    // Memory does not grow with the console: what it adds over the baseline
    // is the garbage collector's slack, well below the console's size.
    console.info(
      `${node === process.execPath ? process.version : 'node 24'}: peak RSS ${(peak / 2 ** 20).toFixed(1)} MiB ` +
        `streaming ${(BIG_BYTES / 2 ** 20).toFixed(0)} MiB (baseline ${(baseline / 2 ** 20).toFixed(1)} MiB)`
    )
    expect(peak - baseline).toBeLessThan(BIG_BYTES)
  })
})
