/**
 * Logs: a build's console (jenkins-api.md 6) and a scan's log, both served
 * as Stapler's LargeText serves them: `logText/progressiveText` and
 * `consoleText`.
 */
import { Readable } from 'node:stream'
import type { Build } from '../model/build.js'
import { crlf, type ConsoleLog } from '../model/console.js'
import type { Exchange } from '../http/exchange.js'
import { Oops } from './respond.js'

/** LargeText.doProgressiveText: bytes from `start`, X-Text-Size, X-More-Data while still written. */
export function serveProgressiveText(ex: Exchange, log: ConsoleLog, moreData: boolean): void {
  const length = log.length
  const startParam = ex.params.get('start')
  let start = 0
  if (startParam !== undefined && startParam !== '') {
    if (!/^\d+$/.test(startParam.trim())) {
      throw new Oops(500, `For input string: "${startParam}"`)
    }
    start = Number(startParam)
  }
  // A start beyond the log restarts from 0 (LargeText).
  if (start > length) start = 0
  const headers: Record<string, string> = {
    'Content-Type': 'text/plain;charset=UTF-8',
    'X-Text-Size': String(length)
  }
  if (moreData) headers['X-More-Data'] = 'true'
  ex.res.writeHead(200, headers)
  Readable.from(crlf(log.read(start, length))).pipe(ex.res)
}

/** The whole log so far, as plain text with the annotations stripped. */
export function serveConsoleText(ex: Exchange, log: ConsoleLog): void {
  ex.res.writeHead(200, { 'Content-Type': 'text/plain;charset=UTF-8' })
  Readable.from(log.read(0, log.length, true)).pipe(ex.res)
}

/**
 * `<build>/logText/progressiveText`: X-More-Data while the log is written,
 * which outlasts `building` (Run.isLogUpdated; see ../build.ts).
 */
export function progressiveText(ex: Exchange, build: Build): void {
  serveProgressiveText(ex, build.console, build.logUpdated)
}

/** `<build>/consoleText`. */
export function consoleText(ex: Exchange, build: Build): void {
  serveConsoleText(ex, build.console)
}
