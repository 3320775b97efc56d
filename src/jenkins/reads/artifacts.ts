import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { Interrupted, JenkinsError } from '../transport/errors.js'
import { countOf, fields, list, text, texts } from '../model/counts.js'
import { buildUrl, fullName } from '../model/job-path.js'
import { BUILD_PLUGIN_LISTS, buildNotFound, getObject } from './reads.js'
import type { Requester } from '../transport/requester.js'
import { htmlError, type ErrorContext } from '../transport/responses.js'
import type { HttpResponse } from '../transport/http.js'
import { TransientFailure } from '../transport/retry.js'
import type { ArtifactSink, BuildRef } from '../model/types.js'

/** Most artifacts one build's list is read for; beyond, the list is cut (and says so). */
const MAX_ARTIFACTS = 10_000

/**
 * The build's artifacts, by `relativePath` (Run.getArtifacts, exported as
 * `artifacts[displayPath,fileName,relativePath]`). A tree asks for the path
 * alone and a range bounds the list: Jenkins lists every file of the build
 * (Run.getArtifactsUpTo(Integer.MAX_VALUE)), so a build with a huge number of
 * them would otherwise make a huge answer. Each path is as Jenkins sent it
 * (unchecked: see src/util/workspace-paths.ts); `truncated` when the build has
 * more artifacts than were read.
 */
export async function listArtifacts(
  http: Requester,
  build: BuildRef,
  limit: number = MAX_ARTIFACTS
): Promise<{ paths: string[]; truncated: boolean }> {
  const name = fullName(build.job)
  const tree = `artifacts[relativePath]{0,${limit + 1}}`
  const data = await getObject(
    http,
    'artifacts',
    `${buildUrl(http.baseUrl, build.job, build.number)}api/json?tree=${encodeURIComponent(tree)}`,
    http.context(`the artifacts of build #${build.number} of '${name}'`, {
      notFound: buildNotFound(http, name, build.number)
    }),
    // A proxy that ignores tree= sends the whole build, plugins' data included.
    { droppable: BUILD_PLUGIN_LISTS }
  )
  const paths = texts(list(data.artifacts).map(raw => fields(raw).relativePath))
  return { paths: paths.slice(0, limit), truncated: paths.length > limit }
}

/**
 * GETs `<build>/artifact/<relativePath>` and streams the body into a fresh
 * sink per attempt, in constant memory (the sink's backpressure is honoured).
 * A body that breaks off or falls short of Content-Length is a transient
 * failure: the read is tried again, from the start, within the step's
 * deadline like every other read. The caller has checked `relativePath`.
 *
 * Jenkins serves it through DirectoryBrowserSupport.serveFile: 404 when the
 * file is absent, 400 for a path with `/../`, the file with Content-Length
 * otherwise, or a 302 to the resource root URL when one is configured (so
 * redirects to that other origin are followed, without credentials).
 */
export async function downloadArtifact(
  http: Requester,
  build: BuildRef,
  relativePath: string,
  open: () => Promise<ArtifactSink>
  // The bytes written, and the tries it took (the first included).
): Promise<{ bytes: number; attempts: number }> {
  let attempts = 0
  const notFound = `Artifact '${relativePath}' of build #${build.number} of '${fullName(build.job)}' was not found on Jenkins at ${http.baseUrl} (404): it was listed but is gone (deleted, or the build was discarded)`
  return getArtifact(http, build, { relativePath, notFound }, async (response, context) => {
    attempts++
    const length = countOf(response.header('content-length'))
    const sink = await open()
    // Bounded like every body (limits.ts): the step's cancel and deadline,
    // and the stall guard (a body that stops coming, or drips, is cut).
    const bytes = await copy(response.stream(), sink).catch(async (error: unknown) => {
      await sink.discard()
      throw error
    })
    if (length !== undefined && bytes !== length) {
      await sink.discard()
      throw new TransientFailure(
        new JenkinsError(
          'network',
          `${context.what} ended after ${bytes} of ${length} bytes (Content-Length)`
        ),
        'short body'
      )
    }
    await sink.commit()
    return { bytes, attempts }
  })
}

/**
 * GETs `<build>/artifact/<relativePath>` into memory, reading at most
 * `maxBytes` of it: a Content-Length above that is refused before any of
 * the body is read (DirectoryBrowserSupport sends it for an artifact), and a
 * body without one is cut, its connection dropped, once it passes the bound.
 * 404 (not archived) is a JenkinsError 'not-found', as for any read. It
 * gives the bytes, or that the artifact holds more than asked for.
 */
