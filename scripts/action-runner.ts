/**
 * Runs the bundled action the way the GitHub runner runs a node action.
 * Shared by the end-to-end tests, the demo and the benchmark.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

/** The repository root, the bundle, and action.yml. */
export const ROOT = resolve(import.meta.dirname, '..')
export const BUNDLE = join(ROOT, 'dist', 'index.js')

/** Node runtimes to prove the bundle under: the machine's, and Node 24 (what action.yml declares). */
export function runtimes(): Array<{ name: string; path: string }> {
  const list = [{ name: `node ${process.version}`, path: process.execPath }]
  const node24 = join(ROOT, 'tools', 'node24', 'node_modules', '.bin', 'node')
  if (existsSync(node24)) list.push({ name: 'node 24', path: node24 })
  return list
}

/** The Node 24 binary; e2e suites that must prove Node 24 fail loudly without it. */
export function node24(): string {
  const path = join(ROOT, 'tools', 'node24', 'node_modules', '.bin', 'node')
  if (!existsSync(path)) {
    throw new Error(
      `Node 24 is not installed at ${path}: run 'node scripts/ensure-node24.mjs' (npm test runs it first), which installs it or says what stops it`
    )
  }
  return path
}

/** Input defaults from action.yml, read with a minimal parser of its `inputs:` block. */
export function actionDefaults(): Record<string, string> {
  const text = readFileSync(join(ROOT, 'action.yml'), 'utf8')
  const defaults: Record<string, string> = {}
  const block = text.split(/^inputs:\s*$/m)[1]?.split(/^\S/m)[0] ?? ''
  let current: string | undefined
  for (const line of block.split('\n')) {
    const name = /^ {2}([\w-]+):\s*$/.exec(line)
    if (name) {
      current = name[1]
      continue
    }
    const def = /^ {4}default:\s*(.*)$/.exec(line)
    if (def && current) defaults[current] = unquote(def[1] ?? '')
  }
  return defaults
}

function unquote(value: string): string {
  const v = value.trim()
  if (v.startsWith("'") && v.endsWith("'")) return v.slice(1, -1).replace(/''/g, "'")
  if (v.startsWith('"') && v.endsWith('"')) return JSON.parse(v) as string
  return v
}

/** Parses a GITHUB_OUTPUT / GITHUB_STATE file: `name=value` lines and `name<<DELIM` heredocs. */
export function parseFileCommands(text: string): Record<string, string> {
  const result: Record<string, string> = {}
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? ''
    if (line === '') continue
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line)
    if (heredoc) {
      const [, name, delimiter] = heredoc
      const value: string[] = []
      for (i++; i < lines.length && lines[i] !== delimiter; i++) value.push(lines[i] ?? '')
      result[name as string] = value.join('\n')
      continue
    }
    const eq = line.indexOf('=')
    if (eq > 0) result[line.slice(0, eq)] = line.slice(eq + 1)
  }
  return result
}

export interface ActionRun {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  outputs: Record<string, string>
  state: Record<string, string>
  summary: string
  env: string
  durationMs: number
  /** GITHUB_WORKSPACE: the temporary folder the step ran in (downloaded artifacts land here). */
  workspace: string
}

export interface RunOptions {
  /** Node binary (default: this process's). */
  node?: string
  /** Extra environment (e.g. RUNNER_DEBUG, NODE_EXTRA_CA_CERTS). */
  env?: Record<string, string>
  /** A pull_request event is written to GITHUB_EVENT_PATH by default. */
  event?: { name: string; payload: unknown }
  /** Saved state from the main run: makes this the post step. */
  state?: Record<string, string>
  /** Do not set GITHUB_STEP_SUMMARY. */
  noSummary?: boolean
  /** Kill the child after this long (a hung action fails the test instead of hanging it). */
  killAfterMs?: number
  /** Another build of the action to run instead of dist/index.js (the benchmark's "today"). */
  bundle?: string
  /** Keep the temporary folder (the workspace and the file-command files) after the run; by default it is removed once they are read. */
  keep?: boolean
}

export interface RunningAction {
  child: ChildProcess
  /** Resolves when the process exits. */
  done: Promise<ActionRun>
  /** Resolves once stdout has matched the pattern. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<void>
  /** What the action has written to stdout so far. */
  stdout(): string
}

export const PR_EVENT = {
  name: 'pull_request',
  payload: {
    number: 17,
    pull_request: { number: 17, head: { sha: 'a'.repeat(40), ref: 'feature/x' } },
    repository: { name: 'repo', owner: { login: 'owner' } }
  }
}

