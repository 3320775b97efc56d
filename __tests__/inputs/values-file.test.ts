import { describe, expect, it } from 'vitest'
import { parseJobs, parseValuesFile } from '../../src/inputs/jobs-input.js'
import { InputError } from '../../src/util/input-error.js'

const URL = 'http://127.0.0.1:1/jenkins'
const NONE = { parameters: {}, hasParameters: false, branch: '' }

describe('values-file', () => {
  it('takes an artifact path; empty is none', () => {
    expect(parseValuesFile(' out/values.json ', "Input 'values-file'")).toBe('out/values.json')
    expect(parseValuesFile('  ', "Input 'values-file'")).toBeUndefined()
  })

  it.each([
    ['../secret.env', "has a '..' segment"],
    ['/etc/passwd', 'is absolute'],
    ['a//b.env', 'has an empty path segment'],
    ['a\\b.env', 'contains a backslash'],
    ['a\u0007.env', 'contains a control character']
  ])('refuses %j: it %s', (value, reason) => {
    expect(() => parseValuesFile(value, "Input 'values-file'")).toThrow(InputError)
    expect(() => parseValuesFile(value, "Input 'values-file'")).toThrow(
      new RegExp(
        `^Input 'values-file' \\(.*\\) ${reason.replace(/[.()]/g, '\\$&')}: expected the path of an artifact`
      )
    )
  })

  it('with jobs: an item’s own, else the shared one; "" for none', () => {
    const { entries } = parseJobs(
      '["a", {"job": "b", "values-file": "b.env"}, {"job": "c", "values-file": ""}]',
      URL,
      { ...NONE, valuesFile: 'values.json' }
    )
    expect(entries.map(e => e.valuesFile)).toEqual(['values.json', 'b.env', undefined])
  })

  it('with jobs: refuses an item’s values-file that is not a path string', () => {
    expect(() => parseJobs('[{"job": "b", "values-file": 3}]', URL, NONE)).toThrow(
      "Input 'jobs' item 1 has a 'values-file' that is a number"
    )
    expect(() => parseJobs('[{"job": "b", "values-file": "../x"}]', URL, NONE)).toThrow(
      "Input 'jobs' item 1's 'values-file' ('../x') has a '..' segment"
    )
  })
})
