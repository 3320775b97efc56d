/**
 * The README's recipe for `files` (on push) uploads what it says: the paths pass the
 * `files` rules and are made by the steps before. (YAML, actionlint, inputs
 * and shellcheck are checked for every example in readme-examples.test.ts.)
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseDocument } from 'yaml'
import { parseFiles } from '../src/inputs/upload-files.js'

interface Step {
  uses?: string
  run?: string
  with?: Record<string, string>
}

function example(): { text: string; steps: Step[] } {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
  const section =
    readme.split(/^### On push: deploy a package the workflow built\s*$/m)[1]?.split(/^##/m)[0] ??
    ''
  const text = /```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? ''
  const document = parseDocument(text, { prettyErrors: true })
  expect(document.errors).toEqual([])
  const workflow = document.toJS() as { jobs: Record<string, { steps: Step[] }> }
  return { text, steps: Object.values(workflow.jobs).flatMap(job => job.steps) }
}

describe('README: files for file parameters', () => {
  it('uploads files that pass the rules, made by the steps before', () => {
    const { steps } = example()
    const action = steps.find(step => step.uses === 'OWNER/REPO@v1')
    expect(parseFiles(action?.with?.files ?? '')).toEqual([
      { name: 'PACKAGE', path: 'dist/app.tgz' }
    ])
    // The file the step uploads is the one the build step makes.
    expect(steps.some(step => step.run?.includes('dist/app.tgz'))).toBe(true)
  })
})
