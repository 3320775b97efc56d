import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { ROOT } from '../scripts/action-runner.js'
import { Input } from '../src/constants.js'
import { parseSettings } from '../src/inputs.js'
import * as main from '../src/main.js'
import * as post from '../src/post.js'
import { DEFAULT_PORT, parseCli } from '../test-server/cli-options.js'
import { DEFAULT_USERS } from '../test-server/index.js'

/**
 * What `npm run local-action` relies on: @github/local-action imports each
 * entry point it is given and calls its exported `run()`, and reads the
 * inputs from the committed .env.example. The run itself needs the test
 * server and the tool from the registry (npx); these keep its pieces from
 * drifting apart.
 */

/** The KEY=value lines of a dotenv file, double-quoted values spanning lines included (the subset .env.example uses). */
function readDotenv(text: string): Record<string, string> {
  const values: Record<string, string> = {}
  const pattern = /^([A-Za-z_][\w-]*)=(?:"([^"]*)"|(.*))$/gm
  for (const match of text.matchAll(pattern)) {
    values[match[1] ?? ''] = match[2] ?? (match[3] ?? '').trim()
  }
  return values
}

const ENV = readDotenv(readFileSync(join(ROOT, '.env.example'), 'utf8'))
const SCRIPT = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>
  }
).scripts['local-action']

describe('npm run local-action', () => {
  test('runs the main and the post entry points, which both export run()', () => {
    expect(SCRIPT).toMatch(
      /@github\/local-action@\d+\.\d+\.\d+ run \. src\/main\.ts \.env\.example --post src\/post\.ts$/
    )
    expect(typeof main.run).toBe('function')
    expect(typeof post.run).toBe('function')
  })

  test('.env.example names only inputs action.yml has, and they pass validation', () => {
    const inputs = Object.entries(ENV).filter(([key]) => key.startsWith('INPUT_'))
    const known = new Set<string>(Object.values(Input))
    for (const [key] of inputs) expect(known).toContain(key.slice('INPUT_'.length).toLowerCase())
    const byName = new Map(inputs.map(([key, value]) => [key.slice(6).toLowerCase(), value]))
    const settings = parseSettings(name => byName.get(name) ?? '')
    expect(settings).toMatchObject({
      url: 'http://127.0.0.1:8080',
      jobName: 'params',
      user: 'admin',
      parameters: { BRANCH: 'main', TARGET: 'staging' }
    })
  })

  test('holds no secret but the test server demo login, marked as such', () => {
    const text = readFileSync(join(ROOT, '.env.example'), 'utf8')
    expect(text).toMatch(/NOT A SECRET: the test server's built-in demo login/)
  })

  test("points at what plain npm run server starts: its address, and its login's fixed API token", () => {
    const login = DEFAULT_USERS[0]
    expect(ENV['INPUT_URL']).toBe(`http://127.0.0.1:${DEFAULT_PORT}`)
    expect(ENV['INPUT_USER']).toBe(login?.name)
    // The token, not the password: a password equal to the user name masks that name everywhere.
    expect(ENV['INPUT_TOKEN']).toBe(login?.apiToken)
    expect(ENV['INPUT_TOKEN']).not.toBe(login?.password)
    expect(Object.keys(parseCli([]).options.jobs ?? {})).toContain(ENV['INPUT_JOB'])
  })
})
