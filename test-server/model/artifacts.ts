/**
 * Archived files of a build: the `artifacts` list of the build JSON
 * (jenkinsci/jenkins core Run.getArtifacts / getArtifactsUpTo /
 * addArtifacts, Run.Artifact, ArtifactList.computeDisplayName) and the
 * files served below `<build>/artifact/` (DirectoryBrowserSupport.serveFile).
 */
import { generatedBytes } from './console.js'
import type { ArtifactSpec } from '../types.js'

/** One archived file. */
export interface ArchivedFile {
  /** relativePath as Jenkins lists it. */
  path: string
  size: number
  /** Bytes [start, end) in chunks of at most 64 KiB: given content, or generated text computed from the offset. */
  read(start: number, end: number): Generator<Buffer>
}

const CHUNK = 64 * 1024
/** Run.LIST_CUTOFF: past this many artifacts Jenkins does not compute displayPath. */
const LIST_CUTOFF = 20

/**
 * The files a build archives, in the order Run.addArtifacts lists them:
 * each directory's entries sorted by name (VirtualFile.compareTo), depth
 * first.
 */
export function archive(specs: ArtifactSpec[]): ArchivedFile[] {
  const files = specs.map(spec => {
    const content =
      spec.content === undefined || Buffer.isBuffer(spec.content)
        ? spec.content
        : Buffer.from(spec.content, 'utf8')
    const size = content?.length ?? Math.max(0, spec.size ?? 0)
    const file: ArchivedFile = {
      path: spec.path,
      size,
      *read(start, end) {
        for (let pos = start; pos < end; pos += CHUNK) {
          const to = Math.min(end, pos + CHUNK)
          yield content ? content.subarray(pos, to) : generatedBytes(pos, to, size)
        }
      }
    }
    return file
  })
  return files.sort((a, b) => compareSegments(a.path.split('/'), b.path.split('/')))
}

function compareSegments(a: string[], b: string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] as string
    const y = b[i] as string
    if (x !== y) return x < y ? -1 : 1
  }
  return a.length - b.length
}

/**
 * `artifacts` of the build JSON: {displayPath, fileName, relativePath}, no
 * `_class` (Run.Artifact is the declared element type). displayPath is the
 * shortest tail of the path that tells the file from the others, computed
 * only up to LIST_CUTOFF files (null past it).
 */
export function artifactsJson(files: ArchivedFile[]): Array<Record<string, unknown>> {
  const display = files.length > LIST_CUTOFF ? undefined : displayPaths(files.map(f => f.path))
  return files.map((file, i) => ({
    displayPath: display?.[i] ?? null,
    fileName: file.path.slice(file.path.lastIndexOf('/') + 1),
    relativePath: file.path
  }))
}

/** ArtifactList.computeDisplayName: lengthen the tails of colliding names until they differ. */
function displayPaths(paths: string[]): string[] {
  const tokens = paths.map(p => p.split(/[\\/]+/))
  const len = paths.map(() => 1)
  const maxDepth = Math.max(0, ...tokens.map(t => t.length))
  const tail = (i: number): string => (tokens[i] ?? []).slice(-(len[i] ?? 1)).join('/')
  for (let depth = 0; depth <= maxDepth; depth++) {
    const names = new Map<string, number>()
    let collision = false
    for (let i = 0; i < paths.length; i++) {
      const name = tail(i)
      const j = names.get(name)
      names.set(name, i)
      if (j !== undefined) {
        collision = true
        if (j >= 0) len[j] = (len[j] ?? 1) + 1
        len[i] = (len[i] ?? 1) + 1
        names.set(name, -1)
      }
    }
    if (!collision) break
  }
  return paths.map((_, i) => tail(i))
}

/** The servlet container's MIME types for the names DirectoryBrowserSupport serves (text gets charset=UTF-8). */
export function mimeType(fileName: string): string {
  const ext = /\.([^.]+)$/.exec(fileName)?.[1]?.toLowerCase() ?? ''
  const text: Record<string, string> = {
    txt: 'text/plain',
    log: 'text/plain',
    html: 'text/html',
    htm: 'text/html',
    css: 'text/css',
    xml: 'text/xml',
    csv: 'text/csv'
  }
  if (text[ext]) return `${text[ext]};charset=UTF-8`
  const other: Record<string, string> = {
    json: 'application/json',
    jar: 'application/java-archive',
    zip: 'application/zip',
    gz: 'application/gzip',
    png: 'image/png',
    pdf: 'application/pdf'
  }
  return other[ext] ?? 'application/octet-stream'
}
