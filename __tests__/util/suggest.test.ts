import { describe, expect, it } from 'vitest'
import { closestNames, editDistance } from '../../src/util/suggest.js'

describe('editDistance', () => {
  it('counts edits, ignoring case', () => {
    expect(editDistance('deploy', 'deploy')).toBe(0)
    expect(editDistance('deploy', 'Deploy')).toBe(0)
    expect(editDistance('deploi', 'deploy')).toBe(1)
    expect(editDistance('', 'abc')).toBe(3)
  })
})

describe('closestNames', () => {
  const jobs = ['team/service/deploy', 'team/service/build', 'team/other/deploy', 'unrelated']
  it('suggests jobs with a close full name', () => {
    expect(closestNames('team/service/deplyo', jobs)[0]).toBe('team/service/deploy')
  })
  it('suggests jobs whose last segment matches a bare name', () => {
    expect(closestNames('deploy', jobs)).toEqual(['team/other/deploy', 'team/service/deploy'])
  })
  it('suggests nothing for a name far from all', () => {
    expect(closestNames('zzzzzzzzzz', jobs)).toEqual([])
  })
  it('suggests a parameter name', () => {
    expect(closestNames('BRANHC', ['BRANCH', 'PR'], 1)).toEqual(['BRANCH'])
  })
})
