/**
 * The README's inputs table documents exactly the inputs of action.yml,
 * with their defaults, and its outputs table exactly the outputs.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { actionDefaults } from './fixtures/action-defaults.js'
import { printable, sourceTemplates } from './fixtures/source-messages.js'

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

/**
 * Backticked fragments of Troubleshooting that are not messages: inputs and
 * their values, paths, commands, settings. Everything else it quotes is a
 * message and must be printable by the code in src/.
 */
const NOT_MESSAGES = new Set([
  'jenkins-build --verbose',
  'list-jobs: true',
  '…/user/<id>/',
  '…/job/team/job/service/job/deploy/',
  'http://user:password@proxy:3128'
])

function troubleshootingQuotes(): string[] {
  const text = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
  const section = text.split(/^## Troubleshooting\s*$/m)[1]?.split(/^## /m)[0] ?? ''
  const quotes = [...section.matchAll(/`([^`]+)`/g)].map(match => match[1] ?? '')
  return [...new Set(quotes)].filter(quote => /[ …]/.test(quote) && !NOT_MESSAGES.has(quote))
}

describe('README Troubleshooting', () => {
  const templates = sourceTemplates(fileURLToPath(new URL('../src', import.meta.url)))
  const quotes = troubleshootingQuotes()

  it('quotes messages (the list is not empty)', () => {
    expect(quotes.length).toBeGreaterThan(30)
    expect(quotes).toContain('asked for credentials (401): set user and token')
  })

  it.each(quotes)('quotes `%s` as the code prints it', quote => {
    expect(printable(quote, templates)).toEqual([])
  })

  it('catches a quote the code does not print, and a value formatted otherwise', () => {
    expect(printable('No answer from Jenkins at … to … within 30.0 s', templates)).toEqual([])
    expect(printable('No answer from Jenkins at … to … within 30 s', templates)).toEqual([
      'within 30 s'
    ])
    expect(printable('asked for credentials (401): set the user', templates)).toEqual([
      'asked for credentials (401): set the user'
    ])
  })
})
