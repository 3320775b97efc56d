import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import {
  walkCheckedInside,
  resolveWorkspaceFile,
  workspaceFolder,
  WorkspacePathError,
  type PathKind,
  type WalkFs
} from '../../src/util/workspace-paths.js'

const win = path.win32

type Entry = { type: 'dir' } | { type: 'file' } | { type: 'link'; to: string }

/**
 * A Windows disk in memory: paths compared case-insensitively, junctions and
 * symbolic links as `link` entries (Node's lstat reports both as links), so
 * the walk runs its Windows path logic without a Windows machine. Every
 * folder it creates is recorded.
 */
function windowsDisk(entries: Record<string, Entry>) {
  const disk = new Map<string, Entry>()
  /** Each path as it was spelt when made: realpath answers in that case, as Windows does. */
  const spelt = new Map<string, string>()
  const key = (p: string) => win.normalize(p).toLowerCase().replace(/\\$/, '')
  for (const [p, e] of Object.entries(entries)) {
    disk.set(key(p), e)
    spelt.set(key(p), p)
  }
  const created: string[] = []
  const kind = (e: Entry): PathKind => ({
    isDirectory: () => e.type === 'dir',
    isFile: () => e.type === 'file',
    isSymbolicLink: () => e.type === 'link'
  })
  const realpath = async (p: string): Promise<string> => {
    const { root } = win.parse(p)
    let real = root
    for (const part of win.relative(root, p).split('\\').filter(Boolean)) {
      let next = win.join(real, part)
      for (let hops = 0; ; hops++) {
        const e = disk.get(key(next))
        if (!e) throw Object.assign(new Error(`ENOENT ${next}`), { code: 'ENOENT' })
        if (e.type !== 'link') break
        if (hops > 20) throw Object.assign(new Error('ELOOP'), { code: 'ELOOP' })
        next = win.resolve(real, e.to)
      }
      real = spelt.get(key(next)) ?? next
    }
    return real
  }
  const fs: WalkFs = {
    lstat: async p => {
      // Like lstat: links before the last component are followed, the last is not.
      const parent = await realpath(win.dirname(p)).catch(() => undefined)
      const e = parent === undefined ? undefined : disk.get(key(win.join(parent, win.basename(p))))
      return e && kind(e)
    },
    realpath,
    readlink: async p => {
      const e = disk.get(key(p))
      if (e?.type !== 'link') throw new Error('EINVAL')
      return e.to
    },
    mkdir: async p => {
      // What Windows does: the folder goes where the parent really is.
      const parent = await realpath(win.dirname(p))
      const real = win.join(parent, win.basename(p))
      if (disk.has(key(real))) return
      disk.set(key(real), { type: 'dir' })
      spelt.set(key(real), real)
      created.push(real)
    }
  }
  return { fs, created }
}

