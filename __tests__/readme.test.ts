/**
 * The README's inputs table documents exactly the inputs of action.yml,
 * with their defaults, and its outputs table exactly the outputs.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { actionDefaults } from './fixtures/action-defaults.js'
import { printable, sourceTemplates } from './fixtures/source-messages.js'

/** `| \`name\` | second cell | …` rows of the table under the README's `## <heading>` (or their last cell). */
function readmeTable(heading: string, cell: 'second' | 'last' = 'second'): Map<string, string> {
  const text = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
  const section = text.split(new RegExp(`^## ${heading}\\s*$`, 'm'))[1]?.split(/^## /m)[0] ?? ''
  const rows = new Map<string, string>()
  for (const line of section.split('\n')) {
    const cells = /^\|\s*`([a-z-]+)`\s*\|\s*(.*?)\s*\|/.exec(line)
    const last = line.split('|').at(-2)?.trim() ?? ''
    if (cells) rows.set(cells[1] ?? '', cell === 'second' ? (cells[2] ?? '') : last)
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
 * Backticked fragments of docs/troubleshooting.md that are not messages:
 * inputs and their values, paths, commands, settings. Everything else it
 * quotes is a message and must be printable by the code in src/.
 */
const NOT_MESSAGES = new Set([
  'jenkins-build --verbose',
  'list-jobs: true',
  '…/user/<id>/',
  '…/job/team/job/service/job/deploy/',
  'http://user:password@proxy:3128'
])

/** The backticked fragments of `text` that may be messages (a space or an elision in them), once each. */
function quotesIn(text: string, notMessages: ReadonlySet<string>): string[] {
  const prose = text.replace(/^(`{3,}|~{3,})[\s\S]*?^\1\s*$/gm, '')
  const quotes = [...prose.matchAll(/`([^`\n]+)`/g)].map(match => match[1] ?? '')
  return [...new Set(quotes)].filter(quote => /[ …]/.test(quote) && !notMessages.has(quote))
}

/** The page a failing step's author searches for a fragment of the message. */
const TROUBLESHOOTING = 'docs/troubleshooting.md'

function troubleshootingQuotes(): string[] {
  const text = readFileSync(new URL(`../${TROUBLESHOOTING}`, import.meta.url), 'utf8')
  return quotesIn(text, NOT_MESSAGES)
}

describe('Troubleshooting (docs/troubleshooting.md)', () => {
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

/**
 * Backticked fragments of docs/*.md that are no message of src/: commands,
 * inputs and JSON, and the messages jenkins-build says in its own terms
 * (its flags for the inputs), which __tests__/e2e/readme-cli.test.ts runs.
 */
const DOCS_NOT_MESSAGES: Record<string, ReadonlySet<string>> = {
  'docs/jenkins-build.md': new Set([
    '--NAME VALUE',
    "--user (or JENKINS_USER) ('ci') is set but --token (or JENKINS_TOKEN) is empty",
    '--job is required unless --jobs is set or --list-jobs is true'
  ]),
  'docs/test-server.md': new Set(['npm run local-action -- .env']),
  'docs/several-jobs.md': new Set([
    '"branch": ""',
    '{"job", "number", "url", "result", "duration", "queueUrl"}'
  ]),
  'docs/authentication.md': new Set(['Authorization: Bearer …']),
  // A JavaScript stack frame, as a test report holds it.
  'docs/job-summary.md': new Set(['at … (src/x.test.ts:42:7)']),
  'docs/jobs-and-parameters.md': new Set(['"files": {"PACKAGE": "dist/app.tgz"}']),
  // The README's row labels (checked in 'versions' below).
  'docs/requirements.md': new Set(['Since X.Y.Z.', 'Since the next release (unreleased).']),
  // Quoted with their numbers, which __tests__/e2e/outcome-bounds.test.ts compares with a run.
  'docs/outputs.md': new Set([
    'The stages output would hold 2025 KiB of JSON, over its cap of 64 KiB: it lists the first 15 of 500 stages. All stages are at <build-url>wfapi/describe.',
    "This summary was cut to stay under GitHub's limit of 1 MiB for a step: left out 37 section(s) ('deploy #12: FAILURE › Stages', …, and 27 more). The build's pages in Jenkins have everything."
  ]),
  'docs/performance.md': new Set(['npm run bench']),
  'docs/hand-off.md': new Set(['{ "commit", "context", "job", "build-url", "result", "state" }'])
}

describe('docs/*.md', () => {
  const templates = [
    ...sourceTemplates(fileURLToPath(new URL('../src', import.meta.url))),
    // docs/test-server.md quotes the test server's own lines.
    ...sourceTemplates(fileURLToPath(new URL('../test-server', import.meta.url)))
  ]
  // Troubleshooting is checked above, against the messages of src/ alone.
  const pages = readdirSync(new URL('../docs', import.meta.url))
    .filter(name => name.endsWith('.md'))
    .map(name => `docs/${name}`)
    .filter(page => page !== TROUBLESHOOTING)
  const quotes = pages.flatMap(page =>
    quotesIn(
      readFileSync(new URL(`../${page}`, import.meta.url), 'utf8'),
      DOCS_NOT_MESSAGES[page] ?? new Set()
    ).map(quote => [page, quote] as const)
  )

  it('quote messages (the list is not empty)', () => {
    expect(pages).toContain('docs/faults-and-cancellation.md')
    expect(quotes).toContainEqual([
      'docs/faults-and-cancellation.md',
      'left queue item N running: shared with another request'
    ])
  })

  it.each(quotes)('%s quotes `%s` as the code prints it', (_, quote) => {
    expect(printable(quote, templates)).toEqual([])
  })

  it('catch a duration formatted otherwise than the code formats it', () => {
    const retry = '…; trying again in 2.1 s (try 3 of 12, 1 min 4 s since the first)'
    expect(printable(retry, templates)).toEqual([])
    expect(printable(retry.replace('1 min 4 s', '64 seconds'), templates)).not.toEqual([])
  })
})

/**
 * What a README table row added after 1.0.0 ends with until a release ships
 * it; the release replaces it with `Since X.Y.Z.` (CONTRIBUTING.md, Releases).
 */
const UNRELEASED_LABEL = 'Since the next release (unreleased).'

/** Negative, 0 or positive as `a` is older than, the same as or newer than `b` (x.y.z). */
function compareVersions(a: string, b: string): number {
  const [x, y] = [a, b].map(v => v.split('.').map(Number))
  for (let i = 0; i < 3; i++) {
    const d = (x?.[i] ?? 0) - (y?.[i] ?? 0)
    if (d !== 0) return d
  }
  return 0
}

/** The `## [x.y.z]` sections of CHANGELOG.md, newest first. */
function changelogSections(): Map<string, string> {
  const text = readFileSync(new URL('../CHANGELOG.md', import.meta.url), 'utf8')
  const sections = new Map<string, string>()
  for (const part of text.split(/^## /m).slice(1)) {
    const version = /^\[(\d+\.\d+\.\d+)\]/.exec(part)?.[1]
    if (version) sections.set(version, part)
  }
  return sections
}

/** The backticked names on the `- Inputs:` item (and its sub-items) or the `- Outputs:` line of a section. */
function namesListed(section: string, item: 'Inputs' | 'Outputs'): Set<string> {
  const start = section.indexOf(`- ${item}:`)
  const rest = section.slice(start)
  const end = rest.slice(1).search(/^- /m)
  const text = end < 0 ? rest : rest.slice(0, end + 1)
  return new Set([...text.matchAll(/`([a-z-]+)(?::[^`]*)?`/g)].map(match => match[1] ?? ''))
}

describe('versions', () => {
  const sections = changelogSections()
  const packageVersion = (
    JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string
    }
  ).version

  it("package.json's version is CHANGELOG.md's newest release", () => {
    expect([...sections.keys()][0]).toBe(packageVersion)
  })

  it.each(['Inputs', 'Outputs'] as const)(
    'the %s table marks each row added after 1.0.0 with a released version, or as unreleased',
    table => {
      const first = namesListed(sections.get('1.0.0') ?? '', table)
      // Guards the reader: an empty list would mark every row as new.
      expect(first).toContain(table === 'Inputs' ? 'timeout' : 'build-url')
      // No label names a version that is not out: at most package.json's, with its CHANGELOG section.
      const released = [...sections.keys()].filter(v => compareVersions(v, packageVersion) <= 0)
      for (const [name, meaning] of readmeTable(table, 'last')) {
        const label = /Since (?:(\d+\.\d+\.\d+)|the next release \(unreleased\))\.$/.exec(meaning)
        if (first.has(name)) {
          expect(label?.[0], `${table} row ${name} came with 1.0.0: no label`).toBeUndefined()
          continue
        }
        const version = label?.[1]
        const wanted = `${table} row ${name}: end it with '${UNRELEASED_LABEL}' until a release ships it, then with 'Since X.Y.Z.' (CONTRIBUTING.md, Releases); released: ${released.join(', ')}`
        expect(label, wanted).not.toBeNull()
        if (version !== undefined) expect(released, wanted).toContain(version)
      }
    }
  )

  it('compares versions as numbers', () => {
    expect(compareVersions('1.10.0', '1.9.3')).toBeGreaterThan(0)
    expect(compareVersions('1.2.0', '1.1.0')).toBeGreaterThan(0)
    expect(compareVersions('1.1.0', '1.1.0')).toBe(0)
    expect(compareVersions('0.9.9', '1.0.0')).toBeLessThan(0)
  })
})

/** The commands of the README's Development block, comments left out. */
function developmentCommands(): string[] {
  const text = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
  const section = text.split(/^## Development\s*$/m)[1]?.split(/^## /m)[0] ?? ''
  const block = /^```sh\n([\s\S]*?)^```$/m.exec(section)?.[1] ?? ''
  return block
    .split('\n')
    .map(line => line.replace(/#.*/, '').trim())
    .filter(line => line !== '')
}

describe("the README's Development section", () => {
  const commands = developmentCommands()
  const scripts = (
    JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      scripts: Record<string, string>
    }
  ).scripts
  // What CI runs, comments and echoed text left out.
  const ci = readFileSync(new URL('../.ci/run', import.meta.url), 'utf8')
    .split('\n')
    .map(line => line.trim())
    .filter(line => !line.startsWith('#') && !line.startsWith('echo '))

  it('shows the set-up: install, the demo, the tests', () => {
    expect(commands).toEqual(['npm ci', 'npm run demo', 'npm test'])
  })

  it('names scripts package.json has, and .ci/run runs the install and the test command it names', () => {
    for (const command of commands) {
      const script = /^npm (?:run (\S+)|(test))$/.exec(command)
      if (script) expect(Object.keys(scripts), command).toContain(script[1] ?? script[2])
    }
    for (const command of ['npm ci', 'npm test']) {
      expect(
        ci.some(line => line === command || line.startsWith(`${command} `)),
        `.ci/run runs ${command}`
      ).toBe(true)
    }
  })
})

describe('what a user reads', () => {
  /** An internal issue number, as in "issue 10" or "issues #13". */
  const ISSUE_NUMBER = /\bissues? #?\d+/i

  it.each([
    'README.md',
    'CONTRIBUTING.md',
    'BENCHMARKS.md',
    'SECURITY.md',
    'action.yml',
    ...readdirSync(new URL('../docs', import.meta.url))
      .filter(name => name.endsWith('.md'))
      .map(name => `docs/${name}`)
  ])('%s names no internal issue number', file => {
    const text = readFileSync(new URL(`../${file}`, import.meta.url), 'utf8')
    expect(text.split('\n').filter(line => ISSUE_NUMBER.test(line))).toEqual([])
  })

  it('no message in src/ names one', () => {
    const templates = sourceTemplates(fileURLToPath(new URL('../src', import.meta.url)))
    const texts = templates.map(parts =>
      parts.map(part => ('text' in part ? part.text : '…')).join('')
    )
    expect(texts.length).toBeGreaterThan(500)
    expect(texts.filter(text => ISSUE_NUMBER.test(text))).toEqual([])
  })
})
