import { describe, expect, it } from 'vitest'
import { failedSection, renderReport } from '../../bench/report.js'
import type { Section } from '../../bench/scenario.js'

const measured: Section = {
  settings: ['- Upload: one file.'],
  rows: [
    {
      metric: 'upload throughput',
      ours: '400 MiB/s',
      baseline: '430 MiB/s',
      ratio: '0.93',
      target: '≥ 0.8× curl',
      met: true
    }
  ],
  notes: ['- **Upload**: per run, 400 MiB/s.']
}

function report(sections: Array<{ name: string; section: Section }>): string {
  return renderReport({
    context: {
      quick: false,
      node: { path: process.execPath, version: process.version },
      bundleBytes: 1024
    },
    sections,
    benchSeconds: 1,
    startLoad: '0.00 0.00 0.00',
    bundleGzipBytes: 512,
    baselineBytes: 100
  }).markdown
}

describe('a scenario that failed', () => {
  const error = new Error('hand-off: the step exited 1\n    at somewhere (bench.ts:1:1)')
  const markdown = report([
    { name: 'upload', section: measured },
    { name: 'hand-off', section: failedSection('hand-off', error) }
  ])

  it('keeps the figures of the scenarios that ran', () => {
    expect(markdown).toMatch(/\| upload throughput +\| 400 MiB\/s +\| 430 MiB\/s/)
    expect(markdown).toContain('- **Upload**: per run, 400 MiB/s.')
  })

  it('has a failed row, a note and a missed target with its first line, not its stack', () => {
    expect(markdown).toMatch(
      /\| hand-off: the scenario failed +\| no figures +\| +\| +\| runs to its end +\| \*\*no\*\* \(by the whole scenario\) \|/
    )
    expect(markdown).toContain(
      '- **hand-off** failed before its figures were taken: hand-off: the step exited 1\n'
    )
    expect(markdown).toContain(
      '- **hand-off: the scenario failed**: no figures against runs to its end, missed by the whole scenario. hand-off: the step exited 1'
    )
    expect(markdown).not.toContain('bench.ts:1:1')
  })

  it('says so for a thrown value that is not an Error', () => {
    expect(failedSection('jobs', 'server gone').notes).toEqual([
      '- **jobs** failed before its figures were taken: server gone'
    ])
  })
})
