import { spawnSync } from 'node:child_process'
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { ROOT } from '../../scripts/action-runner.js'

/**
 * scripts/ensure-node24.mjs, run in a copy of its corner of the repository
 * with a stand-in for npm (npm_execpath, as when npm runs it), so that no
 * case downloads anything. The stand-in does what the real npm ci leaves
 * behind in each case: a working install, a dangling .bin/node when the
 * package's install script did not run, or a registry error.
 */
type NpmMode = 'installs' | 'unreachable' | 'skips-scripts' | 'installs-old'

const WANTED = (
  JSON.parse(readFileSync(join(ROOT, 'tools', 'node24', 'package.json'), 'utf8')) as {
    dependencies: { node: string }
  }
).dependencies.node

const FAKE_NPM = `
const fs = require('node:fs'), path = require('node:path')
fs.appendFileSync(process.env.NPM_CALLS, JSON.stringify(process.argv.slice(2)) + '\\n')
const mode = process.env.NPM_MODE
if (mode === 'unreachable') {
  console.error('npm error code ECONNREFUSED')
  process.exit(1)
}
const prefix = process.argv[process.argv.indexOf('--prefix') + 1]
const modules = path.join(prefix, 'node_modules')
fs.rmSync(modules, { recursive: true, force: true })
fs.mkdirSync(path.join(modules, 'node', 'bin'), { recursive: true })
fs.mkdirSync(path.join(modules, '.bin'))
fs.writeFileSync(path.join(modules, 'node', 'package.json'), '{"name":"node"}')
fs.symlinkSync('../node/bin/node', path.join(modules, '.bin', 'node'))
if (mode !== 'skips-scripts') {
  const version = mode === 'installs-old' ? 'v24.0.0' : 'v' + process.env.WANTED
  fs.writeFileSync(path.join(modules, 'node', 'bin', 'node'), '#!/bin/sh\\necho ' + version + '\\n', { mode: 0o755 })
}
`

interface Sandbox {
  root: string
  modules: string
  calls: () => string[][]
}

