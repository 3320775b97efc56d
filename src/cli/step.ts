/**
 * One step of a node action, started the way the GitHub runner starts it:
 * the jenkins-build command runs the action's bundle with it, and so do the
 * end-to-end tests, the demo and the benchmark (scripts/action-runner.ts), so
 * a run from a terminal is the run the tests prove. What the runner gives a
 * step: docs/internals.md, "How the runner starts a step".
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface StepSpec {
  /** The Node binary. */
  node: string
  /** The action's entry point (dist/index.js). */
  bundle: string
  /** Every input's value by its action.yml name, defaults applied. */
  inputs: Record<string, string>
  /** The environment the step inherits, set over the runner's own variables for it (RUNNER_DEBUG, a proxy, a CA file); an undefined value unsets one. */
  env: Record<string, string | undefined>
  /** The event the workflow runs for, written to GITHUB_EVENT_PATH. */
  event: { name: string; payload: unknown }
  /** What the main step saved: makes this the post step. */
  state?: Record<string, string>
  /** GITHUB_WORKSPACE (default: the step's temporary folder). */
  workspace?: string
  /** A process group of its own: a terminal's Ctrl+C then reaches only the caller, which forwards it as the runner does. */
  detached?: boolean
}

/** What a step left: how it ended, and its files read. */
export type StepResult = Awaited<ReturnType<typeof startStep>['done']>

/** The Node 24 that `npm test` installs into tools/node24 (scripts/ensure-node24.mjs), when it is there. */
export function installedNode24(root: string): string | undefined {
  const path = join(root, 'tools', 'node24', 'node_modules', '.bin', 'node')
  return existsSync(path) ? path : undefined
}

/**
 * Parses a GITHUB_OUTPUT / GITHUB_STATE file: `name=value` lines and `name<<DELIM` heredocs.
 * @internal
 */
export function parseFileCommands(text: string): Record<string, string> {
  const result: Record<string, string> = {}
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? ''
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line)
    if (heredoc) {
      const [, name = '', delimiter] = heredoc
      const value: string[] = []
      for (i++; i < lines.length && lines[i] !== delimiter; i++) value.push(lines[i] ?? '')
      result[name] = value.join('\n')
      continue
    }
    const eq = line.indexOf('=')
    if (eq > 0) result[line.slice(0, eq)] = line.slice(eq + 1)
  }
  return result
}

/**
 * Starts the step: `child` is its process, whose stdout and stderr are pipes
 * in UTF-8; `done` resolves when it has exited and its files are read.
 */
export function startStep(spec: StepSpec) {
  const dir = mkdtempSync(join(tmpdir(), 'jenkins-action-step-'))
  const files = {
    GITHUB_OUTPUT: join(dir, 'output'),
    GITHUB_STATE: join(dir, 'state'),
    GITHUB_ENV: join(dir, 'env'),
    GITHUB_PATH: join(dir, 'path'),
    GITHUB_STEP_SUMMARY: join(dir, 'summary.md')
  }
  for (const file of Object.values(files)) writeFileSync(file, '')
  const eventPath = join(dir, 'event.json')
  writeFileSync(eventPath, JSON.stringify(spec.event.payload))
  const workspace = spec.workspace ?? dir

  const env: Record<string, string | undefined> = {
    GITHUB_WORKSPACE: workspace,
    RUNNER_TEMP: dir,
    GITHUB_EVENT_NAME: spec.event.name,
    GITHUB_EVENT_PATH: eventPath,
    ...files
  }
  // The runner passes an input as INPUT_<NAME>, spaces as `_`, hyphens kept.
  for (const [name, value] of Object.entries(spec.inputs)) {
    env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = value
  }
  for (const [key, value] of Object.entries(spec.state ?? {})) env[`STATE_${key}`] = value
  // spawn leaves out a variable whose value is undefined.
  Object.assign(env, spec.env)

  const started = Date.now()
  const child = spawn(spec.node, [spec.bundle], {
    env,
    cwd: spec.workspace,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: spec.detached ?? false
  })
  child.stdout?.setEncoding('utf8')
  child.stderr?.setEncoding('utf8')
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    // An error once started is a signal that could not be sent: no failure of the step.
    // A step that could not be started may still close: its promise is settled already.
    child.on('error', error => {
      if (child.pid === undefined) reject(error)
    })
    child.on('close', (code, signal) => resolve([code, signal]))
  })
  const done = exited
    .then(([code, signal]) => ({
      code,
      signal,
      /** GITHUB_OUTPUT, read. */
      outputs: parseFileCommands(readFileSync(files.GITHUB_OUTPUT, 'utf8')),
      /** GITHUB_STATE, read: what a post step is given. */
      state: parseFileCommands(readFileSync(files.GITHUB_STATE, 'utf8')),
      /** GITHUB_STEP_SUMMARY's text. */
      summary: existsSync(files.GITHUB_STEP_SUMMARY)
        ? readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8')
        : '',
      /** GITHUB_ENV's text. */
      env: readFileSync(files.GITHUB_ENV, 'utf8'),
      durationMs: Date.now() - started,
      /** GITHUB_WORKSPACE. */
      workspace
    }))
    // Thousands of runs a test suite: what was read is all a caller needs.
    .finally(() => rmSync(dir, { recursive: true, force: true }))
  return { child, done }
}
