import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as core from '@actions/core'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { boundedSummary, KeptUnits } from '../../src/outcome/summary-cap.js'

/** Units (each a whole element) within `maxBytes` (KeptUnits.fit), and what was left out in words. */
function fitSummary(units: readonly string[], maxBytes: number) {
  const kept = new KeptUnits()
  for (const unit of units) kept.add(unit)
  return { text: kept.fit(maxBytes), leftOut: kept.leftOut() }
}

/**
 * core.summary whose write records what it would write (core.summary keeps
 * the first file path it was given for good), and the longest buffer it
 * held when an add began (a text the wrapper would copy or slice).
 */
function recording(): { summary: typeof core.summary; written: string[]; longest: () => number } {
  const written: string[] = []
  let longest = 0
  const summary: typeof core.summary = new Proxy(core.summary, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver)
      if (typeof value !== 'function') return value
      const method = value as (...args: unknown[]) => unknown
      if (key === 'write') {
        return async () => {
          written.push(target.stringify())
          target.emptyBuffer()
          return summary
        }
      }
      return (...args: unknown[]) => {
        if (typeof key === 'string' && key.startsWith('add')) {
          longest = Math.max(longest, target.stringify().length)
        }
        const result = method.apply(target, args)
        return result === target ? summary : result
      }
    }
  })
  return { summary, written, longest: () => longest }
}

/** Whether fenced code blocks and <details>, <table>, <pre> all close. */
function balanced(text: string): boolean {
  const fences = text.split('\n').filter(line => /^\s*```/.test(line)).length
  const count = (re: RegExp) => (text.match(re) ?? []).length
  return (
    fences % 2 === 0 &&
    count(/<details>/g) === count(/<\/details>/g) &&
    count(/<table>/g) === count(/<\/table>/g) &&
    count(/<pre>/g) === count(/<\/pre>/g)
  )
}

/** No secrets to redact. */
const asIs = (text: string): string => text

/** The summary's real bound: 1 MiB less room for the 'left out' line. */
const LIMIT = 1024 * 1024 - 8 * 1024

const table = (rows: number, cell: string) =>
  `<table><tr><th>Name</th></tr>${Array.from({ length: rows }, (_, i) => `<tr><td>${cell}${i}</td></tr>`).join('')}</table>\n`

describe('fitSummary', () => {
  it('leaves what fits as it is', () => {
    const units = ['<h2>Jenkins</h2>\n', table(3, 'a')]
    expect(fitSummary(units, 10_000)).toEqual({ text: units.join(''), leftOut: undefined })
  })

  it('leaves out whole sections, the largest first, never the first, and names them', () => {
    const units = [
      '<h2>Jenkins deploy</h2>\n',
      table(2, 'x'),
      '<h3>Stages</h3>\n',
      table(500, 's'.repeat(100)),
      '<h3>Chart</h3>\n',
      '```mermaid\ngantt\n' + 'task :a, 0, 1\n'.repeat(2000) + '```\n',
      '<h3>Failed tests</h3>\n',
      table(10, 'f'),
      '<details><summary>Last lines</summary><pre>x</pre></details>\n'
    ]
    const fitted = fitSummary(units, 20_000)
    expect(Buffer.byteLength(fitted.text)).toBeLessThanOrEqual(20_000)
    expect(fitted.leftOut).toBe(
      "2 section(s) ('Jenkins deploy › Stages', 'Jenkins deploy › Chart')"
    )
    expect(fitted.text).toContain('<h3>Failed tests</h3>')
    expect(fitted.text).toContain('<details><summary>Last lines</summary>')
    expect(fitted.text).toContain(
      'This summary was cut to stay under GitHub&#39;s limit of 1 MiB for a step: left out 2 section(s) (&#39;Jenkins deploy › Stages&#39;, &#39;Jenkins deploy › Chart&#39;).'
    )
    expect(balanced(fitted.text)).toBe(true)
  })

  it('cuts rows from the end of a table when the first section alone is too large', () => {
    const units = ['<h2>Jenkins builds</h2>\n', table(5000, 'job-'.repeat(20))]
    const fitted = fitSummary(units, 50_000)
    expect(Buffer.byteLength(fitted.text)).toBeLessThanOrEqual(50_000)
    const rows = Number(/^(\d+) table row\(s\)$/.exec(fitted.leftOut ?? '')?.[1])
    expect(rows).toBeGreaterThan(4000)
    expect(fitted.text).toContain('<tr><td>' + 'job-'.repeat(20) + '0</td></tr>')
    expect(fitted.text).toContain(`left out ${rows} table row(s)`)
    expect(balanced(fitted.text)).toBe(true)
  })

  it('names ten sections and counts the rest', () => {
    const units = ['<h2>Jenkins builds</h2>\n']
    for (let i = 0; i < 30; i++) units.push(`<h3>job-${i} &#60;x&#62;</h3>\n`, table(100, 'r'))
    const fitted = fitSummary(units, 10_000)
    // Ten sections named, the rest counted.
    const [, all, more] = /^(\d+) section\(s\) \((?:'[^']*', ){10}and (\d+) more\)$/.exec(
      fitted.leftOut ?? ''
    ) ?? ['', '0', '0']
    expect(Number(all)).toBeGreaterThan(10)
    expect(Number(more)).toBe(Number(all) - 10)
    expect(fitted.text).toContain('&#39;Jenkins builds › job-0 &#60;x&#62;&#39;')
    expect(fitted.text).toContain(`, and ${more} more)`)
    expect(Buffer.byteLength(fitted.text)).toBeLessThanOrEqual(10_000)
  })
})

