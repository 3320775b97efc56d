import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { readActionInputs } from '../../src/cli/action-yml.js'
import { actionDefaults } from '../../scripts/action-runner.js'
import { Input } from '../../src/util/constants.js'

const dirs: string[] = []
function actionYml(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'action-yml-'))
  dirs.push(dir)
  const path = join(dir, 'action.yml')
  writeFileSync(path, text)
  return path
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

describe('readActionInputs', () => {
  it("reads the project's action.yml: every input of src/util/constants.ts, with its description", () => {
    const inputs = readActionInputs(join(import.meta.dirname, '..', '..', 'action.yml'))
    expect(inputs.map(i => i.name).sort()).toEqual(expect.arrayContaining(Object.values(Input)))
    const url = inputs.find(i => i.name === 'url')
    expect(url).toMatchObject({ required: true, default: undefined })
    expect(url?.description).toMatch(/^Jenkins base URL/)
    expect(actionDefaults()).toMatchObject({
      wait: 'true',
      timeout: '3600',
      accept: 'SUCCESS'
    })
  })

  it('keeps every scalar as the text written, as the runner passes inputs', () => {
    const path = actionYml(
      [
        'name: x',
        'inputs:',
        '  a:',
        '    description: |',
        '      Two',
        '      lines.',
        '    default: 1.10',
        '  b:',
        "    description: 'It''s'",
        '    default: true',
        '    required: true',
        '  c:',
        '    description: "tab\\there"',
        'runs:',
        '  using: node24'
      ].join('\n')
    )
    expect(readActionInputs(path)).toEqual([
      { name: 'a', description: 'Two\nlines.\n', default: '1.10', required: false },
      { name: 'b', description: "It's", default: 'true', required: true },
      { name: 'c', description: 'tab\there', default: undefined, required: false }
    ])
  })

  it('says which file has no inputs', () => {
    const path = actionYml('name: x\nruns:\n  using: node24\n')
    expect(() => readActionInputs(path)).toThrow(`${path} has no inputs: block`)
  })
})
