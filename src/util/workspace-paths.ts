/**
 * Paths the step writes or reads: an artifact's path from Jenkins (or a
 * user's file path), checked by its text before it is joined below a folder
 * (artifactSegments); and paths below the workspace that the step creates or
 * reads, checked against where each existing component really leads before
 * anything is created or opened through it. A lexical check alone is not enough: `out` may be a
 * symbolic link (or a Windows junction) to a folder elsewhere, and
 * `mkdir -p out/sub` would create `sub` there before any check could refuse.
 * The path module and the file system are injected so that the Windows rules
 * (backslashes, drive letters, `C:..`, UNC paths, junctions, device names)
 * are tested with `path.win32` here, where no Windows machine is.
 */
import type { Stats } from 'node:fs'
import { lstat, mkdir, readlink, realpath } from 'node:fs/promises'
import nodePath, { join } from 'node:path'
import { errorCode } from './error-text.js'

/** `node:path`, `path.posix` or `path.win32`. */
export type PathApi = Pick<
  typeof nodePath,
  'isAbsolute' | 'join' | 'relative' | 'resolve' | 'sep' | 'normalize' | 'parse'
>

/** A path Jenkins sent (or the user gave) that would not land inside the artifacts folder, and why. */
interface RefusedPath {
  path: string
  reason: string
}

/** Characters Windows does not allow in a file name (NTFS/Win32; `:` would also open an alternate data stream). */
const WINDOWS_FORBIDDEN = /[<>:"|?*]/
/** Device names Windows resolves whatever the folder or extension (`NUL.txt` is the NUL device). */
const WINDOWS_RESERVED = /^(CON|PRN|AUX|NUL|CONIN\$|CONOUT\$|COM[0-9¹²³]|LPT[0-9¹²³])(\..*)?$/i
/** Longest file name most file systems take (ext4, NTFS, APFS: 255). */
const MAX_NAME_BYTES = 255

/**
 * The path segments of an artifact's `relativePath`, or why it is refused.
 *
 * Jenkins' own StandardArtifactManager joins file names with '/'
 * (`Run.addArtifacts`), so a well-formed path is '/'-separated names, none
 * empty, '.' or '..'. Anything else comes from a broken or hostile server (or
 * an artifact manager plugin) and could write outside the folder: absolute
 * paths, drive letters, backslashes (a separator on Windows runners), NUL and
 * control characters, and, on Windows, names it would reinterpret.
 */
export function artifactSegments(
  relativePath: string,
  platform: NodeJS.Platform = process.platform
): string[] | RefusedPath {
  const refuse = (reason: string): RefusedPath => ({ path: relativePath, reason })
  if (relativePath === '') return refuse('is empty')
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(relativePath)) return refuse('contains a control character')
  if (relativePath.includes('\\')) return refuse('contains a backslash')
  if (relativePath.startsWith('/')) return refuse('is absolute')
  if (/^[A-Za-z]:/.test(relativePath)) return refuse('starts with a drive letter')
  const segments = relativePath.split('/')
  for (const segment of segments) {
    if (segment === '') return refuse('has an empty path segment')
    if (segment === '.' || segment === '..') return refuse(`has a '${segment}' segment`)
    if (Buffer.byteLength(segment) > MAX_NAME_BYTES) {
      return refuse(`has a name longer than ${MAX_NAME_BYTES} bytes`)
    }
    if (platform === 'win32') {
      const problem = windowsNameProblem(segment)
      if (problem) return refuse(problem)
    }
  }
  return segments
}

/** Why Windows would not take `name` as the file name it looks like, if it would not. */
function windowsNameProblem(name: string): string | undefined {
  if (WINDOWS_FORBIDDEN.test(name)) {
    return 'contains a character Windows does not allow in file names (<>:"|?*)'
  }
  // Windows drops trailing dots and spaces before it looks the name up: `CON .txt` is not CON, `aux.` is.
  const trimmed = name.replace(/[. ]+$/, '')
  if (WINDOWS_RESERVED.test(trimmed) || WINDOWS_RESERVED.test(name)) {
    return 'names a Windows device (CON, NUL, …)'
  }
  if (/[. ]$/.test(name)) return 'has a name ending in a dot or space (Windows)'
  return undefined
}

