/**
 * docs/test-server.md shows what the test server prints and takes: its
 * start-up lines as `npm run server` prints them, what each sample job shows
 * as --help says it, every flag it has in the flags table, and the lines the
 * --tls and --auth-proxy example quotes.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { ROOT } from '../../scripts/action-runner.js'
import { startupLines } from '../../test-server/cli-banner.js'
import { FLAGS, parseCli } from '../../test-server/cli-options.js'
import { SAMPLE_NOTES, SAMPLE_WORKSPACE } from '../../test-server/index.js'
import { codeBlocks } from '../fixtures/markdown-examples.js'

const FILE = 'docs/test-server.md'
const PAGE = readFileSync(join(ROOT, FILE), 'utf8')
const BLOCKS = codeBlocks(PAGE, FILE)

describe(`${FILE}: what the test server prints and takes`, () => {
  test('the start-up transcript is what npm run server prints', () => {
    const transcript = BLOCKS.find(block => block.text.startsWith('$ npm run server\n'))
    const { options, job } = parseCli([])
    const lines = startupLines({ url: 'http://127.0.0.1:8080', options, job })
    expect((transcript?.text ?? '').trimEnd().split('\n').slice(1)).toEqual(lines)
  })

  test('the sample jobs section says what each shows, in the words of --help', () => {
    const section = PAGE.split('## Sample jobs')[1]?.split('\n## ')[0] ?? ''
    const items = section.split('\n').filter(line => line.startsWith('- `'))
    expect(items).toEqual(
      Object.entries(SAMPLE_NOTES).map(([name, note]) => `- \`${name}\`: ${note}.`)
    )
    expect(section).toContain(
      `(cd ${SAMPLE_WORKSPACE} && npx --no-install jenkins-build --job failing-tests)`
    )
  })

  test('the flags table names every flag the server has, and no other', () => {
    const table = PAGE.split('## Server flags')[1] ?? ''
    const rows = table.split('\n').filter(line => line.startsWith('| `'))
    const named = new Set(
      rows.flatMap(row => [...(row.split('|')[1] ?? '').matchAll(/--([a-z-]+)/g)].map(m => m[1]))
    )
    // --pipeline is named in the --job row's description.
    for (const row of rows) for (const m of row.matchAll(/`--([a-z-]+)`/g)) named.add(m[1])
    const flags = Object.keys(FLAGS).filter(flag => flag !== 'help')
    expect([...named].sort()).toEqual(flags.sort())
  })

  test('the --tls and --auth-proxy example: the lines it quotes are among those printed', () => {
    const block = BLOCKS.find(b => b.text.includes('--tls /tmp/jenkins-ca'))?.text ?? ''
    const [command = '', , ...quoted] = block.trimEnd().split('\n')
    const words = /^npm run server -- (.*)$/.exec(command)?.[1] ?? ''
    // The command's words, as the shell splits them (one quoted argument here).
    const argv = [...words.matchAll(/'([^']*)'|(\S+)/g)].map(m => m[1] ?? m[2] ?? '')
    const { options, job, tlsDir } = parseCli(argv)
    expect(tlsDir).toBe('/tmp/jenkins-ca')
    const url = `https://127.0.0.1:${options.port}`
    const lines = startupLines({ url, options, job, caPath: `${tlsDir}/ca.pem` })
    expect(quoted.length).toBe(2)
    for (const line of quoted) expect(lines.map(l => l.trim())).toContain(line)
  })
})