describe('resolveWorkspaceFile: what a user may name for reading (the rules of artifactSegments)', () => {
  const refused = (value: string, api: typeof path.posix) =>
    expect(resolveWorkspaceFile('/ws', value, { path: api })).rejects

  test.each([
    ['/etc/passwd', 'is absolute'],
    ['../secrets', "has a '..' segment"],
    ['a/../../b', "has a '..' segment"],
    ['', 'is empty'],
    ['.', "has a '.' segment"],
    ['a\nb', 'contains a control character']
  ])('posix %j %s', async (value, reason) => {
    await refused(value, path.posix).toThrow(`'${value}' ${reason}`)
  })

  test.each([
    ['C:\\Windows\\win.ini', 'contains a backslash'],
    ['C:/Windows/win.ini', 'starts with a drive letter'],
    ['\\Windows\\win.ini', 'contains a backslash'],
    ['C:..', 'starts with a drive letter'],
    ['d:secret.txt', 'starts with a drive letter'],
    ['\\\\server\\share\\x', 'contains a backslash'],
    ['//server/share/x', 'is absolute'],
    ['a\\..\\..\\b', 'contains a backslash'],
    ['CON', 'names a Windows device (CON, NUL, …)'],
    ['docs\\aux.txt', 'contains a backslash'],
    ['com1.txt', 'names a Windows device (CON, NUL, …)'],
    ['nul.', 'names a Windows device (CON, NUL, …)'],
    ['notes.txt.', 'has a name ending in a dot or space (Windows)'],
    ['notes.txt ', 'has a name ending in a dot or space (Windows)'],
    ['a:b.txt', 'starts with a drive letter'],
    ['dir/a:stream', 'contains a character Windows does not allow in file names (<>:"|?*)']
  ])('win32 %j %s', async (value, reason) => {
    await refused(value, win).toThrow(`'${value}' ${reason}`)
  })

  test('backslashes are refused on every platform; Windows names on Windows only', async () => {
    await refused('a\\b/c.txt', win).toThrow("'a\\b/c.txt' contains a backslash")
    await refused('a\\b/c.txt', path.posix).toThrow("'a\\b/c.txt' contains a backslash")
    // Device names are a Windows rule only.
    const ws = realpathSync(mkdtempSync(path.join(tmpdir(), 'ws-aux-')))
    mkdirSync(path.join(ws, 'docs'))
    writeFileSync(path.join(ws, 'docs', 'aux.txt'), 'x')
    expect(await resolveWorkspaceFile(ws, 'docs/aux.txt', { path: path.posix })).toBe(
      path.join(ws, 'docs', 'aux.txt')
    )
  })
})

describe('workspaceFolder (artifacts-path)', () => {
  test.each([
    ['C:..', "is relative to a drive's current folder (like C:..)"],
    ['\\\\evil\\share', 'is a network (UNC) path outside the workspace'],
    ['D:\\elsewhere', 'is outside the workspace'],
    ['..\\sibling', 'leads out of the workspace'],
    ['out\\CON\\x', 'names a Windows device (CON, NUL, …)'],
    ['out\\dir.', 'has a name ending in a dot or space (Windows)']
  ])('win32 %j %s', (value, reason) => {
    expect(() => workspaceFolder(value, 'C:\\ws', win)).toThrow(`'${value}' ${reason}`)
  })

  test('win32 paths inside the workspace, in either spelling', () => {
    expect(workspaceFolder('out/jenkins', 'C:\\ws', win)).toBe('C:\\ws\\out\\jenkins')
    expect(workspaceFolder('c:\\WS\\out', 'C:\\ws', win)).toBe('c:\\WS\\out')
    expect(workspaceFolder('a\\..\\b', 'C:\\ws', win)).toBe('C:\\ws\\b')
  })
})

describe('walkCheckedInside on Windows (in-memory disk)', () => {
  test('a junction out of the workspace is refused, naming it, and nothing is created through it', async () => {
    const { fs, created } = windowsDisk({
      'C:\\': { type: 'dir' },
      'C:\\ws': { type: 'dir' },
      'C:\\ws\\out': { type: 'link', to: 'D:\\elsewhere' },
      'D:\\': { type: 'dir' },
      'D:\\elsewhere': { type: 'dir' }
    })
    const error = await walkCheckedInside(
      'C:\\ws',
      'C:\\ws',
      ['out', 'sub', 'dir'],
      'out\\sub\\dir',
      {
        path: win,
        fs
      }
    ).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(WorkspacePathError)
    expect((error as WorkspacePathError).link).toBe('out')
    expect((error as WorkspacePathError).message).toBe(
      "'out\\sub\\dir' leads out of C:\\ws through a symbolic link: 'out' leads to D:\\elsewhere"
    )
    expect(created).toEqual([])
  })

  test('a link to a UNC share is refused; one that stays inside (in another case) is followed', async () => {
    const { fs, created } = windowsDisk({
      'C:\\': { type: 'dir' },
      'C:\\ws': { type: 'dir' },
      'C:\\ws\\share': { type: 'link', to: '\\\\server\\share\\' },
      '\\\\server\\share\\': { type: 'dir' },
      'C:\\ws\\Real': { type: 'dir' },
      'C:\\ws\\alias': { type: 'link', to: 'c:\\WS\\real' }
    })
    await expect(
      walkCheckedInside('C:\\ws', 'C:\\ws', ['share', 'x'], 'share\\x', { path: win, fs })
    ).rejects.toThrow("'share' leads to \\\\server\\share\\")
    expect(
      await walkCheckedInside('C:\\ws', 'C:\\ws', ['alias', 'new'], 'alias\\new', { path: win, fs })
    ).toBe('C:\\ws\\Real\\new')
    expect(created).toEqual(['C:\\ws\\Real\\new'])
  })

  test('a relative link deeper in that leads out is refused before anything is made', async () => {
    const { fs, created } = windowsDisk({
      'C:\\': { type: 'dir' },
      'C:\\ws': { type: 'dir' },
      'C:\\ws\\a': { type: 'dir' },
      'C:\\ws\\a\\b': { type: 'link', to: '..\\..\\outside' },
      'C:\\outside': { type: 'dir' }
    })
    await expect(
      walkCheckedInside('C:\\ws', 'C:\\ws', ['a', 'b', 'c'], 'a\\b\\c', { path: win, fs })
    ).rejects.toThrow("'a/b' leads to C:\\outside")
    expect(created).toEqual([])
  })
})