/**
 * True when `target` is `root` or below it (both absolute, already resolved).
 * `path` is the platform's by default (path.win32 in tests: it compares
 * case-insensitively and knows drives and UNC roots).
 * @internal
 */
export function isInside(root: string, target: string, path: PathApi = nodePath): boolean {
  const rel = path.relative(root, target)
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel))
}

/**
 * Where an artifact goes below `root`, or why not. The lexical check after the
 * join is belt and braces: artifactSegments already refused every way out.
 */
export function artifactTarget(root: string, relativePath: string): string | RefusedPath {
  const segments = artifactSegments(relativePath)
  if (!Array.isArray(segments)) return segments
  const target = join(root, ...segments)
  if (target === root || !isInside(root, target)) {
    return { path: relativePath, reason: 'would land outside the artifacts folder' }
  }
  return target
}

/**
 * What the walk needs of an existing path: lstat's answer.
 * @internal
 */
export type PathKind = Pick<Stats, 'isDirectory' | 'isFile' | 'isSymbolicLink'>

/**
 * The file system calls the walk makes (node:fs/promises by default).
 * @internal
 */
export interface WalkFs {
  /** lstat; undefined when nothing is there. */
  lstat(path: string): Promise<PathKind | undefined>
  realpath(path: string): Promise<string>
  readlink(path: string): Promise<string>
  /** One folder, not recursive; a folder already there is not an error. */
  mkdir(path: string): Promise<void>
}

/** @internal */
export const nodeWalkFs: WalkFs = {
  lstat: async path => {
    try {
      return await lstat(path)
    } catch (error) {
      if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return undefined
      throw error
    }
  },
  realpath: path => realpath(path),
  readlink: path => readlink(path),
  mkdir: async path => {
    try {
      await mkdir(path)
    } catch (error) {
      // Another download may have made it a moment ago: the walk looks again.
      if (errorCode(error) !== 'EEXIST') throw error
    }
  }
}

export interface WalkOptions {
  path?: PathApi
  fs?: WalkFs
  /** A folder to make (the default), or a file to read. */
  want?: 'folder' | 'file'
}

/** A path the rules refuse, with why; `link` names the symbolic link it went out through. */
export class WorkspacePathError extends Error {
  /** The symbolic link (workspace-relative, '/'-separated) it went out through. */
  readonly link?: string
  /** Where that link leads. */
  readonly target?: string
  /** The link leads to nothing (it cannot be followed, nor be created through). */
  readonly dangling: boolean

  constructor(
    readonly path: string,
    readonly reason: string,
    { link, target, dangling = false }: { link?: string; target?: string; dangling?: boolean } = {}
  ) {
    super(`'${path}' ${reason}`)
    this.name = 'WorkspacePathError'
    this.link = link
    this.target = target
    this.dangling = dangling
  }
}

/**
 * The absolute folder a user's path names below the workspace (relative to
 * it, or absolute inside it), or a WorkspacePathError: a control character,
 * outside the workspace, and on Windows a UNC path outside it, a
 * drive-relative one (`C:..`, whose meaning depends on that drive's current
 * folder), or a device name or a name ending in a dot or space in any
 * segment. Lexical only: links are checked when the folder is made
 * (walkCheckedInside).
 */
export function workspaceFolder(
  value: string,
  workspace: string,
  path: PathApi = nodePath
): string {
  const refuse = (reason: string): never => {
    throw new WorkspacePathError(value, reason)
  }
  const windows = path.sep === '\\'
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) refuse('contains a control character')
  if (windows && /^[\\/]{2}/.test(value) && !isInside(workspace, path.resolve(value), path)) {
    refuse('is a network (UNC) path outside the workspace')
  }
  if (windows && /^[A-Za-z]:(?![\\/])/.test(value)) {
    refuse("is relative to a drive's current folder (like C:..)")
  }
  const target = path.resolve(workspace, value)
  if (!isInside(workspace, target, path)) {
    refuse(path.isAbsolute(value) ? 'is outside the workspace' : 'leads out of the workspace')
  }
  for (const segment of windows ? path.relative(workspace, target).split(/[\\/]/) : []) {
    const problem = segment === '' ? undefined : windowsNameProblem(segment)
    if (problem) refuse(problem)
  }
  return target
}

