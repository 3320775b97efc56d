/**
 * The `multipart/form-data` body of a trigger that carries files, streamed
 * from disk: never more than one read buffer of a file in memory.
 *
 * What Jenkins does with it (read in the source, jenkinsci/stapler
 * `RequestImpl` at 135bbbc8, commons-fileupload, jenkins-2.150.1 and
 * jenkins-2.568.2):
 * - a file parameter's value comes from the part named after it that has a
 *   `filename` (`getFileItem`; a plain field gets no value);
 * - an ordinary parameter is a form field; a field without a charset is
 *   decoded as ISO-8859-1 (`DiskFileItem.DEFAULT_CHARSET`), so every field
 *   says `charset=UTF-8`;
 * - only the last part of a name is kept (`parsedFormData.put`): a
 *   multi-value parameter goes as one part, its values joined with ',';
 * - the part headers (names, file names) are decoded with the request's
 *   encoding, which Jenkins' CharacterEncodingFilter sets to UTF-8 when the
 *   request names none (UNSURE: read, not run).
 * Names and file names come checked (no `"`, CR or LF: commons-fileupload's
 * ParameterParser ends a quoted value at the next `"` and knows no escape,
 * not even the `%22` browsers send): see uploadFileName and trigger.ts.
 * The length is exact and sent as Content-Length: no chunked upload, which
 * some proxies in front of Jenkins refuse.
 */
import { createReadStream } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import type { UploadFile } from './types.js'

/** A request body that can be opened again for each send (a crumb refresh sends it twice). */
export interface UploadBody {
  contentType: string
  /** Exact byte length. */
  length: number
  /** Bytes of the files in it. */
  fileBytes: number
  open(): Readable
}

/** A body of ordinary fields (name, value) and files, in that order. */
export function multipartBody(
  fields: ReadonlyArray<readonly [string, string]>,
  files: readonly UploadFile[]
): UploadBody {
  const boundary = `----jenkins-build-action-${randomBytes(16).toString('hex')}`
  const heads: Buffer[] = []
  const fieldBlocks = fields.map(([name, value]) =>
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\nContent-Type: text/plain; charset=UTF-8\r\n\r\n${value}\r\n`,
      'utf8'
    )
  )
  for (const file of files) {
    heads.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.name}"; filename="${file.fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
        'utf8'
      )
    )
  }
  const newline = Buffer.from('\r\n')
  const end = Buffer.from(`--${boundary}--\r\n`)
  const fileBytes = files.reduce((sum, file) => sum + file.size, 0)
  const length =
    fieldBlocks.reduce((sum, block) => sum + block.length, 0) +
    heads.reduce((sum, head) => sum + head.length + newline.length, 0) +
    fileBytes +
    end.length
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    length,
    fileBytes,
    open: () => Readable.from(parts(fieldBlocks, heads, files, newline, end), { objectMode: false })
  }
}

async function* parts(
  fields: Buffer[],
  heads: Buffer[],
  files: readonly UploadFile[],
  newline: Buffer,
  end: Buffer
): AsyncGenerator<Buffer> {
  yield* fields
  for (const [i, file] of files.entries()) {
    yield heads[i] as Buffer
    let sent = 0
    // Exactly the size announced: a file that grew is cut there, one that shrank fails the upload.
    if (file.size > 0) {
      for await (const chunk of createReadStream(file.path, {
        start: 0,
        end: file.size - 1,
        highWaterMark: 256 * 1024
      })) {
        sent += (chunk as Buffer).length
        yield chunk as Buffer
      }
    }
    if (sent !== file.size) {
      throw new Error(
        `${file.path} changed while it was being sent (${sent} of ${file.size} bytes read)`
      )
    }
    yield newline
  }
  yield end
}
