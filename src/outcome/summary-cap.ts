import { statSync } from 'node:fs'
import type { Summary } from '../runner/io.js'
import { kib } from '../util/bytes.js'
import { escapeHtml } from '../util/html.js'
import { cut } from '../util/shorten.js'
import type { Logger } from '../util/logger.js'

/**
 * GitHub refuses a step's summary over 1 MiB (the runner shows an error and
 * the summary is lost). The summary is kept this far under it: room for the
 * line that says what was left out.
 */
const SUMMARY_MAX_BYTES = 1024 * 1024 - 8 * 1024

/** Headings the 'left out' line names; the rest are counted. */
const NAMED_SECTIONS = 10

/**
 * What fitSummary kept and what it left out.
 * @internal
 */
export interface FittedSummary {
  text: string
  /** Headings of the sections left out, in document order (their text). */
  sections: string[]
  /** Table rows left out (of sections kept). */
  rows: number
}

/**
 * Wraps the job summary so that whatever is added to it, what is written
 * stays under GitHub's limit. Each add* call is one unit (a heading, a
 * table, a details block, a raw block): the summary is cut only between
 * units, never inside one, so Markdown and HTML stay whole, and this holds
 * for sections this module does not know. `existingBytes` is what the
 * summary file already holds for this step.
 */
export function boundedSummary(
  summary: Summary,
  logger: Logger,
  options: { maxBytes?: number; existingBytes?: () => number } = {}
): Summary {
  let units: string[] = []
  let recorded = 0
  const record = (): void => {
    const buffer = summary.stringify()
    if (buffer.length < recorded) {
      units = []
      recorded = 0
    }
    if (buffer.length > recorded) {
      units.push(buffer.slice(recorded))
      recorded = buffer.length
    }
  }
  const reset = (): void => {
    units = []
    recorded = 0
  }
  const proxy: Summary = new Proxy(summary, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver)
      if (typeof value !== 'function') return value
      const method = value as (...args: unknown[]) => unknown
      if (key === 'write') {
        return async (...args: unknown[]) => {
          record()
          // write({ overwrite: true }) replaces what the file holds.
          const overwrite = (args[0] as { overwrite?: boolean } | undefined)?.overwrite === true
          const existing = overwrite ? 0 : (options.existingBytes ?? summaryFileBytes)()
          const max = (options.maxBytes ?? SUMMARY_MAX_BYTES) - existing
          const text = target.stringify()
          if (Buffer.byteLength(text) > max) {
            const fitted = fitSummary(units, max)
            target.emptyBuffer()
            target.addRaw(fitted.text)
            logger.warning(
              `The job summary was ${kib(Buffer.byteLength(text))}, over GitHub's limit of 1 MiB for a step: ${leftOutText(fitted, { inSummary: false })}`
            )
          }
          reset()
          await method.apply(target, args)
          return proxy
        }
      }
      if (key === 'emptyBuffer' || key === 'clear') {
        return (...args: unknown[]) => {
          reset()
          const result = method.apply(target, args)
          return result === target ? proxy : result
        }
      }
      if (typeof key === 'string' && key.startsWith('add')) {
        return (...args: unknown[]) => {
          // What an earlier call left unrecorded is a unit of its own.
          record()
          const result = method.apply(target, args)
          record()
          return result === target ? proxy : result
        }
      }
      return method.bind(target)
    }
  })
  return proxy
}

/** The size of the step's summary file so far (0 when there is none). */
function summaryFileBytes(): number {
  const path = process.env.GITHUB_STEP_SUMMARY
  if (!path) return 0
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}

/**
 * Units (each a whole element) within `maxBytes`, with a line saying what
 * was left out. Sections (a heading and what follows it up to the next
 * heading) are left out whole, the largest first, never the first one
 * (what the build did); if that is not enough, rows from the end of the
 * largest tables kept; last, whole sections from the end.
 * @internal
 */