/**
 * Starts dist/index.js the way the GitHub runner starts a node action:
 * INPUT_<NAME> upper-cased with hyphens kept, action.yml defaults applied,
 * and the file-command files (GITHUB_OUTPUT, GITHUB_STATE, GITHUB_ENV,
 * GITHUB_PATH, GITHUB_STEP_SUMMARY) and event payload in a temp folder.
 */
export function startAction(
  inputs: Record<string, string>,
  options: RunOptions = {}
): RunningAction {
  const dir = mkdtempSync(join(tmpdir(), 'jenkins-action-e2e-'))
  const files = {
    GITHUB_OUTPUT: join(dir, 'output'),
    GITHUB_STATE: join(dir, 'state'),
    GITHUB_ENV: join(dir, 'env'),
    GITHUB_PATH: join(dir, 'path'),
    GITHUB_STEP_SUMMARY: join(dir, 'summary.md')
  }
  for (const file of Object.values(files)) writeFileSync(file, '')
  const event = options.event ?? PR_EVENT
  const eventPath = join(dir, 'event.json')
  writeFileSync(eventPath, JSON.stringify(event.payload))

  const env: Record<string, string> = {}
  // The runner passes its own environment, not the test runner's vitest variables.
  for (const key of ['PATH', 'HOME', 'LANG', 'TMPDIR', 'SYSTEMROOT']) {
    const value = process.env[key]
    if (value !== undefined) env[key] = value
  }
  Object.assign(env, {
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: dir,
    RUNNER_TEMP: dir,
    GITHUB_REPOSITORY: 'owner/repo',
    GITHUB_SHA: 'b'.repeat(40),
    GITHUB_REF: 'refs/pull/17/merge',
    GITHUB_EVENT_NAME: event.name,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_API_URL: 'https://api.github.com',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_RUN_ID: '1',
    GITHUB_ACTOR: 'octocat',
    ...files
  })
  if (options.noSummary) delete env.GITHUB_STEP_SUMMARY
  const all = { ...actionDefaults(), ...inputs }
  for (const [name, value] of Object.entries(all)) {
    // ${{ github.token }} would be evaluated by the runner; tests pass their own.
    const evaluated = /\$\{\{/.test(value) ? '' : value
    env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = evaluated
  }
  for (const [key, value] of Object.entries(options.state ?? {})) env[`STATE_${key}`] = value
  Object.assign(env, options.env)

  const started = Date.now()
  const child = spawn(options.node ?? process.execPath, [options.bundle ?? BUNDLE], {
    env,
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let stdout = ''
  let stderr = ''
  const waiters: Array<{ pattern: RegExp; resolve: () => void }> = []
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
    for (const w of [...waiters]) {
      if (w.pattern.test(stdout)) {
        waiters.splice(waiters.indexOf(w), 1)
        w.resolve()
      }
    }
  })
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const killer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? 60_000)
  const done = new Promise<ActionRun>((resolvePromise, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(killer)
      const run: ActionRun = {
        code,
        signal,
        stdout,
        stderr,
        outputs: parseFileCommands(readFileSync(files.GITHUB_OUTPUT, 'utf8')),
        state: parseFileCommands(readFileSync(files.GITHUB_STATE, 'utf8')),
        summary: existsSync(files.GITHUB_STEP_SUMMARY)
          ? readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8')
          : '',
        env: readFileSync(files.GITHUB_ENV, 'utf8'),
        durationMs: Date.now() - started,
        workspace: dir
      }
      // Thousands of runs a suite: what was read is all a test needs.
      if (!options.keep) rmSync(dir, { recursive: true, force: true })
      resolvePromise(run)
    })
  })
  const waitForOutput = (pattern: RegExp, timeoutMs = 30_000): Promise<void> =>
    new Promise((resolvePromise, reject) => {
      if (pattern.test(stdout)) return resolvePromise()
      const timer = setTimeout(
        () => reject(new Error(`stdout never matched ${pattern}:\n${stdout}\n${stderr}`)),
        timeoutMs
      )
      waiters.push({
        pattern,
        resolve: () => {
          clearTimeout(timer)
          resolvePromise()
        }
      })
    })
  return { child, done, waitForOutput, stdout: () => stdout }
}

/** Runs the action to the end. */
export function runAction(
  inputs: Record<string, string>,
  options: RunOptions = {}
): Promise<ActionRun> {
  return startAction(inputs, options).done
}

/** The `::error::` annotation text of a run (the setFailed message), unescaped. */
export function errorAnnotation(run: ActionRun): string {
  const match = /^::error::(.*)$/m.exec(run.stdout)
  return (match?.[1] ?? '').replace(/%0A/g, '\n').replace(/%0D/g, '\r').replace(/%25/g, '%')
}
