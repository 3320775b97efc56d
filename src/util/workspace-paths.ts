/**
 * Paths below the workspace that the step creates or reads, checked against
 * where each existing component really leads before anything is created or
 * opened through it. A lexical check alone is not enough: `out` may be a
 * symbolic link (or a Windows junction) to a folder elsewhere, and
 * `mkdir -p out/sub` would create `sub` there before any check could refuse.
 *
 * The path module and the file system are injected so that the Windows rules
 * (backslashes, drive letters, `C:..`, UNC paths, junctions, device names)
 * are tested with `path.win32` here, where no Windows machine is.
 */
import type { Stats } from 'node:fs'
import { lstat, mkdir, readlink, realpath } from 'node:fs/promises'
import nodePath from 'node:path'
import { artifactSegments, isInside, windowsNameProblem } from './artifact-paths.js'
import { errorCode } from './error-text.js'

/** `node:path`, `path.posix` or `path.win32`. */
export type PathApi = Pick<
  typeof nodePath,
  'isAbsolute' | 'join' | 'relative' | 'resolve' | 'sep' | 'normalize' | 'parse'
>

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
 * path, or a WorkspacePathError when the path breaks the rules of an
 * artifact's path (artifactSegments: relative, `/`-separated, no `.`, `..`
 * or empty segment, on Windows no device name), does not exist or is not a
 * file, or passes through a symbolic link (or junction) that leads out of the
 * workspace. Links that stay inside are followed. Nothing is created.
 */
export async function resolveWorkspaceFile(
  workspace: string,
  relativePath: string,
  options: WalkOptions = {}
): Promise<string> {
  const fs = options.fs ?? nodeWalkFs
  const platform = (options.path ?? nodePath).sep === '\\' ? 'win32' : 'linux'
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
      let target: string
      try {
        target = await fs.realpath(here)
      } catch {
        const to = await fs.readlink(here).catch(() => '?')
        throw new WorkspacePathError(
          label,
          `passes through the symbolic link '${shown}', which leads to ${to}, which does not exist`,
          { link: shown, target: to, dangling: true }
        )
      }
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
