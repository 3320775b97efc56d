/** The `files` input: its text (parseFiles) and its files on disk (resolveUploads). */
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { InputError } from '../../src/util/input-error.js'
import { parseFiles, resolveUploads } from '../../src/inputs/upload-files.js'

const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'upload-files-')))
const outside = realpathSync(mkdtempSync(join(tmpdir(), 'upload-files-out-')))
afterAll(() => {
  rmSync(workspace, { recursive: true, force: true })
  rmSync(outside, { recursive: true, force: true })
})
mkdirSync(join(workspace, 'dist'))
writeFileSync(join(workspace, 'dist', 'a "b.zip'), 'abc')
writeFileSync(join(outside, 'secret.txt'), 'secret')
symlinkSync(join(outside, 'secret.txt'), join(workspace, 'link-out'))
symlinkSync(join(workspace, 'dist', 'a "b.zip'), join(workspace, 'link-in'))
writeFileSync(join(workspace, 'locked.bin'), 'x')
chmodSync(join(workspace, 'locked.bin'), 0o000)

async function refusal(path: string): Promise<string> {
  const error = await resolveUploads([{ name: 'P', path }], workspace).then(
    () => undefined,
    (e: unknown) => e
  )
  expect(error).toBeInstanceOf(InputError)
  return (error as Error).message
}

describe('parseFiles', () => {
  it('reads NAME=path lines, trimmed, blank lines skipped; and an object', () => {
    expect(parseFiles('\n PACKAGE = dist/app.zip \n\nNOTES=docs/n.txt\n')).toEqual([
      { name: 'PACKAGE', path: 'dist/app.zip' },
      { name: 'NOTES', path: 'docs/n.txt' }
    ])
    expect(parseFiles({ PACKAGE: 'dist/app.zip' }, "Input 'jobs' item 2's 'files'")).toEqual([
      { name: 'PACKAGE', path: 'dist/app.zip' }
    ])
  })

  it('refuses an empty NAME or path, and a path that is not a plain relative one', () => {
    expect(() => parseFiles('=a.zip')).toThrow("Input 'files' line 1 has an empty NAME")
    expect(() => parseFiles('P=')).toThrow("Input 'files' line 1 has no path for P")
    expect(() => parseFiles('P=dist\\app.zip')).toThrow('contains a backslash')
    expect(() => parseFiles('P=C:/app.zip')).toThrow('starts with a drive letter')
    expect(() => parseFiles({ P: 3 })).toThrow("Input 'files' 'P' has no path for P")
  })
})

describe('resolveUploads', () => {
  it('measures each file, resolves a link inside the workspace, and tells Jenkins a base name it keeps whole', async () => {
    const [direct, linked] = await resolveUploads(
      [
        { name: 'A', path: 'dist/a "b.zip' },
        { name: 'B', path: 'link-in' }
      ],
      workspace
    )
    expect(direct).toEqual({
      name: 'A',
      path: join(workspace, 'dist', 'a "b.zip'),
      fileName: 'a _b.zip',
      size: 3
    })
    expect(linked).toMatchObject({
      path: join(workspace, 'dist', 'a "b.zip'),
      fileName: 'link-in',
      size: 3
    })
  })

  it('refuses a missing file, a folder, a link out of the workspace', async () => {
    expect(await refusal('nope.zip')).toBe(
      "Input 'files': P=nope.zip does not exist ('nope.zip' is missing). Nothing was sent to Jenkins."
    )
    expect(await refusal('dist')).toContain('P=dist is a folder, not a file')
    expect(await refusal('link-out')).toMatch(
      /^Input 'files': P=link-out leads out of .+ through a symbolic link: 'link-out' leads to .+secret\.txt\. Nothing was sent to Jenkins\.$/
    )
  })

  it("refuses a path of spaces alone (an item's files object, which parseFiles does not trim), as empty", async () => {
    writeFileSync(join(workspace, '  '), 'a file named with spaces')
    const files = parseFiles({ P: '  ' }, "Input 'jobs' item 1's 'files'")
    const error = await resolveUploads(files, workspace, "Input 'jobs' item 1's 'files'").then(
      () => undefined,
      (e: unknown) => e
    )
    expect((error as Error).message).toBe(
      "Input 'jobs' item 1's 'files': P=   is empty. Nothing was sent to Jenkins."
    )
    expect(await refusal('\u00a0')).toBe(
      "Input 'files': P=\u00a0 is empty. Nothing was sent to Jenkins."
    )
  })

  it.skipIf(process.getuid?.() === 0)('refuses a file it cannot read', async () => {
    expect(await refusal('locked.bin')).toBe(
      "Input 'files': P=locked.bin cannot be read (EACCES). Nothing was sent to Jenkins."
    )
  })
})
