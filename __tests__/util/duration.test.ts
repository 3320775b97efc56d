import { describe, expect, test } from 'vitest'
import { MAX_DURATION_MS, parseDuration } from '../../src/util/duration.js'
import { InputError } from '../../src/util/input-error.js'

describe('parseDuration', () => {
  test.each([
    ['90', 90_000],
    ['90s', 90_000],
    ['15m', 900_000],
    ['2h', 7_200_000],
    ['1h30m', 5_400_000],
    ['1h30m15s', 5_415_000],
    ['2h 5m 10s', 7_510_000],
    ['90S', 90_000],
    ['1H', 3_600_000],
    [' 45 ', 45_000],
    ['120h', MAX_DURATION_MS],
    ['1', 1000]
  ])('%s → %i ms', (text, ms) => {
    expect(parseDuration(text, 'timeout')).toBe(ms)
  })

  test.each(['-1', '10x', 'abc', '1.5h', '15ms', '30m1h', '1d', 'h', '', '1h-5m', 'Infinity'])(
    '%j is not a duration',
    text => {
      expect(() => parseDuration(text, 'timeout')).toThrow(
        /^Input 'timeout' .*is not a duration: expected seconds/
      )
    }
  )

  test.each(['0', '0s', '0h0m0s', '120h1s', '121h', '99999999999999999999', '9'.repeat(400)])(
    '%s is out of range',
    text => {
      expect(() => parseDuration(text, 'timeout')).toThrow(
        /is out of range: .*more than 0 and at most 120h/
      )
    }
  )

  test('errors are InputError naming the given input, and a long value is clipped', () => {
    let thrown: unknown
    try {
      parseDuration('x'.repeat(100), 'my-input')
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(InputError)
    expect((thrown as Error).message).toMatch(/^Input 'my-input' \('x{40}…'\)/)
  })
})
