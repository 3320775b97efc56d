/**
 * Runs the bundled action the way the GitHub runner runs a node action, with
 * a fixed pull-request context and the test runner's few variables: the
 * end-to-end tests, the demo and the benchmark. The runner's part (inputs,
 * file commands, state) is src/cli/step.ts, which the jenkins-build command
 * runs the bundle with too.
 */
import type { ChildProcess } from 'node:child_process'
import { join, resolve } from 'node:path'
import { readActionInputs } from '../src/cli/action-yml.js'
import { installedNode24, startStep, type StepResult } from '../src/cli/step.js'
import {
  CommandReader,
  commandData,
  LineSplitter,
  type LogLine,
  type RunnerCommand
} from '../src/cli/workflow-commands.js'

export { parseFileCommands } from '../src/cli/step.js'

/** The repository root, the bundle, and action.yml. */
export const ROOT = resolve(import.meta.dirname, '..')
export const BUNDLE = join(ROOT, 'dist', 'index.js')

/** Node runtimes to prove the bundle under: the machine's, and Node 24 (what action.yml declares). */
export function runtimes(): Array<{ name: string; path: string }> {
  const list = [{ name: `node ${process.version}`, path: process.execPath }]
  const node24 = installedNode24(ROOT)
  if (node24) list.push({ name: 'node 24', path: node24 })
  return list
}

/** The Node 24 binary; e2e suites that must prove Node 24 fail loudly without it. */
export function node24(): string {
  const path = installedNode24(ROOT)
  if (!path) {
    throw new Error(
      `Node 24 is not installed at ${join(ROOT, 'tools', 'node24')}: run 'node scripts/ensure-node24.mjs' (npm test runs it first), which installs it or says what stops it`
    )
  }
  return path
}

/** The `default:` of every input of action.yml that has one, by name. */
export function actionDefaults(): Record<string, string> {
  const defaults: Record<string, string> = {}
  for (const input of readActionInputs(join(ROOT, 'action.yml'))) {
    if (input.default !== undefined) defaults[input.name] = input.default
  }
  return defaults
}

/** A step's result with what it printed. */
export interface ActionRun extends StepResult {
  stdout: string
  stderr: string
}

export interface RunOptions {
  /** Node binary (default: this process's). */
  node?: string
  /** Extra environment (e.g. RUNNER_DEBUG, NODE_EXTRA_CA_CERTS), over the runner's own variables. */
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
  /** A process group of its own: a terminal's Ctrl+C then reaches only the caller, which forwards it as the runner does (src/cli/cancel-step.ts). */
  detached?: boolean
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
 * Starts dist/index.js the way the GitHub runner starts a node action
 * (src/cli/step.ts), with action.yml's defaults, a pull-request event and
 * context unless told otherwise, and a kill for a hung run.
 */
export function startAction(
  inputs: Record<string, string>,
  options: RunOptions = {}
): RunningAction {
  const env: Record<string, string | undefined> = {}
  // The runner passes its own environment, not the test runner's vitest variables.
  for (const key of ['PATH', 'HOME', 'LANG', 'TMPDIR', 'SYSTEMROOT']) {
    const value = process.env[key]
    if (value !== undefined) env[key] = value
  }
  Object.assign(env, {
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_REPOSITORY: 'owner/repo',
    GITHUB_SHA: 'b'.repeat(40),
    GITHUB_REF: 'refs/pull/17/merge',
    GITHUB_API_URL: 'https://api.github.com',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_RUN_ID: '1',
    GITHUB_ACTOR: 'octocat',
    ...(options.noSummary ? { GITHUB_STEP_SUMMARY: undefined } : {}),
    ...options.env
  })
  const all = { ...actionDefaults(), ...inputs }
  // ${{ github.token }} would be evaluated by the runner; tests pass their own.
  for (const [name, value] of Object.entries(all)) if (/\$\{\{/.test(value)) all[name] = ''

  const { child, done: stepDone } = startStep({
    node: options.node ?? process.execPath,
    bundle: options.bundle ?? BUNDLE,
    inputs: all,
    env,
    event: options.event ?? PR_EVENT,
    state: options.state,
    detached: options.detached
  })
  let stdout = ''
  let stderr = ''
  const waiters: Array<{ pattern: RegExp; resolve: () => void }> = []
  child.stdout?.on('data', (chunk: string) => {
    stdout += chunk
    for (const w of [...waiters]) {
      if (w.pattern.test(stdout)) {
        waiters.splice(waiters.indexOf(w), 1)
        w.resolve()
      }
    }
  })
  child.stderr?.on('data', (chunk: string) => (stderr += chunk))
  const killer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? 60_000)
  const done = stepDone.then(
    result => {
      clearTimeout(killer)
      return { ...result, stdout, stderr }
    },
    (error: unknown) => {
      clearTimeout(killer)
      throw error
    }
  )
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

/** The first `::error::` annotation of a run (the setFailed message), unescaped as the runner does. */
export function errorAnnotation(run: ActionRun): string {
  const error = commands(run.stdout, 'error')[0]
  return error ? commandData(error) : ''
}

/**
 * Reads a whole stdout the way the runner does, line by line, honouring
 * stop-commands (the rules: src/cli/workflow-commands.ts).
 */
export function runnerView(stdout: string): LogLine[] {
  const splitter = new LineSplitter()
  const reader = new CommandReader()
  return [...splitter.push(stdout), ...splitter.end()].map(text => reader.read(text))
}

/**
 * The commands the runner would act on, optionally only those named `name`.
 */
export function commands(stdout: string, name?: string): RunnerCommand[] {
  return runnerView(stdout)
    .flatMap(line => (line.stopped || line.command === undefined ? [] : [line.command]))
    .filter(command => name === undefined || command.name === name)
}

/**
 * Whether command processing is still stopped after the whole of stdout (a stop never resumed).
 */
export function endsStopped(stdout: string): boolean {
  const reader = new CommandReader()
  const splitter = new LineSplitter()
  for (const text of [...splitter.push(stdout), ...splitter.end()]) reader.read(text)
  return reader.stopped
}