function sandbox(): Sandbox {
  const root = mkdtempSync(join(tmpdir(), 'ensure-node24-'))
  mkdirSync(join(root, 'scripts'))
  mkdirSync(join(root, 'tools', 'node24'), { recursive: true })
  copyFileSync(
    join(ROOT, 'scripts', 'ensure-node24.mjs'),
    join(root, 'scripts', 'ensure-node24.mjs')
  )
  copyFileSync(
    join(ROOT, 'tools', 'node24', 'package.json'),
    join(root, 'tools', 'node24', 'package.json')
  )
  writeFileSync(join(root, 'npm-cli.cjs'), FAKE_NPM)
  writeFileSync(join(root, 'calls'), '')
  return {
    root,
    modules: join(root, 'tools', 'node24', 'node_modules'),
    calls: () =>
      readFileSync(join(root, 'calls'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map(line => JSON.parse(line) as string[])
  }
}

function ensure(box: Sandbox, mode: NpmMode, env: Record<string, string> = {}) {
  const run = spawnSync(process.execPath, [join(box.root, 'scripts', 'ensure-node24.mjs')], {
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      npm_execpath: join(box.root, 'npm-cli.cjs'),
      NPM_CALLS: join(box.root, 'calls'),
      NPM_MODE: mode,
      WANTED,
      ...env
    }
  })
  return { status: run.status, out: run.stdout, err: run.stderr }
}

/** A node binary stand-in at tools/node24/node_modules/.bin/node. */
function installed(box: Sandbox, script: string): void {
  mkdirSync(join(box.modules, '.bin'), { recursive: true })
  const binary = join(box.modules, '.bin', 'node')
  writeFileSync(binary, `#!/bin/sh\n${script}\n`)
  chmodSync(binary, 0o755)
}

function noStackTrace(text: string): void {
  expect(text).not.toMatch(/^\s+at /m)
  expect(text).not.toMatch(/ENOENT|spawnSync/)
}

describe.skipIf(process.platform === 'win32')('scripts/ensure-node24.mjs', () => {
  test('does nothing when tools/node24 holds the pinned Node', () => {
    const box = sandbox()
    installed(box, `echo v${WANTED}`)
    const run = ensure(box, 'installs')
    expect(run.status).toBe(0)
    expect(box.calls()).toEqual([])
    expect(run.out).toBe('')
  })

  test('installs it with npm ci into tools/node24 when missing', () => {
    const box = sandbox()
    const run = ensure(box, 'installs')
    expect(run.status).toBe(0)
    expect(box.calls()).toEqual([
      ['ci', '--no-audit', '--no-fund', '--prefix', join(box.root, 'tools', 'node24')]
    ])
    expect(run.out).toContain(`Installing Node ${WANTED} into tools/node24`)
    expect(run.out).toMatch(/about 50 MB to download, 190 MB on disk/)
  })

  test('with scripts disabled, says how to install it and downloads nothing', () => {
    const box = sandbox()
    const run = ensure(box, 'installs', { npm_config_ignore_scripts: 'true' })
    expect(run.status).toBe(1)
    expect(box.calls()).toEqual([])
    expect(run.err).toContain(`Node ${WANTED} is needed for the end-to-end tests`)
    expect(run.err).toContain('npm scripts are disabled (ignore-scripts)')
    expect(run.err).toContain('    npm ci --prefix tools/node24 --ignore-scripts=false\n')
    noStackTrace(run.err)
  })

  test('when npm ci leaves no binary (scripts disabled in an .npmrc), says the same', () => {
    const box = sandbox()
    const run = ensure(box, 'skips-scripts')
    expect(run.status).toBe(1)
    expect(box.calls()).toHaveLength(1)
    expect(run.err).toContain("'npm ci --prefix tools/node24' finished but left no node binary")
    expect(run.err).toContain('npm ci --prefix tools/node24 --ignore-scripts=false')
    noStackTrace(run.err)
  })

  test('when the registry cannot be reached, says so after npm, without a stack trace', () => {
    const box = sandbox()
    const run = ensure(box, 'unreachable')
    expect(run.status).toBe(1)
    expect(run.err).toContain('npm error code ECONNREFUSED')
    expect(run.err).toContain(
      "and 'npm ci --prefix tools/node24' failed (exit status 1; npm's own message is above)"
    )
    expect(run.err).toMatch(/npm registry cannot be reached: check the network, or the proxy/)
    noStackTrace(run.err)
  })

  test('a half-installed tools/node24 (dangling .bin/node) is installed again', () => {
    const box = sandbox()
    mkdirSync(join(box.modules, '.bin'), { recursive: true })
    symlinkSync('../node/bin/node', join(box.modules, '.bin', 'node'))
    const run = ensure(box, 'installs')
    expect(run.status).toBe(0)
    expect(run.out).toContain('tools/node24/node_modules has no node binary')
    expect(box.calls()).toHaveLength(1)
    expect(existsSync(join(box.modules, 'node', 'bin', 'node'))).toBe(true)
  })

  test('a binary that does not run, or another version, is installed again', () => {
    for (const [script, why] of [
      ['exit 3', 'its node binary fails (exit status 3)'],
      ['echo v24.0.0', `it holds Node v24.0.0, not ${WANTED}`]
    ] as const) {
      const box = sandbox()
      installed(box, script)
      const run = ensure(box, 'installs')
      expect(run.status).toBe(0)
      expect(run.out).toContain(`tools/node24 cannot be used: ${why}`)
      expect(box.calls()).toHaveLength(1)
    }
  })

  test('still the wrong Node after npm ci: says what to remove', () => {
    const box = sandbox()
    const run = ensure(box, 'installs-old')
    expect(run.status).toBe(1)
    expect(run.err).toContain(`it holds Node v24.0.0, not ${WANTED}`)
    expect(run.err).toContain('Remove tools/node24/node_modules and run the tests again.')
    noStackTrace(run.err)
  })
})
