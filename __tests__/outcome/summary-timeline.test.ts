import { readFileSync } from 'node:fs'
import {
  timeDay,
  timeHour,
  timeMillisecond,
  timeMinute,
  timeMonth,
  timeSecond,
  type TimeInterval
} from 'd3-time'
import { timeFormat } from 'd3-time-format'
import { afterEach, describe, expect, it } from 'vitest'
import type { PipelineStage } from '../../src/jenkins/reads/stages.js'
import {
  MAX_BARS,
  axisTicks,
  mermaidText,
  stageTimeline
} from '../../src/outcome/summary-timeline.js'

const T0 = 1_700_000_000_000

function stage(name: string, status: string, startOffset: number, duration: number): PipelineStage {
  return {
    id: name,
    name,
    status: status as PipelineStage['status'],
    startTimeMillis: startOffset < 0 ? 0 : T0 + startOffset,
    durationMillis: duration,
    pauseDurationMillis: 0
  }
}

/** What Mermaid's gantt lexer would make of a task line (gantt.jison): title up to `:`, data up to `#` or `;`. */
function task(line: string): { title: string; data: string } {
  const match = /^ {4}([^:\n]+):([^#\n;]+)$/.exec(line)
  expect(match, line).not.toBeNull()
  return { title: (match?.[1] ?? '').trim(), data: match?.[2] ?? '' }
}

const STATEMENT =
  /^(gantt|dateformat|inclusiveenddates|topaxis|axisformat|tickinterval|includes|excludes|todaymarker|weekday|weekend|title|accdescription|acctitle|accdescr|section|click|href|call|\d{4}-\d\d-\d\d)/i

describe('stageTimeline', () => {
  it('draws each started stage from its start to its end, its status as the task state', () => {
    const t = stageTimeline([
      {
        stages: [
          stage('Build', 'SUCCESS', 0, 1000),
          stage('Test', 'FAILED', 1000, 2500),
          stage('Approve', 'PAUSED_PENDING_INPUT', 3500, 700),
          stage('Skipped', 'NOT_EXECUTED', -1, 0)
        ]
      }
    ])
    expect(t?.leftOut).toBe(0)
    expect(t?.chart.split('\n')).toEqual([
      '```mermaid',
      'gantt',
      '    dateFormat x',
      '    axisFormat %H:%M:%S',
      '    tickInterval 1second',
      `    Build :done, ${T0}, ${T0 + 1000}`,
      `    Test (failed) :crit, ${T0 + 1000}, ${T0 + 3500}`,
      `    Approve (waiting for input) :active, ${T0 + 3500}, ${T0 + 4200}`,
      '```'
    ])
  })

  it('has a section per build with several builds, and no chart when nothing started', () => {
    const t = stageTimeline([
      { section: { job: 'unit', number: 4 }, stages: [stage('Build', 'SUCCESS', 0, 10)] },
      { section: { job: 'docs', number: null }, stages: [] },
      { section: { job: 'e2e', number: 9 }, stages: [stage('Run', 'UNSTABLE', 5, 10)] }
    ])
    const lines = t?.chart.split('\n') ?? []
    expect(lines.filter(l => l.startsWith('    section '))).toEqual([
      '    section unit #4',
      '    section e2e #9'
    ])
    expect(lines).toContain(`    Run (unstable) :crit, done, ${T0 + 5}, ${T0 + 15}`)
    expect(stageTimeline([{ stages: [stage('x', 'NOT_EXECUTED', -1, 0)] }])).toBeUndefined()
    expect(stageTimeline([])).toBeUndefined()
  })

  it(`draws at most ${MAX_BARS} bars and counts the rest`, () => {
    const many = Array.from({ length: 40 }, (_, i) => stage(`s${i}`, 'SUCCESS', i, 1))
    const t = stageTimeline([
      { section: { job: 'a', number: 1 }, stages: many },
      { section: { job: 'b', number: 2 }, stages: many },
      { section: { job: 'c', number: 3 }, stages: many }
    ])
    const lines = t?.chart.split('\n') ?? []
    expect(lines.filter(l => /^ {4}s\d+ :/.test(l))).toHaveLength(MAX_BARS)
    expect(lines.filter(l => l.startsWith('    section '))).toEqual([
      '    section a #1',
      '    section b #2'
    ])
    expect(t?.leftOut).toBe(120 - MAX_BARS)
  })

  it('hostile names can neither end the block nor add a line, a directive, a link or HTML', () => {
    const names = [
      'a```\n```\n<script>alert(1)</script>',
      'x : done, 0, 1\nclick x href "https://evil.example"',
      'click Build href "javascript:alert(1)"',
      '%%{init: {"theme": "dark"}}%%',
      'Test #1; crit',
      '</details><img src=x onerror=alert(1)>',
      '[link](https://evil.example) ![i](https://evil.example/i.png)',
      'section evil',
      '2024-01-01 deploy',
      '   title pwned',
      '::error::stage',
      '\r\ndateFormat YYYY',
      ''
    ]
    const t = stageTimeline([
      {
        section: { job: 'job`\n```\nclick %%{init}%%', number: 3 },
        stages: names.map((n, i) => stage(n, 'FAILED', i, 1))
      }
    ])
    const lines = t?.chart.split('\n') ?? []
    expect(lines.slice(0, 5)).toEqual([
      '```mermaid',
      'gantt',
      '    dateFormat x',
      '    axisFormat %H:%M:%S.%L',
      '    tickInterval 100millisecond'
    ])
    expect(lines.at(-1)).toBe('```')
    const body = lines.slice(5, -1)
    // One section line and one task line per name: nothing else got in.
    expect(body).toHaveLength(names.length + 1)
    expect(body[0]).toBe('    section job click init #3')
    for (const [i, line] of body.slice(1).entries()) {
      const { title, data } = task(line)
      expect(data).toBe(`crit, ${T0 + i}, ${T0 + i + 1}`)
      expect(title).not.toMatch(STATEMENT)
      expect(title).not.toMatch(/[`<>&"%#;:\\{}|[\]]/)
    }
    expect(t?.chart).not.toMatch(/`{3}[^m\n]|[^\n]`{3}/)
    expect(body.slice(1).map(l => task(l).title)).toEqual([
      'a script alert(1) /script (failed)',
      'x done, 0, 1 click x href https //evil.example (failed)',
      '_click Build href javascript alert(1) (failed)',
      'init theme dark (failed)',
      'Test 1 crit (failed)',
      '/details img src=x onerror=alert(1) (failed)',
      'link (https //evil.example) ! i (https //evil.example/i.png) (failed)',
      '_section evil (failed)',
      '_2024-01-01 deploy (failed)',
      '_title pwned (failed)',
      'error stage (failed)',
      '_dateFormat YYYY (failed)',
      '(unnamed) (failed)'
    ])
  })
})

describe('stageTimeline: times Mermaid cannot place', () => {
  /** A stage at an absolute start time. */
  function at(name: string, startTimeMillis: number, durationMillis: number): PipelineStage {
    return { ...stage(name, 'SUCCESS', 0, durationMillis), startTimeMillis }
  }
  const bars = (stages: PipelineStage[]) =>
    (stageTimeline([{ stages }])?.chart.split('\n') ?? []).filter(l => / :done, /.test(l))

  it('gives no bar to a stage starting or ending past the years 2000 to 9999; the others are drawn', () => {
    const hostile = [
      at('safe max', Number.MAX_SAFE_INTEGER, 0),
      at('past the last date', 8_640_000_000_000_001, 0),
      at('last date', 8_640_000_000_000_000, 0),
      at('year 10000', Date.UTC(10000, 0, 1), 0),
      at('ends past 9999', Date.UTC(9999, 11, 31, 23, 59), 3_600_000),
      at('ends past the last date', T0, 8_640_000_000_000_000),
      at('epoch', 1, 1000),
      at('1999', Date.UTC(1999, 11, 31, 23, 59, 59), 1000)
    ]
    expect(bars([...hostile, at('Build', T0, 1000)])).toEqual([
      `    Build :done, ${T0}, ${T0 + 1000}`
    ])
    expect(stageTimeline([{ stages: hostile }])).toBeUndefined()
    // The edges themselves are drawn.
    const first = Date.UTC(2000, 0, 1)
    const last = Date.UTC(9999, 11, 31, 23, 59, 59, 999)
    expect(bars([at('first', first, 1), at('last', last - 1, 1)])).toEqual([
      `    first :done, ${first}, ${first + 1}`,
      `    last :done, ${last - 1}, ${last}`
    ])
  })

  it('every bar it draws is a date JavaScript holds, so Mermaid can place it', () => {
    const times = [0, 1, T0, Date.UTC(9999, 11, 31), 8.64e15, 8.64e15 + 1, Number.MAX_SAFE_INTEGER]
    const stages = times.flatMap(start => times.map(d => at(`s${start}-${d}`, start, d)))
    for (const line of (stageTimeline([{ stages }])?.chart ?? '').split('\n')) {
      const m = / :done, (\d+), (\d+)$/.exec(line)
      if (!m) continue
      expect(Number.isNaN(new Date(Number(m[1])).getTime()), line).toBe(false)
      expect(Number.isNaN(new Date(Number(m[2])).getTime()), line).toBe(false)
    }
  })
})

describe('the chart axis: labels d3 prints for the axisFormat and tickInterval chosen', () => {
  /** d3's interval for a Mermaid tickInterval, as Mermaid's gantt renderer maps it. */
  function interval(tick: string): TimeInterval {
    const m = /^([1-9]\d*)(millisecond|second|minute|hour|day|week|month)$/.exec(tick)
    expect(m, tick).not.toBeNull()
    const every = Number(m?.[1])
    const unit = {
      millisecond: timeMillisecond,
      second: timeSecond,
      minute: timeMinute,
      hour: timeHour,
      day: timeDay,
      month: timeMonth
    }[m?.[2] ?? '']
    const chosen = unit?.every(every)
    expect(chosen, tick).toBeDefined()
    return chosen as TimeInterval
  }

  /**
   * The labels of a chart from `start` to `end`: d3's scaleTime().ticks(interval)
   * is interval.range(start, end + 1), each printed with timeFormat(axisFormat),
   * in the reader's (here: the process's) time zone.
   */
  function labels(start: number, end: number): string[] {
    const lines =
      stageTimeline([{ stages: [stageAt(start, end - start)] }])?.chart.split('\n') ?? []
    const format = lines.find(l => l.startsWith('    axisFormat '))?.slice(15) ?? ''
    const tick = lines.find(l => l.startsWith('    tickInterval '))?.slice(17) ?? ''
    const axis = axisTicks(end - start)
    expect({ interval: axis.interval, format: axis.format }).toEqual({ interval: tick, format })
    return interval(tick)
      .range(new Date(start), new Date(end + 1))
      .map(timeFormat(format))
  }

  function stageAt(startTimeMillis: number, durationMillis: number): PipelineStage {
    return { ...stage('Build', 'SUCCESS', 0, durationMillis), startTimeMillis }
  }

  const zone = process.env.TZ
  afterEach(() => {
    if (zone === undefined) delete process.env.TZ
    else process.env.TZ = zone
  })

  const SECOND = 1000
  const MINUTE = 60 * SECOND
  const HOUR = 60 * MINUTE
  // A start off any round value (22:21:17.6 UTC), as a build's is.
  const START = Date.UTC(2026, 10, 26, 22, 21, 17, 600)
  const LENGTHS = {
    '3 s': 3 * SECOND,
    '40 s': 40 * SECOND,
    '5 min': 5 * MINUTE,
    '23 min': 23 * MINUTE,
    '3 h': 3 * HOUR
  }

  for (const tz of ['UTC', 'Asia/Kolkata', 'America/St_Johns']) {
    it(`a 3-second to a 3-hour build gets 2 to 12 distinct labels (${tz})`, () => {
      process.env.TZ = tz
      for (const [name, length] of Object.entries(LENGTHS)) {
        for (const shift of [0, 400, 59 * SECOND, 37 * MINUTE]) {
          const shown = labels(START + shift, START + shift + length)
          expect(new Set(shown).size, `${name}: ${shown.join(' ')}`).toBe(shown.length)
          expect(shown.length, `${name}: ${shown.join(' ')}`).toBeGreaterThanOrEqual(2)
          expect(shown.length, `${name}: ${shown.join(' ')}`).toBeLessThanOrEqual(12)
        }
      }
    })
  }

  it('reads as the report asked: seconds for a few seconds, round minutes for 23 minutes', () => {
    process.env.TZ = 'UTC'
    expect(labels(START, START + 3 * SECOND)).toEqual(['22:21:18', '22:21:19', '22:21:20'])
    expect(labels(START, START + 23 * MINUTE)).toEqual(['22:25', '22:30', '22:35', '22:40'])
    expect(labels(START, START + 3 * HOUR)).toEqual(['23:00', '00:00', '01:00'])
    // Past a day, the day shows.
    expect(labels(START, START + 30 * HOUR)).toEqual([
      'Nov 27 00:00',
      'Nov 27 06:00',
      'Nov 27 12:00',
      'Nov 27 18:00',
      'Nov 28 00:00'
    ])
  })

  it('stays within a dozen distinct labels from 0.3 s to two years', () => {
    process.env.TZ = 'UTC'
    for (let length = 300; length < 2 * 365 * 24 * HOUR; length = Math.round(length * 1.7)) {
      const shown = labels(START, START + length)
      expect(new Set(shown).size, `${length} ms: ${shown.join(' ')}`).toBe(shown.length)
      expect(shown.length, `${length} ms: ${shown.join(' ')}`).toBeLessThanOrEqual(12)
    }
  })
})

describe('mermaidText', () => {
  it('keeps letters of any script and cuts long names', () => {
    expect(mermaidText('Déploiement 東京 (prod)')).toBe('Déploiement 東京 (prod)')
    expect(mermaidText('x'.repeat(100), 10)).toBe(`${'x'.repeat(9)}…`)
  })
})

describe("docs/job-summary.md's example", () => {
  it('is the chart the summary draws for the stages it shows', () => {
    const page = readFileSync(new URL('../../docs/job-summary.md', import.meta.url), 'utf8')
    // As addTimeline writes it: the heading, a blank line, the block.
    const block =
      /\n````markdown\n[\s\S]*?\n<h3>Stage timeline<\/h3>\n\n(```mermaid\n[\s\S]*?\n```)\n````\n/.exec(
        page
      )?.[1]
    expect(block).toBeDefined()
    const stages = (block ?? '').split('\n').flatMap(line => {
      const m = /^ {4}(.+?)(?: \(([a-z ]+)\))? :([a-z, ]+), (\d+), (\d+)$/.exec(line)
      if (!m) return []
      const status = { 'waiting for input': 'PAUSED_PENDING_INPUT', failed: 'FAILED' }[m[2] ?? '']
      const start = Number(m[4])
      return [stage(m[1] ?? '', status ?? 'SUCCESS', start - T0, Number(m[5]) - start)]
    })
    expect(stages.map(s => s.status)).toEqual([
      'SUCCESS',
      'SUCCESS',
      'FAILED',
      'PAUSED_PENDING_INPUT'
    ])
    expect(stageTimeline([{ stages }])?.chart).toBe(block)
  })
})
