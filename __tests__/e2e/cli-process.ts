/**
 * Spawning the jenkins-build command (the built bin of package.json,
 * dist/cli/index.js) as a user's terminal does, for the e2e tests of the
 * command: its output, its exit status or signal, and a signal to send it.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from '../../scripts/action-runner.js'
import type { BuildState, TestJenkins } from '../../test-server/index.js'

const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  bin: Record<string, string>
}
export const BIN = join(ROOT, PACKAGE.bin['jenkins-build'] ?? '')
if (!existsSync(BIN)) {
  throw new Error(
    `${BIN} is missing: 'npm run build' builds it (into dist/cli/, with dist/index.js)`
  )
}

export interface CliRun {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  /** The --summary file's text, when one was asked for. */
  summary?: string
}

export interface RunningCli {
  done: Promise<CliRun>
  /** Resolves with the match once stdout + stderr match. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>
  /** Sends `signal` (to the process group when it has one of its own). */
  signal(signal: NodeJS.Signals): void
}

/** The user's few variables, as a terminal has them. */
export function userEnv(): Record<string, string> {
  const base: Record<string, string> = {}
  for (const key of ['PATH', 'HOME', 'LANG', 'TMPDIR']) {
    const value = process.env[key]
    if (value !== undefined) base[key] = value
  }
  return base
}

export interface Spawned {
  /** The command line (`node BIN`, `npx …`, `bash -c …`). */
  command: string
  args: string[]
  env?: Record<string, string>
  /** Default: a directory of its own, removed afterwards. */
  cwd?: string
  /** A process group of its own, as a terminal starts a command: `signal` then reaches the group, as Ctrl+C does. */
  group?: boolean
}

/** Spawns the bin in a directory of its own with the user's few variables and `env`. */
export function startCli(args: string[], env: Record<string, string> = {}): RunningCli {
  return startCommand({ command: process.execPath, args: [BIN, ...args], env })
}

export function startCommand(spec: Spawned): RunningCli {
  const own = spec.cwd === undefined ? mkdtempSync(join(tmpdir(), 'jenkins-build-cli-')) : undefined
  const cwd = spec.cwd ?? own ?? ''
  const { args } = spec
  const child = spawn(spec.command, args, {
    cwd,
    env: { ...userEnv(), ...spec.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: spec.group ?? false
  })
  let stdout = ''
  let stderr = ''
  const waiters: Array<{ pattern: RegExp; resolve: (m: RegExpExecArray) => void }> = []
  const check = (): void => {
    for (const waiter of [...waiters]) {
      const match = waiter.pattern.exec(stdout + stderr)
      if (match) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve(match)
      }
    }
  }
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
    check()
  })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
    check()
  })
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000)
  const done = new Promise<CliRun>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(killer)
      const index = args.indexOf('--summary')
      // `--summary -` writes it to stdout: no file to read.
      const file = index >= 0 ? args[index + 1] : undefined
      const summaryFile = file !== undefined && file !== '-' ? join(cwd, file) : undefined
      const summary = summaryFile ? readFileSync(summaryFile, 'utf8') : undefined
      if (own) rmSync(own, { recursive: true, force: true })
      resolve({ code, signal, stdout, stderr, summary })
    })
  })
  return {
    done,
    waitFor: pattern =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`never printed ${pattern}:\n${stdout}\n${stderr}`)),
          30_000
        )
        waiters.push({
          pattern,
          resolve: match => {
            clearTimeout(timer)
            resolve(match)
          }
        })
        check()
      }),
    signal: signal => {
      // The whole group, as a terminal's Ctrl+C; the process alone otherwise.
      if (spec.group && child.pid !== undefined) process.kill(-child.pid, signal)
      else child.kill(signal)
    }
  }
}

export function describeRun(r: CliRun): string {
  return `exit ${r.code ?? r.signal}\n--- stdout ---\n${r.stdout}\n--- stderr ---\n${r.stderr}`
}

/** The build of `job` that a run reported (its build-number), never "the last one". */
export function buildOf(jenkins: TestJenkins, job: string, number: string | undefined): BuildState {
  const build = jenkins.builds(job).find(b => String(b.number) === number)
  if (!build) throw new Error(`no build #${number} of ${job}`)
  return build
}
