/** Jenkins' `Util.getTimeSpanString`, used in queue `why` texts ("4.9 sec", "1 min 3 sec"). */
export function timeSpan(ms: number): string {
  const duration = Math.max(0, Math.floor(ms))
  const hours = Math.floor(duration / 3_600_000)
  const minutes = Math.floor((duration % 3_600_000) / 60_000)
  const seconds = Math.floor((duration % 60_000) / 1000)
  const millis = duration % 1000
  const pair = (big: number, bigLabel: string, small: number, smallLabel: string): string =>
    big < 10 ? `${big} ${bigLabel} ${small} ${smallLabel}` : `${big} ${bigLabel}`
  if (hours > 0) return pair(hours, 'hr', minutes, 'min')
  if (minutes > 0) return pair(minutes, 'min', seconds, 'sec')
  if (seconds >= 10) return `${seconds} sec`
  if (seconds >= 1) return `${seconds + Math.floor(millis / 100) / 10} sec`
  if (millis >= 100) return `${Math.floor(millis / 10) / 100} sec`
  return `${millis} ms`
}
