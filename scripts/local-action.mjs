// `npm run local-action [ENV_FILE]`: runs the action's TypeScript sources
// (src/main.ts, then the post step src/post.ts) with @github/local-action,
// GitHub's local runner for JavaScript actions, reading inputs from ENV_FILE
// (default .env.example, which points at `npm run server`).
//
// Why a script and not a one-line npx command:
// - the tool is pinned here, once, so that every command the docs show
//   runs this version (a bare `npx @github/local-action` installs another
//   copy, and without a terminal npx aborts instead of asking);
// - its dependencies want Node 22 or newer: under an older Node it runs the
//   tool with the Node 24 that `npm run node24` (or `npm test`) installs into
//   tools/node24, or says//   what to do;
// - its exit status is the tool's, which is the step's: src/main.ts sets
//   process.exitCode when the step fails, since the tool's stand-in for
//   core.setFailed does not;
// - when the step fails, the tool's launcher (bin/local-action.js) prints the
//   Node error of its own child process, about 20 lines of stack that say
//   nothing of the step, after the step's output: its stdout passes through
//   here, without that block, and this script's line says how the step ended.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { constants } from 'node:os'
import { delimiter, dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const LOCAL_ACTION = '@github/local-action@7.0.1'
/** The oldest Node the tool's dependencies accept (they warn, EBADENGINE, below it). */
export const MIN_NODE_MAJOR = 22
/** What npx downloads on the first run, into npm's cache (measured: its 7.0.1 and dependencies). */
export const DOWNLOAD = 'about 390 MB'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const NODE24_BIN = join(ROOT, 'tools', 'node24', 'node_modules', '.bin')

/**
 * The npx command line and environment that run the tool on `envFile`, or
 * the message saying why it cannot run here.
 */
export function plan({ envFile, nodeVersion, node24Bin, env, platform }) {
  const major = Number(nodeVersion.replace(/^v/, '').split('.')[0])
  const node = platform === 'win32' ? 'node.exe' : 'node'
  const withNode24 = major < MIN_NODE_MAJOR && existsSync(join(node24Bin, node))
  if (major < MIN_NODE_MAJOR && !withNode24) {
    return {
      error:
        `npm run local-action needs Node ${MIN_NODE_MAJOR} or newer for ${LOCAL_ACTION}'s dependencies, and this is Node ${nodeVersion}. ` +
        `Run 'npm run node24' once (it installs Node 24 into tools/node24, about 52 MB, which this script then uses), or switch to Node ${MIN_NODE_MAJOR}+.`
    }
  }
  const pathKey = Object.keys(env).find(key => key.toUpperCase() === 'PATH') ?? 'PATH'
  const childEnv = withNode24
    ? { ...env, [pathKey]: [node24Bin, env[pathKey]].filter(Boolean).join(delimiter) }
    : { ...env }
  return {
    command: platform === 'win32' ? 'npx.cmd' : 'npx',
    // --yes: the version is pinned, and without a terminal npx would abort instead of asking.
    args: ['--yes', LOCAL_ACTION, 'run', '.', 'src/main.ts', envFile, '--post', 'src/post.ts'],
    env: childEnv,
    node: withNode24 ? 'Node 24 from tools/node24' : `Node ${nodeVersion}`
  }
}

/**
 * The first line of what @github/local-action's launcher prints when the
 * tool's process fails (bin/local-action.js: `console.log(); console.log(error)`
 * on execSync's error): `Error: Command failed: npm exec tsx "…/src/index.ts" -- …`
 * (pnpm dlx, yarn exec or yarn dlx for other package managers).
 */
export const LAUNCHER_ERROR =
  /^Error: Command failed: (?:npm exec|pnpm dlx|yarn exec|yarn dlx) tsx /

/**
 * A filter for the tool's stdout: lines pass as they come, except the
 * launcher's error block (the blank line before it, the line LAUNCHER_ERROR
 * matches and everything after it, which is its stack and fields). `write`
 * gets whole lines; `end()` passes an unfinished last line.
 */
export function withoutLauncherError(write) {
  let partial = ''
  let blank = false
  let dropping = false
  const line = text => {
    if (dropping) return
    if (LAUNCHER_ERROR.test(text)) {
      dropping = true
      return
    }
    // Held back: it is the launcher's, when its error follows.
    if (blank) write('\n')
    blank = text === ''
    if (!blank) write(`${text}\n`)
  }
  return {
    push(chunk) {
      const lines = (partial + chunk).split('\n')
      partial = lines.pop() ?? ''
      for (const text of lines) line(text)
    },
    end() {
      if (dropping) return
      if (blank) write('\n')
      blank = false
      if (partial !== '') write(partial)
      partial = ''
    }
  }
}

/** Signals that stop the run: passed to the tool's process group, as a terminal's Ctrl+C would be. */
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP']

/** The exit status of a finished child: its own, or 128 + the signal's number, as a shell reports it. */
export function exitStatus(result, signals) {
  if (result.error) return 1
  if (result.status !== null && result.status !== undefined) return result.status
  const number = result.signal ? signals[result.signal] : undefined
  return number ? 128 + number : 1
}

async function main() {
  const envFile = process.argv[2] ?? '.env.example'
  if (!existsSync(join(ROOT, envFile)) && !existsSync(envFile)) {
    console.error(
      `npm run local-action: no file ${envFile} (copy .env.example to .env and edit it).`
    )
    return 1
  }
  const run = plan({
    envFile,
    nodeVersion: process.version,
    node24Bin: NODE24_BIN,
    env: process.env,
    platform: process.platform
  })
  if (run.error) {
    console.error(run.error)
    return 1
  }
  console.error(
    `Running ${LOCAL_ACTION} under ${run.node} with ${envFile}; the first run downloads it (${DOWNLOAD}) into npm's cache.`
  )
  // Its stdout is a pipe now: keep the colours it would show on this terminal.
  const color = process.stdout.isTTY && run.env.NO_COLOR === undefined
  const windows = process.platform === 'win32'
  const child = spawn(run.command, run.args, {
    cwd: ROOT,
    env: color && run.env.FORCE_COLOR === undefined ? { ...run.env, FORCE_COLOR: '1' } : run.env,
    stdio: ['ignore', 'pipe', 'inherit'],
    shell: windows,
    // A process group of its own: a terminal's Ctrl+C reaches this script, which passes it on once.
    detached: !windows
  })
  const forward = signal => {
    try {
      if (!windows && child.pid !== undefined) process.kill(-child.pid, signal)
    } catch {
      // The group has ended already.
    }
  }
  for (const signal of SIGNALS) process.on(signal, forward)
  const filter = withoutLauncherError(text => process.stdout.write(text))
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', chunk => filter.push(chunk))
  const result = await new Promise(resolve => {
    child.on('error', error => resolve({ status: null, signal: null, error }))
    child.on('close', (status, signal) => resolve({ status, signal }))
  })
  for (const signal of SIGNALS) process.off(signal, forward)
  filter.end()
  if (result.error)
    console.error(`npm run local-action: could not run npx: ${result.error.message}`)
  const status = exitStatus(result, constants.signals)
  console.error(
    `npm run local-action: the step ${status === 0 ? 'succeeded' : `failed (exit status ${status})`}.`
  )
  return status
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1]))
  process.exitCode = await main()
