/**
 * `multipart/form-data` as Jenkins reads it on `buildWithParameters`: Stapler
 * parses the body once, lazily, with commons-fileupload, on the first call
 * that needs it (stapler `RequestImpl.parseMultipartFormData`, read at
 * stapler master 135bbbc8 and at the 2018 line used by Jenkins 2.150.1):
 *
 * - every part goes into one map by field name, so a later part of the same
 *   name replaces an earlier one (`parsedFormData.put`): the last one wins;
 * - a part is a form field when its Content-Disposition has no `filename`
 *   (commons-fileupload `isFormField`); a field's text is decoded with the
 *   part's own charset, else ISO-8859-1 (`DiskFileItem.DEFAULT_CHARSET`,
 *   commons-fileupload 1.3.3 and fileupload2 alike): a UTF-8 value sent
 *   without a charset arrives mangled;
 * - files go to a temporary folder on disk (DiskFileItemFactory), never
 *   whole into memory: so here;
 * - when the body cannot be parsed (a connection reset mid-upload, a body
 *   that ends before its closing boundary), fileupload drops every item it
 *   had read (`AbstractFileUpload.parseRequest` deletes them when not
 *   `successful`), and the map stays empty for the rest of the request. The
 *   failure reaches a caller only on the very first parse: the parameter
 *   readers' `getParameter*` swallow it (`getFormDataFormFields` logs
 *   "Error parsing multipart/form-data." and goes on), core's
 *   FileParameterDefinition catches it and gives no value, and the
 *   file-parameters plugin rethrows it (a 500) if it is the first to ask.
 *
 * The crumb is never read from here: CrumbFilter runs before Stapler and
 * sees headers and the query string only (server.ts).
 */
import { createWriteStream } from 'node:fs'
import { mkdtempSync, rmSync } from 'node:fs'
import type { IncomingMessage } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Transform, type TransformCallback } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import busboy from 'busboy'

/** One part, as Stapler keeps it (the last of its name). */
type FormPart =
  | { kind: 'field'; name: string; value: string }
  | { kind: 'file'; name: string; filename: string; path: string; size: number }

/** A parsed body: its parts by name, or why it could not be parsed (then no part at all). */
export interface MultipartForm {
  parts: Map<string, FormPart>
  failure: Error | undefined
}

/** Where one server keeps uploaded files; removed when the server closes. */
export class UploadStore {
  private folder: string | undefined
  private count = 0

  /** A new file path in the store. */
  next(): string {
    this.folder ??= mkdtempSync(join(tmpdir(), 'jenkins-test-uploads-'))
    return join(this.folder, `upload-${++this.count}`)
  }

  close(): void {
    if (this.folder) rmSync(this.folder, { recursive: true, force: true })
    this.folder = undefined
  }
}

/** Whether a request body is multipart (Stapler `isMultipart`: the Content-Type starts with `multipart/`). */
export function isMultipart(req: IncomingMessage): boolean {
  return String(req.headers['content-type'] ?? '').startsWith('multipart/')
}

/**
 * Reads the whole body into parts. Never throws: a body that cannot be parsed
 * gives no part and its failure, as Stapler leaves it (see the file comment).
 * `cutAfter`: the connection is reset once that many body bytes came (the
 * `reset-upload` fault), which Jenkins sees as a body that ends early.
 */
export async function readMultipart(
  req: IncomingMessage,
  store: UploadStore,
  cutAfter?: number
): Promise<MultipartForm> {
  const parts = new Map<string, FormPart>()
  const written: Promise<void>[] = []
  let parser: busboy.Busboy
  try {
    parser = busboy({
      headers: req.headers,
      // commons-fileupload's default for a part without a charset.
      defCharset: 'latin1',
      defParamCharset: 'utf8',
      // Jenkins' own limits (RequestImpl.FILEUPLOAD_MAX_*) are for hostile
      // clients; the test server's are its disk and memory.
      limits: { fieldSize: 64 * 1024 * 1024 }
    })
  } catch (error) {
    req.resume()
    return { parts: new Map(), failure: error as Error }
  }
  parser.on('field', (name, value) => {
    parts.set(name, { kind: 'field', name, value })
  })
  parser.on('file', (name, stream, info) => {
    const path = store.next()
    const part: FormPart = { kind: 'file', name, filename: info.filename ?? '', path, size: 0 }
    parts.set(name, part)
    stream.on('data', (chunk: Buffer) => (part.size += chunk.length))
    written.push(pipeline(stream, createWriteStream(path)))
  })
  try {
    const source = cutAfter === undefined ? req : req.pipe(new CutOff(req, cutAfter))
    await pipeline(source, parser)
    await Promise.all(written)
    return { parts, failure: undefined }
  } catch (error) {
    // fileupload deletes what it had read; the map stays empty.
    await Promise.allSettled(written)
    for (const part of parts.values()) {
      if (part.kind === 'file') rmSync(part.path, { force: true })
    }
    req.resume()
    return { parts: new Map(), failure: error as Error }
  }
}

/** Passes the first `limit` bytes of a request, then resets its connection and ends in error. */
class CutOff extends Transform {
  private seen = 0

  constructor(
    private readonly req: IncomingMessage,
    private readonly limit: number
  ) {
    super()
    req.once('error', error => this.destroy(error))
    req.once('close', () => {
      if (!req.complete) this.destroy(new Error('Unexpected end of the multipart body'))
    })
  }

  override _transform(chunk: Buffer, _encoding: string, done: TransformCallback): void {
    const room = this.limit - this.seen
    this.seen += chunk.length
    if (room > chunk.length) return done(null, chunk)
    if (room > 0) this.push(chunk.subarray(0, room))
    this.req.socket.resetAndDestroy()
    done(new Error('Connection reset mid-upload'))
  }
}
