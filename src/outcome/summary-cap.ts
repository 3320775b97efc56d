import { statSync } from 'node:fs'
import type { Summary } from '../runner/io.js'
import { kib } from '../util/bytes.js'
import { collectGarbage } from '../util/heap.js'
import { decodeHTML } from 'entities'
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
 * Wraps the job summary so that whatever is added to it, what is written
 * stays under GitHub's limit, and what is kept meanwhile stays bounded.
 * Each add* call is one unit (a heading, a table, a details block, a raw
 * block), taken out of the summary's buffer as soon as it is made (the
 * buffer never grows) and redacted (`redact`: the step's secrets). The
 * summary is cut only between units, never inside one, so Markdown and
 * HTML stay whole, and this holds for sections this module does not know.
 * Past twice the limit, what is kept is cut down to it at once, as the
 * write would cut it, less what the summary file already holds for this
 * step.
 */
export function boundedSummary(
  summary: Summary,
  logger: Logger,
  redact: (text: string) => string
): Summary {
  let kept = new KeptUnits()
  /** Takes what the buffer holds as one unit. */
  const take = (): void => {
    const unit = summary.stringify()
    if (unit === '') return
    summary.emptyBuffer()
    kept.add(redact(unit))
    if (kept.bytes > 2 * SUMMARY_MAX_BYTES) {
      kept.cut(SUMMARY_MAX_BYTES)
      // What was left out is garbage now: collected before the heap grows by it.
      collectGarbage('major')
    }
  }
  const proxy: Summary = new Proxy(summary, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver)
      if (typeof value !== 'function') return value
      if (key === 'write') {
        return async (...args: Parameters<Summary['write']>) => {
          take()
          // write({ overwrite: true }) replaces what the file holds.
          const existing = args[0]?.overwrite ? 0 : summaryFileBytes()
          const fitted = kept
          kept = new KeptUnits()
          const text = fitted.fit(SUMMARY_MAX_BYTES - existing)
          const what = fitted.leftOut()
          if (what !== undefined) {
            logger.warning(
              `The job summary was ${kib(fitted.addedBytes)}, over GitHub's limit of 1 MiB for a step: left out ${what}.`
            )
          }
          target.addRaw(text)
          await Reflect.apply(value, target, args)
          return proxy
        }
      }
      if (key === 'stringify') return () => kept.text() + target.stringify()
      if (key === 'isEmptyBuffer') return () => kept.bytes === 0 && target.isEmptyBuffer()
      const add = typeof key === 'string' && key.startsWith('add')
      if (add || key === 'emptyBuffer' || key === 'clear') {
        return (...args: unknown[]) => {
          // What an earlier call left in the buffer is a unit of its own.
          if (add) take()
          else kept = new KeptUnits()
          const result: unknown = Reflect.apply(value, target, args)
          if (add) take()
          return result === target ? proxy : result
        }
      }
      return value.bind(target)
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

/** A heading and the units after it, up to the next heading; a section left out keeps its name only. */
interface Section {
  /** Its name for the 'left out' line (sectionName). */
  name: string
  units: string[]
  bytes: number
  left?: boolean
}

/**
 * The units of a summary as sections, each unit kept once (never a copy of
 * a growing text), and what was left out of them: sections and table rows.
 * A unit added to a section left out is left out too.
 * @internal
 */
export class KeptUnits {
  /** Every section, in document order. */
  private readonly sections: Section[] = []
  /** Headings above the next one, for its name. */
  private readonly open: Heading[] = []
  private rows = 0
  /** Bytes of the units kept. */
  bytes = 0
  /** Bytes of every unit added. */
  addedBytes = 0

  add(unit: string): void {
    const bytes = Buffer.byteLength(unit)
    this.addedBytes += bytes
    let last = this.sections.at(-1)
    // A heading starts a section.
    if (/^\s*<h[1-6][\s>]/i.test(unit) || !last) {
      last = { name: sectionName(this.open, unit), units: [], bytes: 0 }
      this.sections.push(last)
    }
    if (last.left) return
    last.units.push(unit)
    last.bytes += bytes
    this.bytes += bytes
  }

  /** The units kept, as they are. */
  text(): string {
    return this.sections.map(section => section.units.join('')).join('')
  }

  /** What is kept cut to `maxBytes` (cut), with its 'left out' line. */
  fit(maxBytes: number): string {
    this.cut(maxBytes)
    return this.text() + this.line()
  }

  /**
   * Leaves out whole sections, the largest first, never the first one
   * (what the build did); if that is not enough,
   * rows from the end of the largest tables kept; last, whole sections from
   * the end, the first one too if it must: until the units kept and the
   * 'left out' line fit in `maxBytes`.
   */
  cut(maxBytes: number): void {
    const fits = (): boolean => this.bytes + Buffer.byteLength(this.line()) <= maxBytes
    const kept = this.sections.filter(section => !section.left)
    const largestFirst = kept.filter(s => s !== this.sections[0]).sort((a, b) => b.bytes - a.bytes)
    for (const section of largestFirst) if (!fits()) this.leave(section)
    while (!fits()) if (!this.dropRows(maxBytes)) break
    for (const section of kept.reverse()) if (!fits()) this.leave(section)
  }

  private leave(section: Section): void {
    if (section.left) return
    section.left = true
    this.bytes -= section.bytes
    section.units = []
  }

  /** Rows from the end of the largest table kept (the header row and one row stay); false when no table has rows to give. */
  private dropRows(maxBytes: number): boolean {
    // The first of the largest (a stable sort), of the tables written by core.summary.addTable (`<table><tr>…</tr>…</table>`).
    const [largest] = this.sections
      .flatMap(section =>
        section.units.map((unit, j) => {
          const rows = /^\s*<table>/i.test(unit) ? (unit.match(/<tr>[\s\S]*?<\/tr>/g) ?? []) : []
          return { section, unit: j, bytes: Buffer.byteLength(unit), rows }
        })
      )
      .filter(table => table.rows.length > 2)
      .sort((a, b) => b.bytes - a.bytes)
    if (!largest) return false
    const { rows: tableRows } = largest
    const over = this.bytes + Buffer.byteLength(this.line({ anyway: true })) - maxBytes
    let keep = tableRows.length
    for (let freed = 0; keep > 2 && freed < over; keep--) {
      freed += Buffer.byteLength(tableRows[keep - 1] ?? '')
    }
    const table = largest.section.units[largest.unit] ?? ''
    const tail = /<\/table>(\s*)$/.exec(table)?.[1] ?? '\n'
    const shorter = `<table>${tableRows.slice(0, keep).join('')}</table>${tail}`
    const change = Buffer.byteLength(shorter) - largest.bytes
    largest.section.units[largest.unit] = shorter
    largest.section.bytes += change
    this.bytes += change
    this.rows += tableRows.length - keep
    return true
  }

  /** The line closing a cut summary, and its line break: none while nothing was left out (unless `anyway`: about to be). */
  private line({ anyway = false } = {}): string {
    const what = this.leftOut() ?? (anyway ? 'some content' : undefined)
    if (what === undefined) return ''
    return `<p>✂️ ${escapeHtml(`This summary was cut to stay under GitHub's limit of 1 MiB for a step: left out ${what}. The build's pages in Jenkins have everything.`)}</p>\n`
  }

  /** What was left out, in words: sections (the first NAMED_SECTIONS named, in document order) and table rows; undefined for nothing. */
  leftOut(): string | undefined {
    const left = this.sections.filter(section => section.left)
    const named = left.slice(0, NAMED_SECTIONS).map(s => `'${s.name}'`)
    const more = left.length - named.length
    const parts: string[] = []
    if (left.length > 0) {
      parts.push(
        `${left.length} section(s) (${named.join(', ')}${more > 0 ? `, and ${more} more` : ''})`
      )
    }
    if (this.rows > 0) parts.push(`${this.rows} table row(s)`)
    return parts.length > 0 ? parts.join(' and ') : undefined
  }
}

interface Heading {
  level: number
  text: string
}

/**
 * A section's name for the 'left out' line: its heading, after the heading
 * it is under ('deploy #12 › Stages'), since several builds each have their
 * own 'Stages'. `open` holds the headings above it, and takes this one.
 */
function sectionName(open: Heading[], firstUnit: string): string {
  const level = Number(/^\s*<h([1-6])/i.exec(firstUnit)?.[1] ?? 7)
  // Its text, tags and entities taken out (it is escaped again where shown).
  const text = cut(decodeHTML(firstUnit.replace(/<[^>]*>/g, '')).trim(), 100)
  while ((open.at(-1)?.level ?? 0) >= level) open.pop()
  const parent = open.at(-1)
  open.push({ level, text })
  return parent && level > 2 ? `${parent.text} › ${text}` : text
}
