/**
 * Where a step's failed tests go: 9 error annotations (GitHub shows 10 a
 * step, the tenth kept for the step's own failure), then 41 log lines, then
 * one line pointing to the job summary.
 */
import { describe, expect, it } from 'vitest'
import { failedTestsTo } from '../../src/step/step-io.js'

function sinks() {
  const out: string[] = []
  return {
    out,
    sinks: {
      error: (message: string, { title }: { title: string }) =>
        void out.push(`error ${title}: ${message}`),
      info: (line: string) => void out.push(line)
    }
  }
}

describe('failedTestsTo', () => {
  it('annotates 9, lists the next 41 in the log, then says once where the rest are', () => {
    const { out, sinks: s } = sinks()
    const annotate = failedTestsTo(s)
    for (let i = 1; i <= 60; i++) annotate(`expected ${i}\nat line ${i}`, `test ${i}`)
    const errors = out.filter(l => l.startsWith('error '))
    expect(errors).toHaveLength(9)
    expect(errors[8]).toBe('error test 9: expected 9\nat line 9')
    expect(out[9]).toBe(
      "GitHub shows 10 error annotations a step, the last kept for the step's result: the other failed tests follow here, and in the job summary."
    )
    expect(out.slice(10, 12)).toEqual(['Failed test test 10: expected 10', '  at line 10'])
    expect(out.filter(l => l.startsWith('Failed test '))).toHaveLength(41)
    expect(out.filter(l => l.startsWith('Failed test ')).at(-1)).toBe(
      'Failed test test 50: expected 50'
    )
    expect(out.at(-1)).toBe(
      "The failed tests after these 50 are not listed here: see the job summary and each build's test report."
    )
    expect(out.filter(l => l.startsWith('The failed tests after'))).toHaveLength(1)
    expect(out).toHaveLength(9 + 1 + 41 * 2 + 1)
  })

  it('with 10 failed tests: 9 annotations and one log line, nothing said of more', () => {
    const { out, sinks: s } = sinks()
    const annotate = failedTestsTo(s)
    for (let i = 1; i <= 10; i++) annotate(`expected ${i}`, `test ${i}`)
    expect(out.slice(9)).toEqual([
      "GitHub shows 10 error annotations a step, the last kept for the step's result: the other failed tests follow here, and in the job summary.",
      'Failed test test 10: expected 10'
    ])
  })

  it('passes the place of an annotation on', () => {
    const places: unknown[] = []
    const annotate = failedTestsTo({
      error: (_message, properties) => void places.push(properties),
      info: () => undefined
    })
    annotate('boom', 'CartTest', { file: 'src/cart.ts', line: 12 })
    expect(places).toEqual([{ title: 'CartTest', file: 'src/cart.ts', startLine: 12 }])
  })
})
