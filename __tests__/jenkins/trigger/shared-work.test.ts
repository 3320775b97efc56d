import { describe, expect, it } from 'vitest'
import { causeCount, isShared } from '../../../src/jenkins/trigger/shared-work.js'

const cause = { _class: 'hudson.model.Cause$UserIdCause', userId: 'alice' }

describe('shared work (causes folded into a queue item or build)', () => {
  it('counts the causes CauseAction exports, one per request', () => {
    expect(causeCount([{ _class: 'hudson.model.CauseAction', causes: [cause] }, {}])).toBe(1)
    // The same user twice: getCauses() repeats the cause by its count.
    const twice = [{}, { _class: 'hudson.model.CauseAction', causes: [cause, cause] }]
    expect(causeCount(twice)).toBe(2)
    expect(isShared(twice)).toBe(true)
    expect(isShared([{ _class: 'hudson.model.CauseAction', causes: [cause] }])).toBe(false)
  })

  it('knows nothing without a CauseAction (and says not shared)', () => {
    expect(causeCount(undefined)).toBeUndefined()
    expect(
      causeCount([{}, { _class: 'hudson.model.ParametersAction', parameters: [] }])
    ).toBeUndefined()
    expect(isShared(null)).toBe(false)
  })
})
