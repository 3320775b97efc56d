import { createHash } from 'node:crypto'

/** Bytes per generated console line, including its '\n'. */
export const GENERATED_LINE_BYTES = 100

const FILLER = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'

/** Line `index` of the generated console, GENERATED_LINE_BYTES long with its '\n'. */
export function generatedLine(index: number): string {
  const head = `Generated line ${String(index).padStart(10, '0')} `
  const fillLength = GENERATED_LINE_BYTES - 1 - head.length
  const shift = index % FILLER.length
  const pattern = FILLER.slice(shift) + FILLER.slice(0, shift)
  return head + pattern.repeat(2).slice(0, fillLength) + '\n'
}

/**
 * Bytes [from, to) of a generated console of `total` bytes. The last line is
 * cut short so the console is exactly `total` bytes and still ends in '\n'.
 * Computed from the offset alone, so any range of a huge console can be served
 * without keeping it in memory.
 */
export function generatedBytes(from: number, to: number, total: number): Buffer {
  const out = Buffer.alloc(to - from)
  const lastLineStart = Math.floor(total / GENERATED_LINE_BYTES) * GENERATED_LINE_BYTES
  let written = 0
  let pos = from
  while (pos < to) {
    const index = Math.floor(pos / GENERATED_LINE_BYTES)
    const lineStart = index * GENERATED_LINE_BYTES
    let line = generatedLine(index)
    if (lineStart === lastLineStart) {
      const length = total - lastLineStart
      line = line.slice(0, length - 1) + '\n'
    }
    const piece = line.slice(pos - lineStart, Math.min(line.length, to - lineStart))
    out.write(piece, written, 'latin1')
    written += piece.length
    pos += piece.length
  }
  return out
}

/** A raw ConsoleNote as Jenkins >= 2.509 leaves it in progressiveText (jenkins-api.md 6.1). */
export function consoleNote(seed: string): string {
  const payload = createHash('sha256').update(seed).digest().toString('base64')
  return `\x1b[8mha:////${payload}\x1b[0m`
}

// eslint-disable-next-line no-control-regex -- ConsoleNotes are delimited by ESC sequences
const NOTE_PATTERN = /\x1b\[8mha:[^\x1b]*\x1b\[0m/g

export function stripNotes(text: string): string {
  return text.replace(NOTE_PATTERN, '')
}

type Segment = { kind: 'text'; data: Buffer } | { kind: 'gen'; from: number; to: number }

const CHUNK = 64 * 1024

/**
 * A build's stored log: text written by the build, plus stretches of a
 * generated console that exist only as offsets.
 */
export class ConsoleLog {
  private readonly segments: Segment[] = []
  private generatedPos = 0
  length = 0

  /** @param generatedTotal total size of the generated console, if the build has one */
  constructor(private readonly generatedTotal = 0) {}

  append(text: string): void {
    if (text === '') return
    const data = Buffer.from(text, 'utf8')
    this.segments.push({ kind: 'text', data })
    this.length += data.length
  }

  /** Grows the generated console to `to` bytes (whole lines until the end). */
  growGenerated(to: number): void {
    const target =
      to >= this.generatedTotal
        ? this.generatedTotal
        : Math.floor(to / GENERATED_LINE_BYTES) * GENERATED_LINE_BYTES
    if (target <= this.generatedPos) return
    const last = this.segments[this.segments.length - 1]
    if (last?.kind === 'gen' && last.to === this.generatedPos) last.to = target
    else this.segments.push({ kind: 'gen', from: this.generatedPos, to: target })
    this.length += target - this.generatedPos
    this.generatedPos = target
  }

  /** Stored bytes [start, end) in chunks of at most 64 KiB; `stripAnnotations` for consoleText. */
  *read(start: number, end: number, stripAnnotations = false): Generator<Buffer> {
    let offset = 0
    for (const segment of this.segments) {
      const size = segment.kind === 'text' ? segment.data.length : segment.to - segment.from
      const from = Math.max(start, offset)
      const to = Math.min(end, offset + size)
      if (from < to) {
        if (segment.kind === 'text') {
          const slice = segment.data.subarray(from - offset, to - offset)
          yield stripAnnotations ? Buffer.from(stripNotes(slice.toString('utf8'))) : slice
        } else {
          for (let pos = from; pos < to; pos += CHUNK) {
            const base = segment.from + pos - offset
            yield generatedBytes(base, base + Math.min(CHUNK, to - pos), this.generatedTotal)
          }
        }
      }
      offset += size
      if (offset >= end) return
    }
  }

  text(): string {
    return Buffer.concat([...this.read(0, this.length)]).toString('utf8')
  }
}

/** Rewrites every lone LF as CRLF across chunk boundaries, as LineEndNormalizingWriter does. */
export function* crlf(chunks: Iterable<Buffer>): Generator<Buffer> {
  let previous = -1
  for (const chunk of chunks) {
    let extra = 0
    for (let i = 0; i < chunk.length; i++) {
      if (chunk[i] === 0x0a && (i > 0 ? chunk[i - 1] : previous) !== 0x0d) extra++
    }
    if (extra === 0) {
      if (chunk.length > 0) previous = chunk[chunk.length - 1] ?? previous
      yield chunk
      continue
    }
    const out = Buffer.alloc(chunk.length + extra)
    let j = 0
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i] ?? 0
      if (byte === 0x0a && (i > 0 ? chunk[i - 1] : previous) !== 0x0d) out[j++] = 0x0d
      out[j++] = byte
    }
    previous = chunk[chunk.length - 1] ?? previous
    yield out
  }
}
