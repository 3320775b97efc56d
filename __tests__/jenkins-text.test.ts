import { describe, expect, it } from 'vitest'
import { safeLine, safeLines } from '../src/jenkins-text.js'
import { runnerView } from './e2e/helpers.js'

describe('safeLine / safeLines', () => {
  it('no line of hostile Jenkins text is a workflow command to the runner', () => {
    const hostile = [
      '::error::boom',
      '   ::set-output name=x::1',
      'ok\r::warning::after a CR',
      'ok\r\n::add-mask::x',
      'mid ##[error]legacy command',
      '\x1b[8mha:////AAAA\x1b[0m::notice::behind a note'
    ].join('\n')
    const lines = safeLines(hostile)
    expect(lines).toHaveLength(8)
    const printed = lines.join('\n')
    expect(runnerView(printed).filter(l => l.command)).toEqual([])
    expect(printed).not.toContain('##[')
    expect(lines[0]).toBe(':\u200b:error::boom')
    expect(lines[7]).toBe(':\u200b:notice::behind a note')
  })

  it('safeLine folds line breaks into one line', () => {
    expect(safeLine('a\nb\r\nc\rd')).toBe('a b c d')
    expect(safeLine('feature/x')).toBe('feature/x')
  })
})
