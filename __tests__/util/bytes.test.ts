import { expect, test } from 'vitest'
import { formatBytes, kib } from '../../src/util/bytes.js'

test('formatBytes: binary units, labelled as such (120,000 bytes is 117.2 KiB, never "KB")', () => {
  expect([0, 1023, 1536, 120_000, 200 * 1024 * 1024, 3 * 1024 ** 3].map(formatBytes)).toEqual([
    '0 B',
    '1023 B',
    '1.5 KiB',
    '117.2 KiB',
    '200 MiB',
    '3 GiB'
  ])
})

test('kib: whole KiB rounded up, so a size over a limit never reads as under it', () => {
  expect([1, 1024, 1025].map(kib)).toEqual(['1 KiB', '1 KiB', '2 KiB'])
})
