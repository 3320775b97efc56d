/**
 * Where a failed test failed, in the workspace: the file and line of a frame
 * of its stack trace, so that its annotation shows in the pull request's
 * diff. A frame counts only when exactly one file of the workspace matches
 * its path: nothing is guessed. The search is read-only, follows no link, and
 * is bounded: docs/internals.md, "Where a failed test failed".
 */
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { FailedTest } from '../jenkins/model/types.js'
import type { Logger } from '../util/logger.js'

/** An annotation's place: a workspace-relative path ('/'-separated) and a 1-based line. */
export interface TestLocation {
  file: string
  line: number
}

/**
 * One frame of a trace: the path it names, as segments, and its line.
 * @internal
 */
export interface Frame {
  /** Path segments, the file name last (Java: the package path and the file name). */
  segments: string[]
  line: number
  /** Java frames name a package path, which a file's path must end with. */
  java: boolean
}

/** Directory entries the search reads at most. */
const MAX_ENTRIES = 50_000
/** Folder levels below the workspace the search goes down at most. */
const MAX_DEPTH = 24
/** Frames of one trace looked at. */
const MAX_FRAMES = 60
/** Longer lines are no frame (and would make the patterns below slow on hostile text). */
const MAX_LINE_CHARS = 1000
/** Folders never searched: tests do not live there, and they are large. */
const SKIPPED_DIRS = new Set(['.git', 'node_modules'])

