/**
 * The `multipart/form-data` body of a trigger that carries files, streamed
 * from disk (never more than one read buffer of a file in memory), with an
 * exact Content-Length (some proxies refuse a chunked upload). Every field
 * says `charset=UTF-8`, a multi-value parameter goes as one part, and names
 * come checked. What Jenkins does with each part, from its source:
 * docs/internals.md, "The multipart body of an upload".
 */
import { randomBytes } from 'node:crypto'
import { open } from 'node:fs/promises'
import type { Writable } from 'node:stream'

/** A file handed to a file parameter of the job (input `files`), checked on disk before any request. */
export interface UploadFile {
  /** The file parameter's name. */
  name: string
  /** Absolute path on this machine. */
  path: string
  /** The name Jenkins is told (the base name; no `"`, backslash, CR or LF). */
  fileName: string
  /** Bytes, as found when it was checked: exactly this many are sent. */
  size: number
}

/** Bytes read from a file at a time. */
const CHUNK = 1024 * 1024

/** A request body that can be written again for each send (a crumb refresh sends it twice). */
export interface UploadBody {
  contentType: string
  /** Exact byte length. */
  length: number
  /** Bytes of the files in it. */
  fileBytes: number
  /**
   * Writes the body (not ending `out`), each chunk once the one before it
   * was handed on (its write callback): the backpressure. `sent` counts
   * what went out. Rejects when `out` fails or a file changed size.
   */
  writeTo(out: Writable, sent: (bytes: number) => void): Promise<void>
}

/** A body of ordinary fields (name, value) and files, in that order. */
export function multipartBody(
  fields: ReadonlyArray<readonly [string, string]>,
  files: readonly UploadFile[]
): UploadBody {
  const boundary = `----jenkins-build-action-${randomBytes(16).toString('hex')}`
  const fieldBlocks = fields.map(([name, value]) =>
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\nContent-Type: text/plain; charset=UTF-8\r\n\r\n${value}\r\n`,
      'utf8'
    )
  )
  const heads = files.map(file => ({
    file,
    head: Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${file.name}"; filename="${file.fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      'utf8'
    )
  }))
  const newline = Buffer.from('\r\n')
  const end = Buffer.from(`--${boundary}--\r\n`)
  const fileBytes = files.reduce((sum, file) => sum + file.size, 0)
  const blocks = [
    ...fieldBlocks,
    ...heads.map(({ head }) => head),
    ...files.map(() => newline),
    end
  ]
  const length = blocks.reduce((sum, block) => sum + block.length, fileBytes)
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    length,
    fileBytes,
    writeTo: async (out, sent) => {
      const write = (chunk: Buffer): Promise<void> =>
        new Promise((resolve, reject) => {
          out.write(chunk, error => {
            if (error) return reject(error)
            sent(chunk.length)
            resolve()
          })
        })
      for (const block of fieldBlocks) await write(block)
      for (const { file, head } of heads) {
        await write(head)
        await writeFile(file, write)
        await write(newline)
      }
      await write(end)
    }
  }
}

/**
 * Exactly `file.size` bytes of a file, read into two buffers used in turn:
 * one is read into while the other is written, and neither is reused before
 * its write is handed on. No allocation per read (fs.createReadStream makes
 * one, freed only by a scavenge: a 500 MB upload then peaked at 141 MB).
 */
async function writeFile(file: UploadFile, write: (chunk: Buffer) => Promise<void>): Promise<void> {
  if (file.size === 0) return
  const handle = await open(file.path, 'r')
  let [buffer, spare] = [Buffer.allocUnsafe(CHUNK), Buffer.allocUnsafe(CHUNK)]
  let pending: Promise<void> = Promise.resolve()
  try {
    for (let position = 0; position < file.size; [buffer, spare] = [spare, buffer]) {
      const length = Math.min(CHUNK, file.size - position)
      const { bytesRead } = await handle.read(buffer, 0, length, position)
      if (bytesRead === 0) {
        throw new Error(
          `${file.path} changed while it was being sent (${position} of ${file.size} bytes read)`
        )
      }
      position += bytesRead
      await pending
      pending = write(buffer.subarray(0, bytesRead))
      // A failed write (a reset) during the next read still fails the next `await pending`.
      pending.catch(() => undefined)
    }
    await pending
  } finally {
    // A failed read leaves a write in flight: it settles before its buffer is dropped.
    await pending.catch(() => undefined)
    await handle.close()
  }
}
