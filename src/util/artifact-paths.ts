import nodePath, { join } from 'node:path'

/** A path Jenkins sent (or the user gave) that would not land inside the artifacts folder, and why. */
export interface RefusedPath {
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
export function windowsNameProblem(name: string): string | undefined {
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
 */
export function isInside(
  root: string,
  target: string,
  path: Pick<typeof nodePath, 'relative' | 'isAbsolute' | 'sep'> = nodePath
): boolean {
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
