import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { artifactSegments, artifactTarget, isInside } from '../../src/util/workspace-paths.js'

const ROOT = '/home/runner/work/repo/repo/jenkins-artifacts'

describe('artifactSegments', () => {
  test.each([
    ['a.txt', ['a.txt']],
    ['dist/lib/app.jar', ['dist', 'lib', 'app.jar']],
    ['.hidden/.env', ['.hidden', '.env']],
    ['..foo/bar..', ['..foo', 'bar..']],
    ['with space/ünïcödé 名前.txt', ['with space', 'ünïcödé 名前.txt']],
    ['report:2024.txt', ['report:2024.txt']]
  ])('%s is a plain relative path', (path, segments) => {
    expect(artifactSegments(path, 'linux')).toEqual(segments)
  })

  test.each([
    ['', 'is empty'],
    ['../etc/passwd', "has a '..' segment"],
    ['a/../../b', "has a '..' segment"],
    ['a/..', "has a '..' segment"],
    ['./a', "has a '.' segment"],
    ['/etc/passwd', 'is absolute'],
    ['//server/share/x', 'is absolute'],
    ['C:/Windows/x', 'starts with a drive letter'],
    ['c:x', 'starts with a drive letter'],
    ['..\\..\\x', 'contains a backslash'],
    ['a\\b.txt', 'contains a backslash'],
    ['a\u0000.txt', 'contains a control character'],
    ['a\nb', 'contains a control character'],
    ['a\rb', 'contains a control character'],
    ['a\u001b[31mb', 'contains a control character'],
    ['a//b', 'has an empty path segment'],
    ['a/', 'has an empty path segment'],
    [`${'x'.repeat(256)}`, 'has a name longer than 255 bytes']
  ])('%j is refused: it %s', (path, reason) => {
    expect(artifactSegments(path, 'linux')).toEqual({ path, reason })
  })

  test.each([
    ['ab:c.txt', /Windows does not allow/],
    ['x/<y>', /Windows does not allow/],
    ['q?.txt', /Windows does not allow/],
    ['CON', /Windows device/],
    ['dir/nul.txt', /Windows device/],
    ['COM1.log', /Windows device/],
    ['name.', /dot or space/],
    ['name ', /dot or space/]
  ])('%j is refused on Windows runners only', (path, reason) => {
    expect(artifactSegments(path, 'linux')).toEqual(path.split('/'))
    const refused = artifactSegments(path, 'win32')
    expect(Array.isArray(refused)).toBe(false)
    expect((refused as { reason: string }).reason).toMatch(reason)
  })
})

describe('artifactTarget', () => {
  test('joins the segments below the root', () => {
    expect(artifactTarget(ROOT, 'dist/app.jar')).toBe(join(ROOT, 'dist', 'app.jar'))
  })

  test('names the refused path and the reason', () => {
    expect(artifactTarget(ROOT, '../../../.bashrc')).toEqual({
      path: '../../../.bashrc',
      reason: "has a '..' segment"
    })
  })
})

describe('isInside', () => {
  test.each([
    [ROOT, ROOT, true],
    [ROOT, `${ROOT}/a`, true],
    [ROOT, `${ROOT}/..a/b`, true],
    [ROOT, `${ROOT}-evil`, false],
    [ROOT, '/home/runner', false],
    [ROOT, '/', false]
  ])('%s contains %s: %s', (root, target, inside) => {
    expect(isInside(root, target)).toBe(inside)
  })
})
