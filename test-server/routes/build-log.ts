/** A build's console: `logText/progressiveText` and `consoleText` (jenkins-api.md 6). */
import { Readable } from 'node:stream'
import { crlf } from '../console.js'
import type { Exchange } from '../exchange.js'
import type { Build } from '../model.js'
import { Oops } from './respond.js'

/**
 * LargeText.doProgressText: bytes from `start`, X-Text-Size, and X-More-Data
 * while the log is written, which outlasts `building` (see ../build.ts).
 */
export function progressiveText(ex: Exchange, build: Build): void {
  const length = build.console.length
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
  if (build.logUpdated) headers['X-More-Data'] = 'true'
  ex.res.writeHead(200, headers)
  Readable.from(crlf(build.console.read(start, length))).pipe(ex.res)
}

/** The whole log so far, as plain text. */
export function consoleText(ex: Exchange, build: Build): void {
  ex.res.writeHead(200, { 'Content-Type': 'text/plain;charset=UTF-8' })
  Readable.from(build.console.read(0, build.console.length, true)).pipe(ex.res)
}
