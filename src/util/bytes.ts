/**
 * Sizes for people, in one unit system everywhere the action writes one:
 * binary units (1 KiB = 1,024 bytes), the ones the limits are set in
 * (GitHub's 1 MiB summary, 64 KiB reads, 8 MiB answers) and that a size
 * computed by 1,024 must be labelled with.
 */

const UNITS = ['KiB', 'MiB', 'GiB', 'TiB']

/** '512 B', '1.5 KiB', '200 MiB': one decimal, none when it is 0. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${Math.round(bytes)} B`
  let value = bytes / 1024
  let unit = 0
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024
    unit++
  }
  return `${value.toFixed(1).replace(/\.0$/, '')} ${UNITS[unit]}`
}

/** Bytes as whole KiB, rounded up: for a size against a limit, never shown under it. */
export function kib(bytes: number): string {
  return `${Math.ceil(bytes / 1024)} KiB`
}