export function fitSummary(units: readonly string[], maxBytes: number): FittedSummary {
  const sections: string[][] = []
  for (const unit of units) {
    const last = sections[sections.length - 1]
    if (isHeading(unit) || !last) sections.push([unit])
    else last.push(unit)
  }
  const bytesOf = (section: string[]): number =>
    section.reduce((n, unit) => n + Buffer.byteLength(unit), 0)
  const headings = sectionNames(sections.map(section => section[0] ?? ''))
  const kept = sections.map(() => true)
  let keptBytes = sections.reduce((n, section) => n + bytesOf(section), 0)
  let rows = 0
  const current = (): FittedSummary => ({
    text: '',
    sections: headings.filter((_, i) => !kept[i]),
    rows
  })
  const fits = (): boolean => keptBytes + Buffer.byteLength(leftOutLine(current())) + 1 <= maxBytes
  const leave = (i: number): void => {
    kept[i] = false
    keptBytes -= bytesOf(sections[i] ?? [])
  }

  const largestFirst = sections
    .map((section, i) => ({ i, bytes: bytesOf(section) }))
    .filter(s => s.i > 0)
    .sort((a, b) => b.bytes - a.bytes)
  for (const { i } of largestFirst) {
    if (fits()) break
    leave(i)
  }

  // Still too large (the first section alone): rows from the end of its largest tables.
  while (!fits()) {
    let largest: { section: string[]; unit: number; bytes: number } | undefined
    sections.forEach((section, i) => {
      if (!kept[i]) return
      section.forEach((unit, j) => {
        const bytes = Buffer.byteLength(unit)
        if (isTable(unit) && rowsOf(unit).length > 2 && bytes > (largest?.bytes ?? 0)) {
          largest = { section, unit: j, bytes }
        }
      })
    })
    if (!largest) break
    const table = largest.section[largest.unit] as string
    const tableRows = rowsOf(table)
    const over = keptBytes + Buffer.byteLength(leftOutLine(current())) + 1 - maxBytes
    let drop = 0
    let freed = 0
    // The header row and one row stay.
    while (tableRows.length - drop > 2 && freed < over) {
      freed += Buffer.byteLength(tableRows[tableRows.length - 1 - drop] ?? '')
      drop++
    }
    const shorter = tableOf(table, tableRows.slice(0, tableRows.length - drop))
    keptBytes += Buffer.byteLength(shorter) - largest.bytes
    largest.section[largest.unit] = shorter
    rows += drop
  }

  // Last: whole sections from the end, the first one too if it must.
  for (let i = sections.length - 1; i >= 0 && !fits(); i--) if (kept[i]) leave(i)

  const fitted = current()
  const text = sections.flatMap((section, i) => (kept[i] ? section : [])).join('')
  const cutAny = fitted.sections.length > 0 || fitted.rows > 0
  fitted.text = cutAny ? `${text}${leftOutLine(fitted)}\n` : text
  return fitted
}

/**
 * Each section's name for the 'left out' line: its heading, after the
 * heading it is under ('deploy #12 › Stages'), since several builds each
 * have their own 'Stages'.
 */
function sectionNames(firstUnits: string[]): string[] {
  const open: Array<{ level: number; text: string }> = []
  return firstUnits.map(unit => {
    const level = Number(/^\s*<h([1-6])/i.exec(unit)?.[1] ?? 7)
    const text = cut(headingText(unit), 100)
    while (open.length > 0 && (open[open.length - 1]?.level ?? 0) >= level) open.pop()
    const parent = open[open.length - 1]
    open.push({ level, text })
    return parent && level > 2 ? `${parent.text} › ${text}` : text
  })
}

function isHeading(unit: string): boolean {
  return /^\s*<h[1-6][\s>]/i.test(unit)
}

function isTable(unit: string): boolean {
  return /^\s*<table>/i.test(unit)
}

/** The line closing a cut summary. */
function leftOutLine(left: FittedSummary): string {
  return `<p>✂️ ${escapeHtml(leftOutText(left, { inSummary: true }))}</p>`
}

/** What was left out, in words. */
function leftOutText(left: FittedSummary, { inSummary }: { inSummary: boolean }): string {
  const parts: string[] = []
  if (left.sections.length > 0) {
    const named = left.sections.slice(0, NAMED_SECTIONS).map(s => `'${s}'`)
    const more = left.sections.length - named.length
    parts.push(
      `${left.sections.length} section(s) (${named.join(', ')}${more > 0 ? `, and ${more} more` : ''})`
    )
  }
  if (left.rows > 0) parts.push(`${left.rows} table row(s)`)
  const what = parts.length > 0 ? parts.join(' and ') : 'some content'
  return inSummary
    ? `This summary was cut to stay under GitHub's limit of 1 MiB for a step: left out ${what}. The build's pages in Jenkins have everything.`
    : `left out ${what}.`
}

/** A heading's text, tags and entities taken out (it is escaped again where shown). */
function headingText(unit: string): string {
  return unit
    .replace(/<[^>]*>/g, '')
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&(amp|lt|gt|quot);/g, (_, name: string) =>
      name === 'amp' ? '&' : name === 'lt' ? '<' : name === 'gt' ? '>' : '"'
    )
    .trim()
}

/** The rows of a table written by core.summary.addTable (`<table><tr>…</tr>…</table>`). */
function rowsOf(table: string): string[] {
  return table.match(/<tr>[\s\S]*?<\/tr>/g) ?? []
}

function tableOf(table: string, rows: string[]): string {
  const tail = /<\/table>(\s*)$/.exec(table)?.[1] ?? '\n'
  return `<table>${rows.join('')}</table>${tail}`
}
