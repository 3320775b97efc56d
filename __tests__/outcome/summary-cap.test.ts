import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as core from '@actions/core'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { boundedSummary, fitSummary } from '../../src/outcome/summary-cap.js'

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

const table = (rows: number, cell: string) =>
  `<table><tr><th>Name</th></tr>${Array.from({ length: rows }, (_, i) => `<tr><td>${cell}${i}</td></tr>`).join('')}</table>\n`

describe('fitSummary', () => {
  it('leaves what fits as it is', () => {
    const units = ['<h2>Jenkins</h2>\n', table(3, 'a')]
    expect(fitSummary(units, 10_000)).toEqual({ text: units.join(''), sections: [], rows: 0 })
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
    expect(fitted.sections).toEqual(['Jenkins deploy › Stages', 'Jenkins deploy › Chart'])
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
    expect(fitted.rows).toBeGreaterThan(4000)
    expect(fitted.text).toContain('<tr><td>' + 'job-'.repeat(20) + '0</td></tr>')
    expect(fitted.text).toContain(`left out ${fitted.rows} table row(s)`)
    expect(balanced(fitted.text)).toBe(true)
  })

  it('names ten sections and counts the rest', () => {
    const units = ['<h2>Jenkins builds</h2>\n']
    for (let i = 0; i < 30; i++) units.push(`<h3>job-${i} &#60;x&#62;</h3>\n`, table(100, 'r'))
    const fitted = fitSummary(units, 10_000)
    expect(fitted.sections.length).toBeGreaterThan(10)
    expect(fitted.text).toContain('&#39;Jenkins builds › job-0 &#60;x&#62;&#39;')
    expect(fitted.text).toContain(`, and ${fitted.sections.length - 10} more)`)
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
    const summary = boundedSummary(core.summary, logger, { maxBytes: 30_000 })
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
    summary.addTable(Array.from({ length: 2000 }, (_, i) => [`stage ${i}`, 'SUCCESS']))
    summary.addHeading('Console', 3)
    summary.addDetails('Last lines', '<pre>boom</pre>')
    await summary.write()
    const written = readFileSync(file, 'utf8')
    expect(Buffer.byteLength(written)).toBeLessThanOrEqual(30_000)
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
    writeFileSync(file, 'x'.repeat(25_000))
    const summary = boundedSummary(
      core.summary,
      { debug() {}, info() {}, warning() {} },
      {
        maxBytes: 30_000
      }
    )
    summary.addHeading('Jenkins', 2)
    summary.addHeading('Big', 3).addRaw('y'.repeat(10_000), true)
    await summary.write()
    expect(readFileSync(file).byteLength).toBeLessThanOrEqual(30_000)
    expect(readFileSync(file, 'utf8')).not.toContain('yyyy')
  })
})
