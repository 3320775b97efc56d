import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import {
  walkCheckedInside,
  nodeWalkFs,
  resolveWorkspaceFile,
  workspaceFolder,
  WorkspacePathError,
  type PathKind,
  type WalkFs
} from '../../src/util/workspace-paths.js'

/**
 * The workspace rules where two answers compete: a rule of one platform
 * on the other, a workspace reached through a link, a disk that changes
 * under the walk, and what the error carries besides its message.
 * workspace-paths.test.ts covers the refusals themselves.
 */

const win = path.win32
const posix = path.posix

function errorOf(run: () => unknown): WorkspacePathError {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(WorkspacePathError)
    return error as WorkspacePathError
  }
  throw new Error('no error')
}

async function rejection(promise: Promise<unknown>): Promise<WorkspacePathError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e
  )
  expect(error).toBeInstanceOf(WorkspacePathError)
  return error as WorkspacePathError
}

describe('resolveWorkspaceFile refuses before any disk access', () => {
  const fs: WalkFs = {
    lstat: () => Promise.reject(new Error('no disk')),
    realpath: () => Promise.reject(new Error('no disk')),
    readlink: () => Promise.reject(new Error('no disk')),
    mkdir: () => Promise.reject(new Error('no disk'))
  }
  test.each<[string, string]>([
    ['a//./b/', 'has an empty path segment'],
    ['./a', "has a '.' segment"],
    // The Windows name rules stay out elsewhere; a drive letter is refused everywhere.
    ['C:x', 'starts with a drive letter'],
    ['C:..', 'starts with a drive letter'],
    ['a\\..\\b', 'contains a backslash'],
    ['a\u007fb', 'contains a control character'],
    ['a\u001fb', 'contains a control character'],
    ['./.', "has a '.' segment"],
    ['//server/share', 'is absolute']
  ])('posix %j %s', async (value, reason) => {
    const error = await rejection(resolveWorkspaceFile('/ws', value, { path: posix, fs }))
    expect(error.message).toBe(`'${value}' ${reason}`)
    expect(error.path).toBe(value)
    expect(error.reason).toBe(reason)
    expect(error.link).toBeUndefined()
    expect(error.dangling).toBe(false)
    expect(error.name).toBe('WorkspacePathError')
  })
})

describe('workspaceFolder', () => {
  test.each<[string, string]>([
    ['C:..', '/ws/C:..'],
    ['out/CON', '/ws/out/CON'],
    ['out/dir.', '/ws/out/dir.'],
    ['/ws/out', '/ws/out'],
    ['.', '/ws']
  ])('posix %j is %s', (value, folder) => {
    expect(workspaceFolder(value, '/ws', posix)).toBe(folder)
  })

  test.each<[string, string]>([
    ['//ws2/x', 'is outside the workspace'],
    ['a\u0000b', 'contains a control character']
  ])('posix %j %s', (value, reason) => {
    expect(errorOf(() => workspaceFolder(value, '/ws', posix)).message).toBe(`'${value}' ${reason}`)
  })

  test('win32: a UNC path inside a workspace on a share is accepted, the workspace itself too', () => {
    const ws = '\\\\server\\share\\ws'
    expect(workspaceFolder('\\\\server\\share\\ws\\out', ws, win)).toBe(
      '\\\\server\\share\\ws\\out'
    )
    expect(workspaceFolder('.', 'C:\\ws', win)).toBe('C:\\ws')
    expect(errorOf(() => workspaceFolder('\\\\server\\share\\other', ws, win)).message).toBe(
      "'\\\\server\\share\\other' is a network (UNC) path outside the workspace"
    )
  })
})

type Entry = 'dir' | 'file' | 'fifo' | { link: string } | { dangling: string }

/**
 * A posix disk in memory whose answers a test can bend (a folder mkdir
 * does not make, a link whose target vanishes between realpath and lstat).
 */