/**
 * An existing file at `relativePath` below `workspace`, for reading: its real
 * path, or a WorkspacePathError when the path is empty (or spaces alone),
 * breaks the rules of an artifact's path (artifactSegments: relative,
 * `/`-separated, no `.`, `..` or empty segment, on Windows no device name),
 * does not exist or is not a file, or passes through a symbolic link (or
 * junction) that leads out of the workspace. Links that stay inside are
 * followed. Nothing is created.
 */
export async function resolveWorkspaceFile(
  workspace: string,
  relativePath: string,
  options: WalkOptions = {}
): Promise<string> {
  const fs = options.fs ?? nodeWalkFs
  const platform = (options.path ?? nodePath).sep === '\\' ? 'win32' : 'linux'
  // Spaces alone name no file (an item's files object is not trimmed).
  if (relativePath.trim() === '') throw new WorkspacePathError(relativePath, 'is empty')
  const segments = artifactSegments(relativePath, platform)
  if (!Array.isArray(segments)) throw new WorkspacePathError(relativePath, segments.reason)
  const real = await fs.realpath(workspace)
  return walkCheckedInside(workspace, real, segments, relativePath, { ...options, want: 'file' })
}

/**
 * Makes the folder `segments` below `base` one level at a time (`want:
 * 'file'`: reads down to an existing file, making nothing), checking before
 * each step that the part that exists leads where it seems: a component that
 * is (or resolves through) a symbolic link or junction out of `baseReal` is
 * refused, naming it, before anything is created inside it. Returns the real
 * path. `baseReal` is `base` with its links resolved (the boundary); `label`
 * is how messages name the path.
 */
export async function walkCheckedInside(
  base: string,
  baseReal: string,
  segments: readonly string[],
  label: string,
  { path = nodePath, fs = nodeWalkFs, want = 'folder' }: WalkOptions = {}
): Promise<string> {
  // Each step starts from the real path of the part already checked, which
  // has no link in it: nothing is looked up or made through a link that
  // was not checked first.
  let real = baseReal
  for (const [index, segment] of segments.entries()) {
    const last = index === segments.length - 1
    const here = path.join(real, segment)
    const shown = segments.slice(0, index + 1).join('/')
    let kind = await fs.lstat(here)
    if (!kind) {
      if (want === 'file')
        throw new WorkspacePathError(label, `does not exist ('${shown}' is missing)`)
      await fs.mkdir(here)
      kind = await fs.lstat(here)
      if (!kind) throw new WorkspacePathError(label, `could not be created ('${shown}')`)
    }
    if (kind.isSymbolicLink()) {
      const target = await fs.realpath(here).catch(async () => {
        const to = await fs.readlink(here).catch(() => '?')
        throw new WorkspacePathError(
          label,
          `passes through the symbolic link '${shown}', which leads to ${to}, which does not exist`,
          { link: shown, target: to, dangling: true }
        )
      })
      if (!isInside(baseReal, target, path)) {
        throw new WorkspacePathError(
          label,
          `leads out of ${base === baseReal ? base : `${base} (${baseReal})`} through a symbolic link: '${shown}' leads to ${target}`,
          { link: shown, target }
        )
      }
      real = target
      kind = await fs.lstat(real)
      if (!kind) throw new WorkspacePathError(label, `does not exist ('${shown}' is missing)`)
    } else {
      real = here
    }
    const isFolder = kind.isDirectory()
    if (!last || want === 'folder') {
      if (!isFolder) throw new WorkspacePathError(label, `is not a folder ('${shown}' is a file)`)
    } else if (!kind.isFile()) {
      throw new WorkspacePathError(label, isFolder ? 'is a folder, not a file' : 'is not a file')
    }
  }
  return real
}
