import { describe, expect, it } from 'vitest'
import { failureReason, runFailure, splitRuns } from '../../bench/runners/records.js'
import type { RunRecord } from '../../bench/runners/runs.js'
import {
  crowdFigures,
  crowdPlan,
  crowdTable,
  failuresNote,
  failuresText,
  planText,
  steadyRateText
} from '../../bench/scenarios/jobs-crowd.js'
import type { BuildState } from '../../test-server/index.js'

/** The fields of a build the crowd's figures read. */
function build(number: number, queuedAt: number, startedAt: number, finishedAt: number | null) {
  return { number, queuedAt, startedAt, finishedAt } as unknown as BuildState
}

/** A run of the crowd that spawned at `spawnAt`, triggered 300 ms later, followed a 10 s build and printed its end 200 ms after it. */
function ok(i: number, spawnAt: number): RunRecord {
  const b = build(i + 1, spawnAt + 300, spawnAt + 400, spawnAt + 10_400)
  const stdout = `Triggered\nJenkins build crowd #${i + 1} finished: SUCCESS\n`
  return {
    side: 'ours',
    id: `crowd-${i}`,
    job: 'crowd',
    user: 'crowd',
    spawnAt,
    exitAt: spawnAt + 10_800,
    code: 0,
    build: b,
    requests: [],
    stdoutBytes: stdout.length,
    stdout,
    stderr: '',
    stdoutTimes: [
      { at: spawnAt + 500, end: 'Triggered\n'.length },
      { at: spawnAt + 10_600, end: stdout.length }
    ]
  }
}

/** A run that failed at its first contact, as the 200-run crowd's did on this machine. */
function failed(i: number, spawnAt: number, exitAt: number): RunRecord {
  const stdout = `::add-mask::crowd-password\n::error::No answer from Jenkins at http://127.0.0.1:1 to job 'crowd' within 10.0 s. That was the first request\n\n`
  return {
    ...ok(i, spawnAt),
    build: undefined,
    code: 1,
    exitAt,
    stdout,
    stdoutBytes: stdout.length,
    stdoutTimes: []
  }
}

describe('a run that failed', () => {
  it('says why: exit code, or no build of its own, or a build still running', () => {
    expect(runFailure(ok(0, 0))).toBeUndefined()
    expect(runFailure({ ...ok(0, 0), code: 1 })).toBe('exit 1')
    expect(runFailure({ ...ok(0, 0), build: undefined })).toBe('exit 0 without a build of its own')
    expect(runFailure({ ...ok(0, 0), build: build(7, 0, 1, null) })).toBe(
      'exit 0 while its build #7 ran on'
    )
  })

  it('gives its last line, of stdout when stderr is empty, without the workflow command', () => {
    expect(failureReason(failed(3, 0, 26_000))).toBe(
      "exit 1: No answer from Jenkins at http://127.0.0.1:1 to job 'crowd' within 10.0 s. That was the first request"
    )
    expect(failureReason({ ...failed(3, 0, 26_000), stderr: 'Error: spawn EAGAIN\n' })).toBe(
      'exit 1: Error: spawn EAGAIN'
    )
  })

  it('is cut short, an ellipsis marking the cut', () => {
    const reason = failureReason(failed(3, 0, 26_000), 40)
    expect(Array.from(reason)).toHaveLength(40)
    expect(reason).toBe('exit 1: No answer from Jenkins at http:…')
  })

  it('is told apart from the runs that succeeded, each in the order given', () => {
    const runs = [ok(0, 0), failed(1, 100, 20_000), ok(2, 200)]
    const { succeeded, failed: bad } = splitRuns(runs)
    expect(succeeded.map(r => r.id)).toEqual(['crowd-0', 'crowd-2'])
    expect(bad.map(r => r.id)).toEqual(['crowd-1'])
  })
})

