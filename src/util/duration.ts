import { InputError } from './input-error.js'
import { clip } from './shorten.js'

/**
 * Upper bound of a duration input: 120 h. Self-hosted runners end a job after
 * 5 days (GitHub-hosted ones after 6 h), so a longer step bound could never
 * fire. It also keeps the value far below setTimeout's 2^31-1 ms (24.8 days),
 * above which Node fires the timer at once instead of never.
 * @internal
 */
export const MAX_DURATION_MS = 120 * 60 * 60 * 1000

const UNITS_MS = { h: 3_600_000, m: 60_000, s: 1000 } as const
const DURATION = /^(\d+)$|^(?:(\d+)\s*h)?\s*(?:(\d+)\s*m)?\s*(?:(\d+)\s*s)?$/i

/**
 * Parses `90` (seconds), `90s`, `15m`, `2h` or a combination in the order
 * h, m, s (`1h30m`, `2h 5m 10s`) into milliseconds. Units are
 * case-insensitive; only whole numbers. The result is more than 0 and at most
 * MAX_DURATION_MS.
 */
export function parseDuration(value: string, input: string): number {
  const expected = `expected seconds (\`90\`) or whole numbers with units h, m, s (\`90s\`, \`15m\`, \`2h\`, \`1h30m\`), more than 0 and at most ${MAX_DURATION_MS / 3_600_000}h`
  const text = value.trim()
  // Plain seconds, or hours, minutes and seconds with their units (one of them at least).
  const [, plain, h, m, s = plain] = DURATION.exec(text) ?? []
  if ((h ?? m ?? s) === undefined) {
    throw new InputError(`Input '${input}' ('${clip(text)}') is not a duration: ${expected}.`)
  }
  const ms = Number(h ?? 0) * UNITS_MS.h + Number(m ?? 0) * UNITS_MS.m + Number(s ?? 0) * UNITS_MS.s
  if (!(ms > 0) || !(ms <= MAX_DURATION_MS)) {
    throw new InputError(`Input '${input}' ('${clip(text)}') is out of range: ${expected}.`)
  }
  return ms
}

/** '850 ms', '1.5 s', '42 s', '1 min 3 s', '2 h 5 min'. */
export function formatDuration(ms: number | undefined): string {
  // Undefined: Jenkins sent none that is a count (decodeBuild). Beyond the safe-integer range a number is not a duration (1e+21).
  if (ms === undefined || !Number.isFinite(ms) || ms < 0 || ms > Number.MAX_SAFE_INTEGER)
    return 'unknown'
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 10_000) return `${Math.floor(ms / 100) / 10} s`
  if (ms < 60_000) return `${Math.floor(ms / 1000)} s`
  const totalSeconds = Math.round(ms / 1000)
  const hours = Math.floor(totalSeconds / 3600)
  const minutes = Math.floor((totalSeconds % 3600) / 60)
  const seconds = totalSeconds % 60
  const parts: string[] = []
  if (hours > 0) parts.push(`${hours} h`)
  if (minutes > 0) parts.push(`${minutes} min`)
  // Seconds are noise next to hours.
  if (seconds > 0 && hours === 0) parts.push(`${seconds} s`)
  return parts.join(' ')
}