function disk(entries: Record<string, Entry>, bend: { mkdirMakes?: boolean; gone?: string } = {}) {
  const map = new Map(Object.entries(entries))
  const kind = (e: Entry): PathKind => ({
    isDirectory: () => e === 'dir',
    isFile: () => e === 'file',
    isSymbolicLink: () => typeof e === 'object'
  })
  const fs: WalkFs = {
    lstat: async p => {
      if (p === bend.gone) return undefined
      const e = map.get(p)
      return e === undefined ? undefined : kind(e)
    },
    realpath: async p => {
      const e = map.get(p)
      if (e === undefined) throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' })
      if (typeof e === 'object' && 'link' in e) return e.link
      if (typeof e === 'object') throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' })
      return p
    },
    readlink: async p => {
      const e = map.get(p)
      if (typeof e === 'object' && 'dangling' in e && e.dangling !== '') return e.dangling
      throw new Error('EINVAL')
    },
    mkdir: async p => {
      if (bend.mkdirMakes !== false) map.set(p, 'dir')
    }
  }
  return fs
}

describe('the walk, on a disk that does not behave', () => {
  test('a folder mkdir did not make is refused', async () => {
    const fs = disk({ '/ws': 'dir' }, { mkdirMakes: false })
    const error = await rejection(
      walkCheckedInside('/ws', '/ws', ['a', 'b'], 'a/b', { path: posix, fs })
    )
    expect(error.message).toBe("'a/b' could not be created ('a')")
  })

  test('a link whose target is gone by the time it is looked at is refused', async () => {
    const fs = disk(
      { '/ws': 'dir', '/ws/in': { link: '/ws/real' }, '/ws/real': 'dir' },
      { gone: '/ws/real' }
    )
    const error = await rejection(
      walkCheckedInside('/ws', '/ws', ['in', 'x'], 'in/x', { path: posix, fs })
    )
    expect(error.message).toBe("'in/x' does not exist ('in' is missing)")
  })

  test('a dangling link: what it leads to, or ? when even that cannot be read', async () => {
    const fs = disk({
      '/ws': 'dir',
      '/ws/d': { dangling: '/nowhere' },
      '/ws/e': { dangling: '' }
    })
    const d = await rejection(
      walkCheckedInside('/ws', '/ws', ['d', 'x'], 'd/x', { path: posix, fs })
    )
    expect(d.message).toBe(
      "'d/x' passes through the symbolic link 'd', which leads to /nowhere, which does not exist"
    )
    expect([d.link, d.target, d.dangling]).toEqual(['d', '/nowhere', true])
    const e = await rejection(walkCheckedInside('/ws', '/ws', ['e'], 'e', { path: posix, fs }))
    expect(e.message).toBe(
      "'e' passes through the symbolic link 'e', which leads to ?, which does not exist"
    )
  })

  test('a link out names the link, where it leads, and the workspace as reached and as it really is', async () => {
    const fs = disk({
      '/real/ws': 'dir',
      '/real/ws/out': { link: '/elsewhere' },
      '/elsewhere': 'dir'
    })
    const error = await rejection(
      walkCheckedInside('/ws', '/real/ws', ['out', 'x'], 'out/x', { path: posix, fs })
    )
    expect(error.message).toBe(
      "'out/x' leads out of /ws (/real/ws) through a symbolic link: 'out' leads to /elsewhere"
    )
    expect([error.link, error.target, error.dangling]).toEqual(['out', '/elsewhere', false])
  })

  test('the last segment: a folder for walkCheckedInside, a file to read, and neither a FIFO', async () => {
    const fs = disk({ '/ws': 'dir', '/ws/f': 'file', '/ws/p': 'fifo', '/ws/d': 'dir' })
    expect(
      (await rejection(walkCheckedInside('/ws', '/ws', ['f'], 'f', { path: posix, fs }))).message
    ).toBe("'f' is not a folder ('f' is a file)")
    expect(await walkCheckedInside('/ws', '/ws', ['d'], 'd', { path: posix, fs })).toBe('/ws/d')
    expect((await rejection(resolveWorkspaceFile('/ws', 'p', { path: posix, fs }))).message).toBe(
      "'p' is not a file"
    )
    expect((await rejection(resolveWorkspaceFile('/ws', 'd', { path: posix, fs }))).message).toBe(
      "'d' is a folder, not a file"
    )
    expect(await resolveWorkspaceFile('/ws', 'f', { path: posix, fs })).toBe('/ws/f')
  })
})

