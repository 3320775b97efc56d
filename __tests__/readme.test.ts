/**
 * The README's inputs table documents exactly the inputs of action.yml,
 * with their defaults, and its outputs table exactly the outputs.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { actionDefaults } from './fixtures/action-defaults.js'

/** `| \`name\` | second cell | …` rows of the table under the README's `## <heading>`. */
function readmeTable(heading: string): Map<string, string> {
  const text = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
  const section = text.split(new RegExp(`^## ${heading}\\s*$`, 'm'))[1]?.split(/^## /m)[0] ?? ''
  const rows = new Map<string, string>()
  for (const line of section.split('\n')) {
    const cells = /^\|\s*`([a-z-]+)`\s*\|\s*(.*?)\s*\|/.exec(line)
    if (cells) rows.set(cells[1] ?? '', cells[2] ?? '')
  }
  return rows
}

function readmeInputs(): Map<string, string> {
  return readmeTable('Inputs')
}

/** The names under `outputs:` in action.yml. */
function actionOutputs(): string[] {
  const text = readFileSync(new URL('../action.yml', import.meta.url), 'utf8')
  const document = parse(text, { schema: 'failsafe' }) as { outputs?: Record<string, unknown> }
  return Object.keys(document.outputs ?? {})
}

describe('README inputs table', () => {
  it('lists every input of action.yml, and nothing else', () => {
    // `url` is required, so action.yml gives it no default.
    const fromYml = [...Object.keys(actionDefaults()), 'url'].sort()
    expect([...readmeInputs().keys()].sort()).toEqual(fromYml)
  })

  it("shows each input's default as action.yml has it", () => {
    const rows = readmeInputs()
    for (const [name, value] of Object.entries(actionDefaults())) {
      const shown = rows.get(name) ?? ''
      // Computed defaults are described in words (`jenkins/<job>`).
      if (value === '' && !shown.startsWith("`''`")) continue
      expect(shown, name).toBe(`\`${value === '' ? "''" : value}\``)
    }
  })
})

describe('README outputs table', () => {
  it('lists every output of action.yml, and nothing else', () => {
    const fromYml = actionOutputs()
    // Guards the reader: an empty list would make the comparison vacuous.
    expect(fromYml).toContain('build-url')
    expect([...readmeTable('Outputs').keys()].sort()).toEqual(fromYml.sort())
  })
})