describe('a crowd with failed runs', () => {
  // Three runs 100 ms apart succeed; two fail, the later-spawned one first.
  const runs = [ok(0, 0), failed(1, 100, 30_000), ok(2, 200), failed(3, 300, 26_000), ok(4, 400)]
  // Two requests a second over 0–12 s from the whole crowd.
  const requests = Array.from({ length: 24 }, (_, i) => ({ time: i * 500 }))
  const crowd = crowdFigures({ runs, requests, spacingMs: 100, buildMs: 10_000, load: 3.5 })

  it('counts the failed runs and keeps the reason of the first to end', () => {
    expect(crowd.runs).toBe(5)
    expect(crowd.failed).toBe(2)
    expect(crowd.firstFailure).toMatch(/^exit 1: No answer from Jenkins/)
  })

  it('takes its figures from the runs that succeeded', () => {
    // Steady window: the last start (400 + 400) to the first end (10 400), 19 requests.
    expect(crowd.steadyRate).toBeCloseTo(19 / 9.6)
    expect(crowd.perRunRate).toBeCloseTo(19 / 9.6 / 3)
    expect(crowd.delayMedian).toBe(200)
    expect(crowd.overheadMedian).toBe(800)
    expect(crowd.startupMedian).toBe(300)
    expect(crowd.startupMax).toBe(300)
    // Their span, 0 to 11 200 ms; every request the user made is counted.
    expect(crowd.spanMs).toBe(11_200)
    expect(crowd.requests).toBe(24)
  })

  it('shows the count and the first reason in the table, the results row and the notes', () => {
    expect(failuresText(crowd)).toBe(`5 runs: 2 failed (first: ${crowd.firstFailure})`)
    expect(steadyRateText(crowd)).toBe('1.98/s (2 of 5 runs failed)')
    const table = crowdTable([crowd])
    expect(table).toContain('| failed ')
    expect(table).toContain(`| 2 (first: exit 1: No answer from Jenkins`)
    expect(failuresNote([crowd])).toContain('5 runs: 2 failed (first: exit 1: No answer')
    expect(failuresNote([crowd])).toContain('from its runs that succeeded')
  })

  it('has no figures, rather than wrong ones, when every run failed', () => {
    const none = crowdFigures({
      runs: [failed(0, 0, 20_000), failed(1, 100, 21_000)],
      requests,
      spacingMs: 100,
      buildMs: 10_000,
      load: 1
    })
    expect(none.failed).toBe(2)
    expect(none.steadyRate).toBeNaN()
    expect(none.overallRate).toBeNaN()
    expect(steadyRateText(none)).toBe('n/a (2 of 2 runs failed)')
  })
})

describe('a crowd without failures', () => {
  const crowd = crowdFigures({
    runs: [ok(0, 0), ok(1, 100)],
    requests: [{ time: 1000 }, { time: 2000 }],
    spacingMs: 100,
    buildMs: 10_000,
    load: 0.5
  })

  it('says none failed and shows the figure alone', () => {
    expect(crowd.failed).toBe(0)
    expect(crowd.firstFailure).toBeUndefined()
    expect(failuresText(crowd)).toBe('2 runs: none failed')
    expect(failuresNote([crowd])).toBe('2 runs: none failed.')
    expect(steadyRateText(crowd)).toBe('0.20/s')
    expect(crowdTable([crowd]).split('\n')[2]).toMatch(/^\| 2 +\| 0 +\| 100 ms /)
  })
})

describe('the crowd start-up plan', () => {
  it('keeps 100 ms and the base build up to 50 runs, so that crowd stays comparable', () => {
    expect(crowdPlan(10, 15_000)).toEqual({ spacingMs: 100, buildMs: 15_000 })
    expect(crowdPlan(50, 90_000)).toEqual({ spacingMs: 100, buildMs: 90_000 })
  })

  it('spreads a larger crowd and lengthens its builds to twice the start-up window', () => {
    const plan = crowdPlan(200, 90_000)
    expect(plan).toEqual({ spacingMs: 500, buildMs: 200_000 })
    // The last run starts in the first half of the first run's build.
    expect(199 * plan.spacingMs).toBeLessThan(plan.buildMs / 2)
    expect(crowdPlan(60, 90_000)).toEqual({ spacingMs: 500, buildMs: 90_000 })
  })

  it('is said in the settings', () => {
    expect(
      planText([
        { runs: 50, ...crowdPlan(50, 90_000) },
        { runs: 200, ...crowdPlan(200, 90_000) }
      ])
    ).toBe(
      '50 runs started 100 ms apart on 90.00 s builds, 200 runs started 500 ms apart on 200.00 s builds'
    )
  })
})
