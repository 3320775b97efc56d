/**
 * Every relative link of the project's Markdown leads somewhere: to a file
 * git has, and to an anchor that page has, as GitHub makes them. Pages that
 * move keep their links working; so do the `README.md#anchor` references
 * outside Markdown (messages, banners, comments).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../scripts/action-runner.js'
import {
  anchorReferences,
  anchorsOf,
  brokenLinks,
  linksOf,
  projectFiles
} from './fixtures/markdown-links.js'

const FILES = projectFiles(ROOT)
const PAGES = new Map(
  FILES.filter(file => file.endsWith('.md')).map(file => [
    file,
    readFileSync(join(ROOT, file), 'utf8')
  ])
)

/** A file's `x.md#anchor` references as root-relative links, each on its own line. */
function asLinks(text: string): string {
  const lines = text.split('\n').map(() => '')
  for (const { line, target } of anchorReferences(text)) lines[line - 1] = `[→](/${target})`
  return lines.join('\n')
}

describe("the project's Markdown links", () => {
  it('finds the pages and their links', () => {
    // Guards the walk: an empty list would make the check vacuous.
    expect([...PAGES.keys()]).toEqual(
      expect.arrayContaining([
        'README.md',
        'CONTRIBUTING.md',
        'docs/jenkins-build.md',
        'docs/test-server.md',
        '.github/jenkins/README.md'
      ])
    )
    const links = [...PAGES.values()].flatMap(linksOf)
    // Anchors of the same page, of a page beside it, and of a page in another folder.
    expect(links.filter(link => link.target.startsWith('#')).length).toBeGreaterThan(5)
    expect(links.filter(link => /^[^/:#]+\.md#/.test(link.target)).length).toBeGreaterThan(10)
    expect(links.filter(link => /^[\w.]+\/.*\.md#/.test(link.target)).length).toBeGreaterThan(10)
  })

  it('resolve: every relative path is a file git has, every #anchor one of its page', () => {
    expect(brokenLinks(PAGES, FILES)).toEqual([])
  })

  it('and the README.md#anchor references outside Markdown resolve too', () => {
    // This checker and its tests hold broken references on purpose.
    const own = new Set([
      '__tests__/markdown-links.test.ts',
      '__tests__/fixtures/markdown-links.ts'
    ])
    const code = FILES.filter(
      file => /\.(ts|mts|mjs|js|ya?ml|json)$|^\.env\.example$/.test(file) && !own.has(file)
    )
    expect(code.length).toBeGreaterThan(100)
    const pages = new Map(PAGES)
    for (const file of code) {
      const text = readFileSync(join(ROOT, file), 'utf8')
      if (anchorReferences(text).length > 0) pages.set(file, asLinks(text))
    }
    expect(brokenLinks(pages, FILES)).toEqual([])
  })
})

describe('the link checker', () => {
  it("makes GitHub's anchors: lowercase, spaces to '-', punctuation but '-' and '_' dropped", () => {
    const page = [
      '# Jenkins Build Action',
      '## Run it from a terminal: `jenkins-build`',
      "### A job's trigger token",
      '### 403: a login page, a crumb or a permission',
      '### Stage timeline, history and failed tests at their lines',
      '#### Reproduce a failing workflow',
      '## _Started by_ **remote** [host](https://x.example) snake_case',
      '## Notes',
      '## Notes',
      '```sh',
      '# not a heading',
      '```',
      '<a name="kept-anchor"></a>'
    ].join('\n')
    expect([...anchorsOf(page)]).toEqual([
      'jenkins-build-action',
      'run-it-from-a-terminal-jenkins-build',
      'a-jobs-trigger-token',
      '403-a-login-page-a-crumb-or-a-permission',
      'stage-timeline-history-and-failed-tests-at-their-lines',
      'reproduce-a-failing-workflow',
      'started-by-remote-host-snake_case',
      'notes',
      'notes-1',
      'kept-anchor'
    ])
  })

  it('reports a missing file, a missing anchor, a link out of the repository, and nothing in code', () => {
    const pages = new Map([
      [
        'README.md',
        [
          '# Title',
          'See [docs](docs/page.md#usage), [it](#title), [site](https://example.com/#x).',
          'Broken: [a](#no-such), [b](docs/gone.md), [c](docs/page.md#nope), [d](../x.md).',
          '`[not a link](#in-code)`',
          '```md',
          '[not a link](#in-a-block)',
          '```',
          '[ref]: docs/page.md#usage',
          '[folder](src/jenkins#its-job)'
        ].join('\n')
      ],
      ['docs/page.md', '# Page\n\n## Usage\n\nBack: [home](../README.md#title).'],
      ['src/jenkins/README.md', '# src/jenkins\n\n## Its job']
    ])
    const files = [...pages.keys()]
    expect(brokenLinks(pages, files)).toEqual([
      'README.md:3: #no-such: README.md has no anchor #no-such',
      'README.md:3: docs/gone.md: no such file in the repository',
      'README.md:3: docs/page.md#nope: docs/page.md has no anchor #nope',
      'README.md:3: ../x.md: leaves the repository'
    ])
  })

  it('finds README.md#anchor references in code', () => {
    const text = "const HELP = 'see README.md#run-it-from-a-terminal and docs/x.md#a_b'\n"
    expect(anchorReferences(text)).toEqual([
      { line: 1, target: 'README.md#run-it-from-a-terminal' },
      { line: 1, target: 'docs/x.md#a_b' }
    ])
  })
})
