import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { ROOT } from '../../scripts/action-runner.js'

// The release workflow's notes come from this script (.github/workflows/release.yml).
const SCRIPT = join(ROOT, '.github', 'scripts', 'changelog-section.sh')

function section(
  version: string,
  file?: string
): { status: number | null; out: string; err: string } {
  const args = [SCRIPT, version, ...(file === undefined ? [] : [file])]
  const run = spawnSync('bash', args, { cwd: ROOT, encoding: 'utf8' })
  return { status: run.status, out: run.stdout, err: run.stderr }
}

function changelog(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'changelog-')), 'CHANGELOG.md')
  writeFileSync(file, text)
  return file
}

const SAMPLE = changelog(`# Changelog

Intro text.

## [Unreleased]

- Not released yet.

## [2.0.0] - 2027-01-01


### Changed

- Renamed the \`foo\` input.
## not a version heading

## v1.1.0 - 2026-12-01

- A heading with a v and no brackets.

## 1.0.1

- No date.

## [1.0.0] - 2026-11-26

## [0.9.0]

- The oldest.

[Unreleased]: https://example.com/compare/v2.0.0...HEAD
[2.0.0]: https://example.com/releases/tag/v2.0.0
`)

describe('changelog-section.sh', () => {
  test('prints a section up to the next heading, without surrounding blank lines', () => {
    expect(section('2.0.0', SAMPLE)).toEqual({
      status: 0,
      out: '### Changed\n\n- Renamed the `foo` input.\n',
      err: ''
    })
  })

  test('takes the tag name (v1.1.0) and headings without brackets or dates', () => {
    expect(section('v1.1.0', SAMPLE).out).toBe('- A heading with a v and no brackets.\n')
    expect(section('1.0.1', SAMPLE).out).toBe('- No date.\n')
  })

  test('leaves out the link reference definitions after the last section', () => {
    expect(section('0.9.0', SAMPLE).out).toBe('- The oldest.\n')
  })

  test('fails for an empty section, naming it', () => {
    const run = section('1.0.0', SAMPLE)
    expect(run.status).toBe(1)
    expect(run.out).toBe('')
    expect(run.err).toMatch(/the section for 1\.0\.0 is empty/)
  })

  test('fails for a version without a section', () => {
    const run = section('3.0.0', SAMPLE)
    expect(run.status).toBe(1)
    expect(run.err).toMatch(/no section for 3\.0\.0 in .*CHANGELOG\.md/)
  })

  test.each(['Unreleased', '1.0', 'v1', '1.0.0.0', ''])('refuses %j as a version', version => {
    const run = section(version, SAMPLE)
    expect(run.status).toBe(2)
    expect(run.out).toBe('')
  })

  test("every version in the repository's CHANGELOG.md has notes", () => {
    const text = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8')
    const versions = [...text.matchAll(/^## \[(\d+\.\d+\.\d+)\]/gm)].map(m => m[1] as string)
    expect(versions).toContain('1.0.0')
    for (const version of versions) {
      const run = section(`v${version}`)
      expect(run.err).toBe('')
      expect(run.status).toBe(0)
      expect(run.out.trim().length).toBeGreaterThan(0)
    }
  })
})
