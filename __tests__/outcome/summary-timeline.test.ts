import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { PipelineStage } from '../../src/jenkins/model/types.js'
import { MAX_BARS, mermaidText, stageTimeline } from '../../src/outcome/summary-timeline.js'

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
      `    Build :done, ${T0}, ${T0 + 1000}`,
      `    Test (failed) :crit, ${T0 + 1000}, ${T0 + 3500}`,
      `    Approve (waiting for input) :active, ${T0 + 3500}, ${T0 + 4200}`,
      '```'
    ])
  })

  it('has a section per build with several builds, and no chart when nothing started', () => {
    const t = stageTimeline([
      { section: { job: 'unit', number: 4 }, stages: [stage('Build', 'SUCCESS', 0, 10)] },
      { section: { job: 'docs' }, stages: [] },
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
    expect(lines.slice(0, 4)).toEqual([
      '```mermaid',
      'gantt',
      '    dateFormat x',
      '    axisFormat %H:%M:%S'
    ])
    expect(lines.at(-1)).toBe('```')
    const body = lines.slice(4, -1)
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
