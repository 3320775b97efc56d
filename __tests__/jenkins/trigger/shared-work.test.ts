import { describe, expect, it } from 'vitest'
import { entriesOf } from '../../../src/jenkins/reads/decode.js'
import { isOwnAlone, isShared, USER_ID_CAUSE } from '../../../src/jenkins/trigger/shared-work.js'

/** The causes isShared counts: those CauseAction exports in an `actions` array. */
const causeCount = (actions: unknown): number | undefined => entriesOf(actions, 'causes')?.length

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

  it('work is ours alone only as one UserIdCause of our user, nothing merged in', () => {
    const timer = 'hudson.triggers.TimerTrigger$TimerTriggerCause'
    expect(isOwnAlone({ causes: [USER_ID_CAUSE], userIds: ['alice'] }, 'alice')).toBe(true)
    // Jenkins' default IdStrategy ignores case.
    expect(isOwnAlone({ causes: [USER_ID_CAUSE], userIds: ['Alice'] }, 'alice')).toBe(true)
    expect(isOwnAlone({ causes: [USER_ID_CAUSE], userIds: ['bob'] }, 'alice')).toBe(false)
    expect(isOwnAlone({ causes: [USER_ID_CAUSE], userIds: [null] }, 'alice')).toBe(false)
    expect(isOwnAlone({ causes: [USER_ID_CAUSE] }, 'alice')).toBe(false)
    expect(isOwnAlone({ causes: [timer, USER_ID_CAUSE], userIds: ['alice'] }, 'alice')).toBe(false)
    expect(
      isOwnAlone({ causes: [USER_ID_CAUSE, USER_ID_CAUSE], userIds: ['alice', 'alice'] }, 'alice')
    ).toBe(false)
    // A cause of another class carrying a userId is not a request of the user.
    expect(isOwnAlone({ causes: [timer], userIds: ['alice'] }, 'alice')).toBe(false)
    expect(isOwnAlone({ causes: [], userIds: ['alice'] }, 'alice')).toBe(false)
    expect(isOwnAlone({}, 'alice')).toBe(false)
    expect(isOwnAlone({ causes: [USER_ID_CAUSE], userIds: ['alice'] }, undefined)).toBe(false)
  })
})