describe("on this machine's disk", () => {
  function layout() {
    const parent = realpathSync(mkdtempSync(path.join(tmpdir(), 'workspace-paths-')))
    const ws = path.join(parent, 'ws')
    const outside = path.join(parent, 'outside')
    mkdirSync(path.join(ws, 'src'), { recursive: true })
    mkdirSync(outside)
    writeFileSync(path.join(ws, 'src', 'a.txt'), 'a')
    writeFileSync(path.join(outside, 'secret.txt'), 's')
    symlinkSync(outside, path.join(ws, 'out'))
    symlinkSync(path.join(ws, 'src'), path.join(ws, 'alias'))
    symlinkSync(path.join(outside, 'secret.txt'), path.join(ws, 'src', 'secret-link.txt'))
    symlinkSync(path.join(parent, 'nowhere'), path.join(ws, 'dangling'))
    return { ws, outside }
  }

  test('walkCheckedInside creates nothing through a link out, and says which link', async () => {
    const { ws, outside } = layout()
    await expect(walkCheckedInside(ws, ws, ['out', 'sub', 'dir'], 'out/sub/dir')).rejects.toThrow(
      `'out/sub/dir' leads out of ${ws} through a symbolic link: 'out' leads to ${outside}`
    )
    expect(readdirSync(outside)).toEqual(['secret.txt'])
    await expect(walkCheckedInside(ws, ws, ['dangling', 'x'], 'dangling/x')).rejects.toThrow(
      "passes through the symbolic link 'dangling', which leads to"
    )
    expect(await walkCheckedInside(ws, ws, ['new', 'deeper'], 'new/deeper')).toBe(
      path.join(ws, 'new', 'deeper')
    )
  })

  test('resolveWorkspaceFile reads inside, follows links that stay inside, refuses the rest', async () => {
    const { ws } = layout()
    expect(await resolveWorkspaceFile(ws, 'src/a.txt')).toBe(path.join(ws, 'src', 'a.txt'))
    expect(await resolveWorkspaceFile(ws, 'alias/a.txt')).toBe(path.join(ws, 'src', 'a.txt'))
    for (const [value, reason] of [
      ['out/secret.txt', "through a symbolic link: 'out' leads to"],
      ['src/secret-link.txt', "through a symbolic link: 'src/secret-link.txt' leads to"],
      ['../outside/secret.txt', "has a '..' segment"],
      ['/etc/hostname', 'is absolute'],
      ['src/missing.txt', "does not exist ('src/missing.txt' is missing)"],
      ['src', 'is a folder, not a file'],
      ['src/a.txt/x', "is not a folder ('src/a.txt' is a file)"]
    ] as const) {
      await expect(resolveWorkspaceFile(ws, value), value).rejects.toThrow(reason)
    }
  })
})