describe("nodeWalkFs, on this machine's disk", () => {
  function folder(): string {
    return realpathSync(mkdtempSync(path.join(tmpdir(), 'walk-fs-')))
  }

  test('lstat: nothing there, or a file in the way, is undefined; other errors are thrown', async () => {
    const dir = folder()
    writeFileSync(path.join(dir, 'f'), 'x')
    expect(await nodeWalkFs.lstat(path.join(dir, 'missing'))).toBeUndefined()
    expect(await nodeWalkFs.lstat(path.join(dir, 'f', 'x'))).toBeUndefined()
    expect((await nodeWalkFs.lstat(path.join(dir, 'f')))?.isFile()).toBe(true)
    await expect(nodeWalkFs.lstat(path.join(dir, 'n'.repeat(300)))).rejects.toMatchObject({
      code: 'ENAMETOOLONG'
    })
  })

  test('mkdir: a folder already there is no error; a missing parent is', async () => {
    const dir = folder()
    await nodeWalkFs.mkdir(path.join(dir, 'a'))
    await nodeWalkFs.mkdir(path.join(dir, 'a'))
    expect((await nodeWalkFs.lstat(path.join(dir, 'a')))?.isDirectory()).toBe(true)
    await expect(nodeWalkFs.mkdir(path.join(dir, 'no', 'b'))).rejects.toMatchObject({
      code: 'ENOENT'
    })
  })

  test('resolveWorkspaceFile through a workspace that is itself a link names both', async () => {
    const parent = folder()
    const real = path.join(parent, 'real-ws')
    mkdirSync(path.join(real, 'src'), { recursive: true })
    mkdirSync(path.join(parent, 'outside'))
    writeFileSync(path.join(real, 'src', 'a.txt'), 'a')
    symlinkSync(path.join(parent, 'outside'), path.join(real, 'out'))
    const ws = path.join(parent, 'ws')
    symlinkSync(real, ws)
    expect(await resolveWorkspaceFile(ws, 'src/a.txt')).toBe(path.join(real, 'src', 'a.txt'))
    const error = await rejection(resolveWorkspaceFile(ws, 'out/x'))
    expect(error.message).toBe(
      `'out/x' leads out of ${ws} (${real}) through a symbolic link: 'out' leads to ${path.join(parent, 'outside')}`
    )
  })
})

describe('Windows rules anchored where they belong', () => {
  test('a doubled separator inside a path is no UNC path, and a colon inside is no drive', () => {
    expect(workspaceFolder('out//x', 'C:\\ws', win)).toBe('C:\\ws\\out\\x')
    expect(errorOf(() => workspaceFolder('out\\a:b', 'C:\\ws', win)).message).toBe(
      "'out\\a:b' contains a character Windows does not allow in file names (<>:\"|?*)"
    )
  })

  test('a path rooted on the current drive is outside the workspace, not a UNC path', () => {
    expect(errorOf(() => workspaceFolder('\\out', 'C:\\ws', win)).message).toBe(
      "'\\out' is outside the workspace"
    )
  })

  test('resolveWorkspaceFile reads the name by the path rules it is given', async () => {
    const fs = disk({ '/ws': 'dir', '/ws/CON': 'file' })
    expect((await rejection(resolveWorkspaceFile('/ws', 'CON', { path: win, fs }))).message).toBe(
      "'CON' names a Windows device (CON, NUL, …)"
    )
  })
})
