/**
 * The step's one redaction at the runner's seam: a secret given to
 * maskSecret is registered with the runner (`::add-mask::`) and taken out of
 * annotations (title and message), warnings and log lines, which the
 * runner shows as the step wrote them.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { coreLogger, coreStepIO, maskSecret, redactSecrets } from '../../src/step/step-io.js'

let written: string[]
beforeEach(() => {
  written = []
  vi.spyOn(process.stdout, 'write').mockImplementation(chunk => {
    written.push(String(chunk))
    return true
  })
})
afterEach(() => vi.restoreAllMocks())

describe("the step's secrets", () => {
  it('registers each with the runner, and every line and annotation leaves without it', () => {
    const secret = 'jt-5e1f0c2d9a8b7c6d'
    expect(redactSecrets(`token ${secret}`)).toBe(`token ${secret}`)
    maskSecret(secret)
    expect(written).toEqual([`::add-mask::${secret}\n`])
    coreStepIO.annotate(`expected ${secret}`, `test ${secret}`, { file: 'a.ts', line: 3 })
    coreLogger.warning(`description: ${secret}`)
    coreLogger.info(`display name ${secret}`)
    coreLogger.debug(`read ${secret}`)
    expect(written.slice(1)).toEqual([
      '::error title=test ***,file=a.ts,line=3::expected ***\n',
      '::warning::description: ***\n',
      'display name ***\n',
      '::debug::read ***\n'
    ])
    expect(coreStepIO.redact(`a ${secret} cut here: ${secret.slice(0, 9)}…`)).toBe(
      'a *** cut here: ***…'
    )
  })

  it('ignores an empty value', () => {
    maskSecret('')
    expect(written).toEqual([])
  })
})
