import { describe, expect, it } from 'vitest'
import {
  countBy,
  formatMb,
  formatMs,
  formatRange,
  formatRate,
  formatSeconds,
  markdownTable,
  median,
  percentile,
  ratio
} from '../../bench/stats.js'

describe('percentile', () => {
  it('interpolates between closest ranks, whatever the input order', () => {
    expect(percentile([4, 1, 3, 2], 50)).toBe(2.5)
    expect(percentile([10, 20, 30, 40, 50], 95)).toBeCloseTo(48)
    expect(percentile([3, 1, 2], 0)).toBe(1)
    expect(percentile([3, 1, 2], 100)).toBe(3)
    expect(median([5, 1, 9])).toBe(5)
  })

  it('ignores missing values and is NaN without any', () => {
    expect(median([NaN, 2, 4, Infinity])).toBe(3)
    expect(median([])).toBeNaN()
  })

  it('does not reorder the caller’s array', () => {
    const values = [3, 1, 2]
    percentile(values, 50)
    expect(values).toEqual([3, 1, 2])
  })
})

describe('ratio and formats', () => {
  it('divides ours by the baseline with digits that fit the size', () => {
    expect(ratio(250, 5000)).toBe('0.050×')
    expect(ratio(1, 4)).toBe('0.25×')
    expect(ratio(22, 4)).toBe('5.5×')
    expect(ratio(50, 1)).toBe('50×')
  })

  it('says n/a rather than dividing by zero or by nothing', () => {
    expect(ratio(50, 0)).toBe('n/a')
    expect(ratio(NaN, 3)).toBe('n/a')
  })

  it('formats durations and sizes', () => {
    expect(formatMs(849.6)).toBe('850 ms')
    expect(formatMs(12_345)).toBe('12.3 s')
    expect(formatMs(NaN)).toBe('n/a')
    expect(formatMb(84 * 1024 * 1024)).toBe('84.0 MB')
  })

  it('formats seconds and rates with two decimals, n/a for a missing figure', () => {
    expect(formatSeconds(5071)).toBe('5.07 s')
    expect(formatSeconds(-430)).toBe('-0.43 s')
    expect(formatSeconds(NaN)).toBe('n/a')
    expect(formatRate(0.7312)).toBe('0.73/s')
    expect(formatRate(Infinity)).toBe('n/a')
    expect(formatRange([120, 95.4, 101])).toBe('0.10 s – 0.12 s')
  })
})

describe('markdownTable', () => {
  it('pads columns and escapes pipes', () => {
    expect(markdownTable(['a', 'bb'], [['x|y', '1'], ['z']])).toBe(
      ['| a    | bb  |', '| ---- | --- |', '| x\\|y | 1   |', '| z    |     |'].join('\n')
    )
  })
})

describe('countBy', () => {
  it('counts by key, keys sorted', () => {
    expect(Object.entries(countBy(['log', 'build', 'log'], k => k))).toEqual([
      ['build', 1],
      ['log', 2]
    ])
  })
})