describe('boundedSummary', () => {
  let file: string
  beforeEach(() => {
    file = join(mkdtempSync(join(tmpdir(), 'summary-cap-')), 'summary.md')
    writeFileSync(file, '')
    process.env.GITHUB_STEP_SUMMARY = file
    core.summary.emptyBuffer()
  })
  afterEach(() => {
    delete process.env.GITHUB_STEP_SUMMARY
    core.summary.emptyBuffer()
  })

  it('writes what fits unchanged, and a summary too large cut between calls, with a warning', async () => {
    const warnings: string[] = []
    const logger = { debug: () => {}, info: () => {}, warning: (m: string) => warnings.push(m) }
    const summary = boundedSummary(core.summary, logger, asIs)
    await summary
      .addHeading('Small', 2)
      .addTable([['a', 'b']])
      .write()
    expect(readFileSync(file, 'utf8')).toBe(
      '<h2>Small</h2>\n<table><tr><td>a</td><td>b</td></tr></table>\n'
    )
    expect(warnings).toEqual([])

    writeFileSync(file, '')
    summary.addHeading('Jenkins deploy', 2).addTable([['Result', 'FAILURE']])
    summary.addHeading('Stages', 3)
    summary.addTable(Array.from({ length: 30_000 }, (_, i) => [`stage ${i}`, 'SUCCESS']))
    summary.addHeading('Console', 3)
    summary.addDetails('Last lines', '<pre>boom</pre>')
    await summary.write()
    const written = readFileSync(file, 'utf8')
    expect(Buffer.byteLength(written)).toBeLessThanOrEqual(LIMIT)
    expect(written).toContain('<h2>Jenkins deploy</h2>')
    expect(written).toContain('<details><summary>Last lines</summary><pre>boom</pre></details>')
    expect(written).not.toContain('<h3>Stages</h3>')
    expect(written).toContain('left out 1 section(s) (&#39;Jenkins deploy › Stages&#39;)')
    expect(balanced(written)).toBe(true)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(
      /^The job summary was \d+ KiB, over GitHub's limit of 1 MiB for a step: left out 1 section\(s\) \('Jenkins deploy › Stages'\)\.$/
    )
  })

  it('counts what the file already holds', async () => {
    writeFileSync(file, 'x'.repeat(LIMIT - 5_000))
    const { summary: target, written } = recording()
    const summary = boundedSummary(target, { debug() {}, info() {}, warning() {} }, asIs)
    summary.addHeading('Jenkins', 2)
    summary.addHeading('Big', 3).addRaw('y'.repeat(10_000), true)
    await summary.write()
    expect(written).toHaveLength(1)
    expect(Buffer.byteLength(written[0] ?? '')).toBeLessThanOrEqual(5_000)
    expect(written[0]).toContain('<h2>Jenkins</h2>')
    expect(written[0]).not.toContain('yyyy')
  })
})

describe('boundedSummary keeps what it holds bounded', () => {
  const quiet = { debug() {}, info() {}, warning() {} }
  beforeEach(() => core.summary.emptyBuffer())
  afterEach(() => core.summary.emptyBuffer())

  it("never lets the summary's buffer grow: each add starts on an empty one", () => {
    const { summary, longest } = recording()
    const bounded = boundedSummary(summary, quiet, asIs)
    for (let i = 0; i < 200; i++) bounded.addHeading(`test ${i}`, 3).addRaw('x'.repeat(1024), true)
    expect(longest()).toBe(0)
    expect(bounded.stringify()).toContain(`<h3>test 199</h3>\n${'x'.repeat(1024)}\n`)
  })

  it('keeps at most twice the limit and one unit, and still counts every section left out', async () => {
    const { summary, written } = recording()
    const warnings: string[] = []
    const bounded = boundedSummary(
      summary,
      { ...quiet, warning: (m: string) => warnings.push(m) },
      asIs
    )
    let held = 0
    bounded.addHeading('Jenkins builds', 2).addRaw('first', true)
    for (let i = 0; i < 400; i++) {
      bounded.addHeading(`job-${i}`, 3).addRaw('y'.repeat(10_000), true)
      held = Math.max(held, Buffer.byteLength(bounded.stringify()))
    }
    expect(held).toBeLessThanOrEqual(2 * LIMIT + 10_100)
    await bounded.write()
    const text = written.join('')
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(LIMIT)
    const kept = (text.match(/<h3>job-\d+<\/h3>/g) ?? []).length
    expect(kept).toBeGreaterThan(0)
    expect(text).toContain('<h2>Jenkins builds</h2>\nfirst\n')
    expect(text).toContain(`left out ${400 - kept} section(s) (&#39;Jenkins builds › job-`)
    expect(warnings).toEqual([
      expect.stringMatching(
        new RegExp(`^The job summary was 39\\d\\d KiB, over .*: left out ${400 - kept} section`)
      )
    ])
  })

  it('writes each unit redacted', async () => {
    const { summary, written } = recording()
    const bounded = boundedSummary(summary, quiet, text => text.replaceAll('s3cr3t-value', '***'))
    bounded.addHeading('deploy s3cr3t-value', 2).addTable([['s3cr3t-value']])
    expect(bounded.stringify()).not.toContain('s3cr3t')
    await bounded.write()
    expect(written).toEqual(['<h2>deploy ***</h2>\n<table><tr><td>***</td></tr></table>\n'])
  })
})
