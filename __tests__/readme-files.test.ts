/**
 * The README's example for `files` is a workflow a user can copy: valid
 * YAML, only inputs action.yml has, a `run:` script shellcheck finds
 * nothing in, and the paths it uploads pass the `files` rules.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseDocument } from 'yaml'
import { Input } from '../src/constants.js'
import { parseFiles } from '../src/upload-files.js'

interface Step {
  uses?: string
  run?: string
  with?: Record<string, string>
}

function example(): { text: string; steps: Step[] } {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
  const section = readme.split(/^### Files for file parameters\s*$/m)[1]?.split(/^##/m)[0] ?? ''
  const text = /```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? ''
  const document = parseDocument(text, { prettyErrors: true })
  expect(document.errors).toEqual([])
  const workflow = document.toJS() as { jobs: Record<string, { steps: Step[] }> }
  return { text, steps: Object.values(workflow.jobs).flatMap(job => job.steps) }
}

const shellcheck = spawnSync('shellcheck', ['--version']).status === 0

describe('README: files for file parameters', () => {
  it('is valid YAML whose action step uses only inputs of action.yml, with files that pass the rules', () => {
    const { steps } = example()
    const action = steps.find(step => step.uses === 'OWNER/REPO@v1')
    const inputs = Object.keys(action?.with ?? {})
    expect(inputs).toContain('files')
    const known: string[] = Object.values(Input)
    expect(inputs.filter(name => !known.includes(name))).toEqual([])
    expect(parseFiles(action?.with?.files ?? '')).toEqual([
      { name: 'PACKAGE', path: 'dist/app.tgz' }
    ])
    // The file the step uploads is the one the build step makes.
    expect(steps.some(step => step.run?.includes('dist/app.tgz'))).toBe(true)
  })

  it.skipIf(!shellcheck)('has run: scripts shellcheck finds nothing in', () => {
    const scripts = example().steps.flatMap(step => (step.run === undefined ? [] : [step.run]))
    expect(scripts.length).toBeGreaterThan(0)
    const dir = mkdtempSync(join(tmpdir(), 'readme-files-'))
    try {
      for (const [i, script] of scripts.entries()) {
        const file = join(dir, `step-${i}.sh`)
        writeFileSync(file, script)
        // bash -e, as the runner runs a `run:` step.
        expect(() =>
          execFileSync('shellcheck', ['--shell=bash', file], { stdio: 'pipe' })
        ).not.toThrow()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
