/**
 * The hand-off's one format: the description a step writes is the one a
 * settle run reads back, within GitHub's 140 characters; anything else,
 * and a target URL not below `url`, is not a hand-off.
 */
import { describe, expect, it } from 'vitest'
import {
  HAND_OFF_MARK,
  handOffDescription,
  handOffJob,
  parseHandOff
} from '../../src/outcome/hand-off.js'

describe('hand-off description', () => {
  it.each([
    [{ queueId: 123 }, 'Handed off to Jenkins: queue item 123'],
    [{ queueId: 123, build: 45 }, 'Handed off to Jenkins: queue item 123, build #45'],
    [{ build: 45 }, 'Handed off to Jenkins: build #45']
  ])('%o reads back as written: %s', (handOff, text) => {
    expect(handOffDescription(handOff)).toBe(text)
    expect(parseHandOff(text)).toEqual(handOff)
  })

  it('fits in GitHub’s 140 characters whatever the numbers', () => {
    const text = handOffDescription({ queueId: Number.MAX_SAFE_INTEGER, build: 2 ** 31 })
    expect(text.length).toBeLessThanOrEqual(140)
    expect(parseHandOff(text)).toEqual({ queueId: Number.MAX_SAFE_INTEGER, build: 2 ** 31 })
  })

  it.each([
    null,
    '',
    'Queued in Jenkins',
    'Jenkins build #4 running',
    `${HAND_OFF_MARK}: `,
    `${HAND_OFF_MARK}: queue item 12build #3`,
    `${HAND_OFF_MARK}: , build #3`,
    `${HAND_OFF_MARK}: build #3, queue item 12`,
    `${HAND_OFF_MARK}: queue item 12, build #0`,
    `${HAND_OFF_MARK}: queue item 12 `,
    ` ${HAND_OFF_MARK}: queue item 12`,
    `${HAND_OFF_MARK}: queue item 12345678901234567`,
    `${HAND_OFF_MARK}: queue item -1`
  ])('%j is not a hand-off', text => {
    expect(parseHandOff(text)).toBeUndefined()
  })
})

describe('hand-off job', () => {
  const base = 'https://ci.example.com/jenkins/'
  it('reads the job page below url, folders included', () => {
    expect(handOffJob('https://ci.example.com/jenkins/job/a/job/b%20c/', base)).toEqual([
      'a',
      'b c'
    ])
  })
  it.each([
    'https://other.example.com/jenkins/job/a/',
    'https://ci.example.com:8443/jenkins/job/a/',
    'http://ci.example.com/jenkins/job/a/',
    'https://ci.example.com/other/job/a/',
    'https://ci.example.com/jenkins/queue/item/5/',
    'https://ci.example.com/jenkins/',
    'https://user:pw@ci.example.com/jenkins/job/a/',
    'https://ci.example.com/jenkins/job/a/?x=1',
    'https://ci.example.com/jenkins/job/../job/a/',
    'javascript:alert(1)',
    null,
    ''
  ])('%j names no job below url', url => {
    expect(handOffJob(url, base)).toBeUndefined()
  })
})
