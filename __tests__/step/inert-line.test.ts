import { describe, expect, it } from 'vitest'
import { inertLine } from '../../src/step/step-io.js'
import { commands, runnerView } from '../fixtures/runner-log.js'

/** Text a hostile Jenkins could put in a `why`, a job name or a result. */
const PAYLOADS = [
  '::error::x',
  '\r::warning::x',
  '\n::stop-commands::x',
  '##[error]x',
  '  ::add-mask::x',
  '\u0085::error::x',
  '\u2028::error::x',
  '\r\n::set-output name=a::x',
  '#[error]x',
  '##',
  '###[error]x',
  '::',
  ':'
]

describe('inertLine', () => {
  it.each(PAYLOADS)('%j forms no command, alone or in a line', payload => {
    for (const line of [
      payload,
      `Waiting in the Jenkins queue: ${payload}`,
      `  ${payload}`,
      // Boundaries: Jenkins text next to the action's own `#` or `:`.
      `build #${payload}`,
      `${payload}[error]y`,
      `${payload}:error::y`
    ]) {
      const printed = inertLine(line)
      expect(commands(`${printed}\n`), JSON.stringify(printed)).toEqual([])
      expect(runnerView(`${printed}\n`)).toHaveLength(1)
    }
  })

  it('is needed: printed raw, the same payloads do form commands', () => {
    for (const payload of PAYLOADS.slice(0, 8)) {
      expect(commands(`${payload}\n`), payload).not.toEqual([])
    }
  })

  it('leaves ordinary text alone and shows what it escaped', () => {
    expect(inertLine('Build #12 is already in progress (ETA: 1 min)')).toBe(
      'Build #12 is already in progress (ETA: 1 min)'
    )
    expect(inertLine('  folder/job\tx')).toBe('  folder/job\tx')
    expect(inertLine('a\nb\r\nc\x1b[31m')).toBe('a\\nb\\r\\nc\\x1b[31m')
    expect(inertLine('  ::error::x')).toBe('  \\::error::x')
    expect(inertLine('why ##[error]x')).toBe('why #\\#[error]x')
    expect(inertLine('\u0085::x')).toBe('\\x85::x')
  })
})
