import { describe, expect, it } from 'vitest'
import { parseJsonPrefix } from '../../../src/jenkins/reports/json-prefix.js'

describe('parseJsonPrefix', () => {
  const whole = JSON.stringify({
    _class: 'T',
    suites: [
      { cases: [{ name: 'a,]}' }, { name: 'b\\"' }, { name: 'c' }], name: 'S0' },
      { cases: [{ name: 'd' }, { name: 'e' }], name: 'S1' }
    ]
  })

  it('keeps the whole elements before the cut and closes what was open', () => {
    const cut = whole.slice(0, whole.indexOf('{"name":"c"') + 5)
    expect(parseJsonPrefix(cut)).toEqual({
      value: { _class: 'T', suites: [{ cases: [{ name: 'a,]}' }, { name: 'b\\"' }] }] },
      openKeys: ['suites', 'cases']
    })
  })

  it('says when the cut fell between suites rather than among cases', () => {
    const cut = whole.slice(0, whole.indexOf('{"cases":[{"name":"d"') + 3)
    const prefix = parseJsonPrefix(cut)
    expect(prefix?.openKeys).toEqual(['suites'])
    expect((prefix?.value as { suites: unknown[] }).suites).toHaveLength(1)
  })

  it('is undefined when not one element is whole, or inside a string of commas', () => {
    expect(parseJsonPrefix('{"suites":[{"cases":[{"name":"x')).toBeUndefined()
    expect(parseJsonPrefix('{"suites":[{"name":"a,b,c')).toBeUndefined()
    expect(parseJsonPrefix('')).toBeUndefined()
  })

  it('gives up on nesting no report has, without spending time on it', () => {
    expect(parseJsonPrefix(`${'['.repeat(500_000)}1,2,3`)).toBeUndefined()
    expect(parseJsonPrefix(`${'['.repeat(32)}1,2`)?.value).toEqual(
      JSON.parse(`${'['.repeat(32)}1${']'.repeat(32)}`)
    )
  })
})