/** Java (and Kotlin, Groovy, Scala on the JVM): `at pkg.Class.method(Class.java:42)`, maybe with a module prefix `app//`. */
const JAVA_FRAME =
  /^\s*at\s+(?:[^\s(]*\/)?([\w$.]+)\.[^\s.(]+\(([\w$-]+\.(?:java|kt|groovy|scala)):(\d+)\)\s*$/
/** Python's traceback: `File "tests/x.py", line 42, in test_x`. */
const PYTHON_FRAME = /^\s*File "([^"]+)", line (\d+)/
/** pytest's report: `tests/x.py:42: AssertionError`. */
const PYTEST_FRAME = /^([^\s"]+\.py):(\d+):/
/** V8: `at fn (src/x.test.ts:42:7)`, `at src/x.test.ts:42:7`, `file:///…` URLs too. */
const JS_FRAME = /^\s*at\s+(?:.*?\()?(?:file:\/\/)?([^\s()]+\.[cm]?[jt]sx?):(\d+):\d+\)?\s*$/

/** Segments of a library's install folder: their frames are never the test's file. */
const LIBRARY = /^(site-packages|dist-packages|node_modules|<frozen.*|<string>)$/

/**
 * The frames of a trace whose file could be the test's, in the trace's order.
 * @internal
 */
export function framesOf(trace: string): Frame[] {
  const frames: Frame[] = []
  for (const text of trace.split(/\r\n|\r|\n/)) {
    if (frames.length >= MAX_FRAMES) break
    if (text.length > MAX_LINE_CHARS) continue
    const java = JAVA_FRAME.exec(text)
    const other = PYTHON_FRAME.exec(text) ?? PYTEST_FRAME.exec(text) ?? JS_FRAME.exec(text)
    // Java names the class: its package path, then the file name.
    const segments = java
      ? [...(java[1] ?? '').split('.').slice(0, -1), java[2] ?? '']
      : pathSegments(other?.[1] ?? '')
    const line = Number(java ? java[3] : other?.[2])
    if (!segments || segments.length === 0 || !Number.isSafeInteger(line) || line < 1) continue
    if (segments.some(s => s === '' || LIBRARY.test(s))) continue
    frames.push({ segments, line, java: java !== null })
  }
  return frames
}

/**
 * A trace's path as segments; undefined when it climbs (`..`) or holds a
 * control character: such a path names nothing this search may match.
 * @internal
 */
export function pathSegments(path: string): string[] | undefined {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(path)) return undefined
  const segments = path.split(/[\\/]+/).filter(s => s !== '' && s !== '.')
  if (segments.some(s => s === '..')) return undefined
  // A drive letter (`C:`) names no folder of ours.
  if (/^[A-Za-z]:$/.test(segments[0] ?? '')) segments.shift()
  // `lib/python3.12/…`: the standard library.
  if (segments.some((s, i) => segments[i - 1] === 'lib' && /^python\d/.test(s))) return undefined
  return segments
}

/** Workspace-relative paths ('/'-separated) of the files of the workspace, by name, for the names asked for. */
type WorkspaceFiles = ReadonlyMap<string, string[]>

/**
 * Walks the workspace once, keeping the paths of files whose name is one
 * of `names`. Undefined when the walk went past its bounds (or the
 * workspace cannot be read): then no file is certain.
 * @internal
 */
export async function searchWorkspace(
  root: string,
  names: ReadonlySet<string>,
  // A parameter for the tests alone: 50,000 files would take seconds to make.
  maxEntries = MAX_ENTRIES
): Promise<WorkspaceFiles | undefined> {
  const found = new Map<string, string[]>()
  let entries = 0
  const folders: Array<{ path: string; rel: string; depth: number }> = [
    { path: root, rel: '', depth: 0 }
  ]
  try {
    for (let folder = folders.pop(); folder; folder = folders.pop()) {
      // One call a folder: many times faster than iterating a Dir entry by entry.
      const list = await readdir(folder.path, { withFileTypes: true })
      entries += list.length
      if (entries > maxEntries) return undefined
      for (const entry of list) {
        // Dirent types come from lstat: a link is a link, never what it points at.
        if (entry.isSymbolicLink()) continue
        const rel = folder.rel === '' ? entry.name : `${folder.rel}/${entry.name}`
        if (entry.isDirectory()) {
          if (SKIPPED_DIRS.has(entry.name)) continue
          if (folder.depth + 1 > MAX_DEPTH) return undefined
          folders.push({ path: join(folder.path, entry.name), rel, depth: folder.depth + 1 })
        } else if (entry.isFile() && names.has(entry.name)) {
          found.set(entry.name, [...(found.get(entry.name) ?? []), rel])
        }
      }
    }
  } catch {
    return undefined
  }
  return found
}

/**
 * The workspace files a frame may name: a Java frame's file must end with
 * its package path; another frame's path (absolute on Jenkins' machine, or
 * relative to where the tests ran) and the file's must end one with the
 * other, segment by segment (no segment holds a '/').
 */
function matches(frame: Frame, files: WorkspaceFiles): string[] {
  const path = `/${frame.segments.join('/')}`
  return (files.get(frame.segments.at(-1) ?? '') ?? []).filter(
    rel => `/${rel}`.endsWith(path) || (!frame.java && path.endsWith(`/${rel}`))
  )
}

/**
 * The first frame of the trace that names exactly one workspace file;
 * undefined when none does, or when the first that matches at all matches
 * several (which one failed cannot be known).
 * @internal
 */
export function locate(trace: string | undefined, files: WorkspaceFiles): TestLocation | undefined {
  for (const frame of framesOf(trace ?? '')) {
    const found = matches(frame, files)
    if (found.length > 1) return undefined
    if (found[0] !== undefined) return { file: found[0], line: frame.line }
  }
  return undefined
}

/**
 * The place of each failed test that has a trace naming one workspace
 * file, keyed by the test. One bounded walk of the workspace, only when
 * some trace names a file. A help: never throws, says why in the debug log.
 */
export async function locateFailedTests(
  tests: readonly FailedTest[],
  workspace: string,
  logger: Logger
): Promise<Map<FailedTest, TestLocation>> {
  const located = new Map<FailedTest, TestLocation>()
  const names = new Set(
    tests.flatMap(test => framesOf(test.errorStackTrace ?? '').map(f => f.segments.at(-1) ?? ''))
  )
  if (names.size === 0) return located
  const files = await searchWorkspace(workspace, names)
  if (!files) {
    logger.debug(
      `Failed tests are not pointed at files: the workspace ${workspace} could not be searched within ${MAX_ENTRIES} entries and ${MAX_DEPTH} levels.`
    )
    return located
  }
  for (const test of tests) {
    const where = locate(test.errorStackTrace, files)
    if (where) located.set(test, where)
  }
  return located
}
