import { spawnSync } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { ROOT } from '../scripts/action-runner.js'
import {
  DOWNLOAD,
  exitStatus,
  LOCAL_ACTION,
  MIN_NODE_MAJOR,
  plan,
  withoutLauncherError
} from '../scripts/local-action.mjs'
import { Input } from '../src/util/constants.js'
import { parseSettings } from '../src/inputs/inputs.js'
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
  test('runs the pinned tool on the main and the post entry points, which both export run()', () => {
    expect(SCRIPT).toBe('node scripts/local-action.mjs')
    expect(LOCAL_ACTION).toMatch(/^@github\/local-action@\d+\.\d+\.\d+$/)
    const run = plan({
      envFile: '.env.example',
      nodeVersion: 'v24.0.0',
      node24Bin: '/nowhere',
      env: {},
      platform: 'linux'
    })
    expect(run.args).toEqual([
      '--yes',
      LOCAL_ACTION,
      'run',
      '.',
      'src/main.ts',
      '.env.example',
      '--post',
      'src/post.ts'
    ])
    expect(typeof main.run).toBe('function')
    expect(typeof post.run).toBe('function')
  })

  test('every command the docs show for it runs the pinned version, and they state its size and Node', () => {
    for (const file of ['README.md', 'docs/test-server.md', '.env.example', 'CONTRIBUTING.md']) {
      const text = readFileSync(join(ROOT, file), 'utf8')
      // An unpinned `npx @github/local-action` installs a second copy.
      expect(text, file).not.toMatch(/npx (--yes )?@github\/local-action(?!@)/)
    }
    // The page that shows how to run it: "Run the test server by hand".
    const page = readFileSync(join(ROOT, 'docs', 'test-server.md'), 'utf8')
    expect(page).toContain(LOCAL_ACTION)
    expect(page).toContain(DOWNLOAD)
    expect(page).toContain(`Node ${MIN_NODE_MAJOR}`)
  })

  test('under an older Node it runs the tool with tools/node24, or says what to do', () => {
    const bin = mkdtempSync(join(tmpdir(), 'node24-bin-'))
    writeFileSync(join(bin, 'node'), '')
    const old = {
      envFile: '.env',
      nodeVersion: 'v20.19.0',
      env: { PATH: '/usr/bin' },
      platform: 'linux' as const
    }
    const run = plan({ ...old, node24Bin: bin })
    expect(run.env?.['PATH']).toBe(`${bin}${delimiter}/usr/bin`)
    expect(run.node).toBe('Node 24 from tools/node24')
    expect(plan({ ...old, node24Bin: join(bin, 'missing') }).error).toMatch(
      /needs Node 22 or newer .* this is Node v20\.19\.0\. Run 'npm run node24' once \(it installs Node 24 into tools\/node24/
    )
    expect(plan({ ...old, nodeVersion: 'v22.1.0', node24Bin: bin }).env?.['PATH']).toBe('/usr/bin')
  })

  test("its exit status is the tool's, which is the step's", () => {
    const signals = { SIGINT: 2, SIGTERM: 15 }
    expect(exitStatus({ status: 0, signal: null }, signals)).toBe(0)
    expect(exitStatus({ status: 1, signal: null }, signals)).toBe(1)
    expect(exitStatus({ status: 3, signal: null }, signals)).toBe(3)
    expect(exitStatus({ status: null, signal: 'SIGINT' }, signals)).toBe(130)
    expect(exitStatus({ status: null, signal: null, error: new Error('ENOENT') }, signals)).toBe(1)
  })

  // Stand-ins first on PATH, so nothing is downloaded: `npx` records how it was called and runs
  // a launcher that does what @github/local-action 7.0.1's bin/local-action.js does (execSync of
  // `npm exec tsx …/src/index.ts -- ARGS`, and on failure `console.log(); console.log(error)`);
  // `npm` stands for the tool, printing the step's lines and exiting as told.
  test.skipIf(process.platform === 'win32')(
    "the script exits with the step's status and shows the step's output, not the launcher's stack",
    () => {
      const bin = mkdtempSync(join(tmpdir(), 'standin-npx-'))
      const record = join(bin, 'record')
      const launcher = join(bin, 'launcher.mjs')
      writeFileSync(
        join(bin, 'npx'),
        `#!/bin/sh\nprintf '%s\\n' "$*" "$(command -v node)" > "${record}"\nshift 2\nexec node "${launcher}" "$@"\n`
      )
      writeFileSync(
        launcher,
        [
          "import { execSync } from 'node:child_process'",
          'try {',
          `  execSync(\`npm exec tsx "${bin}/src/index.ts" -- \${process.argv.slice(2).join(' ')}\`, { stdio: 'inherit' })`,
          '} catch (error) {',
          '  console.log()',
          '  console.log(error)',
          '  process.exit(error.status)',
          '}'
        ].join('\n')
      )
      writeFileSync(
        join(bin, 'npm'),
        `#!/bin/sh\necho '::error::Job hello failed: FAILURE'\necho\necho 'the step, last line'\nexit "$STANDIN_STATUS"\n`
      )
      for (const name of ['npx', 'npm']) chmodSync(join(bin, name), 0o755)
      for (const status of [0, 1, 3]) {
        const run = spawnSync(process.execPath, [join(ROOT, 'scripts', 'local-action.mjs')], {
          cwd: ROOT,
          encoding: 'utf8',
          env: {
            ...process.env,
            PATH: `${bin}${delimiter}${process.env['PATH'] ?? ''}`,
            STANDIN_STATUS: String(status)
          }
        })
        expect(run.status, run.stderr).toBe(status)
        const [args, node] = readFileSync(record, 'utf8').split('\n')
        expect(args).toBe(`--yes ${LOCAL_ACTION} run . src/main.ts .env.example --post src/post.ts`)
        if (Number(process.versions.node.split('.')[0]) < MIN_NODE_MAJOR) {
          expect(node).toBe(join(ROOT, 'tools', 'node24', 'node_modules', '.bin', 'node'))
        }
        // The step's own output, whole; then this script's line.
        expect(run.stdout).toBe('::error::Job hello failed: FAILURE\n\nthe step, last line\n')
        expect(run.stderr).toMatch(
          status === 0
            ? /the step succeeded\.\n$/
            : new RegExp(`the step failed \\(exit status ${status}\\)\\.\\n$`)
        )
        expect(`${run.stdout}${run.stderr}`).not.toMatch(/Command failed|^\s+at /m)
      }
    }
  )

  test("the launcher's error block is dropped, wherever the chunks break; the step's lines pass", () => {
    const step = 'Run\n\nError: Command failed: in the step\n  at its own stack (app.js:1:1)\n\n'
    const launcher =
      '\nError: Command failed: npm exec tsx "/cache/_npx/1/node_modules/@github/local-action/src/index.ts" -- run . src/main.ts .env --post src/post.ts\n    at genericNodeError (node:internal/errors:983:15)\n    at checkExecSyncError (node:child_process:891:11)\n{\n  status: 1,\n  signal: null\n}\n'
    const all = step + launcher
    for (const size of [1, 7, all.length]) {
      let out = ''
      const filter = withoutLauncherError(text => (out += text))
      for (let i = 0; i < all.length; i += size) filter.push(all.slice(i, i + size))
      filter.end()
      expect(out, `chunks of ${size}`).toBe(step)
    }
    let out = ''
    const filter = withoutLauncherError(text => (out += text))
    filter.push('no newline at the end')
    filter.end()
    expect(out).toBe('no newline at the end')
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