export async function readArtifact(
  http: Requester,
  build: BuildRef,
  relativePath: string,
  maxBytes: number
): Promise<{ bytes: Buffer } | { tooLarge: true }> {
  const notFound = `Build #${build.number} of '${fullName(build.job)}' has no artifact '${relativePath}' on Jenkins at ${http.baseUrl} (404)`
  return getArtifact(http, build, { relativePath, notFound }, async response => {
    const length = countOf(response.header('content-length'))
    if (length !== undefined && length > maxBytes) {
      response.discard()
      return { tooLarge: true }
    }
    const body = response.stream()
    const chunks: Buffer[] = []
    let size = 0
    // cast: a body stream without an encoding yields Buffers.
    for await (const chunk of body as AsyncIterable<Buffer>) {
      size += chunk.length
      if (size > maxBytes) {
        body.destroy()
        return { tooLarge: true }
      }
      chunks.push(chunk)
    }
    return { bytes: Buffer.concat(chunks) }
  })
}

/**
 * The one GET of `<build>/artifact/<relativePath>`: `take` gets the answer
 * (each attempt's, as `http.read` retries) once it is known not to be a
 * login page; `notFound` words the 404.
 */
function getArtifact<T>(
  http: Requester,
  build: BuildRef,
  { relativePath, notFound }: { relativePath: string; notFound: string },
  take: (response: HttpResponse, context: ErrorContext) => Promise<T>
): Promise<T> {
  const url = `${buildUrl(http.baseUrl, build.job, build.number)}artifact/${artifactHref(relativePath)}`
  const context = http.context(
    `artifact '${relativePath}' of build #${build.number} of '${fullName(build.job)}'`,
    {
      // Run.doArtifact checks it when Jenkins turns it on (hudson.security.ArtifactsPermission).
      permission: 'Run/Artifacts',
      notFound
    }
  )
  const fileName = relativePath.slice(relativePath.lastIndexOf('/') + 1)
  return http.read(
    'artifact',
    url,
    context,
    response => {
      // DirectoryBrowserSupport sends an artifact's own type, from its name:
      // HTML for anything else is a login page or an SSO proxy.
      if (response.contentType.includes('text/html') && !/\.x?html?$/i.test(fileName)) {
        response.discard()
        throw htmlError(context, response.status)
      }
      return take(response, context)
    },
    { crossOriginRedirects: true }
  )
}

/**
 * Each segment percent-encoded, as Run.addArtifacts builds `href` with Util.rawEncode.
 * @internal
 */
export function artifactHref(relativePath: string): string {
  return relativePath.split('/').map(encodeURIComponent).join('/')
}

/**
 * Pipes body into the sink (stream.pipeline: the sink's backpressure pauses
 * the body, and either side's failure ends both). A body that broke off or
 * stalled is a TransientFailure (worth another try, from the start); the
 * step being stopped (Interrupted) and sink errors (a full disk) pass as
 * they are.
 */
async function copy(body: Readable, sink: ArtifactSink): Promise<number> {
  let bytes = 0
  // pipeline destroys the other stream with the first error, so the first
  // error event tells which side failed. Listeners are kept, not once: a
  // body can report its end twice (an error after 'aborted').
  let first: { side: 'body' | 'sink'; error: unknown } | undefined
  body.on('error', error => (first ??= { side: 'body', error }))
  sink.stream.on('error', error => (first ??= { side: 'sink', error }))
  body.on('data', (chunk: Buffer) => {
    bytes += chunk.length
    sink.progress?.(bytes)
  })
  try {
    await pipeline(body, sink.stream)
    return bytes
  } catch (error) {
    if (first?.side === 'sink') throw first.error
    const cause = first?.error ?? error
    if (cause instanceof Interrupted) throw cause
    if (cause instanceof JenkinsError && (cause.kind === 'network' || cause.kind === 'timeout')) {
      throw new TransientFailure(
        cause,
        cause.kind === 'network' ? 'body broke off' : 'body stalled'
      )
    }
    const code = text(fields(cause).code) ?? 'body error'
    throw new TransientFailure(
      new JenkinsError('network', `The download broke off after ${bytes} bytes (${code})`),
      code
    )
  }
}
