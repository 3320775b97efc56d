/**
 * End to end: the jenkins-build command as a user runs it, the built bin of
 * package.json (dist/cli/index.js) spawned against the test server. It runs
 * dist/index.js as the runner does, under Node 24, so these tests check what
 * the command adds: flags and variables reaching the step, the log as a
 * terminal shows it, --json, the exit status, and Ctrl+C stopping the build.
 * Each test has a job of its own and matches only the build its run reports.
 */
import { spawn, spawnSync } from 'node:child_process'
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { constants, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readActionInputs } from '../../src/cli/action-yml.js'
import { ROOT } from '../../scripts/action-runner.js'
import { startJenkins, type BuildState, type TestJenkins } from '../../test-server/index.js'
import type { JobSpec } from '../../test-server/types.js'
import { ADMIN_TOKEN } from './helpers.js'

const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  bin: Record<string, string>
}
const BIN = join(ROOT, PACKAGE.bin['jenkins-build'] ?? '')
if (!existsSync(BIN)) {
  throw new Error(
    `${BIN} is missing: 'npm run package' builds it (into dist/cli/, with dist/index.js)`
  )
}

interface CliRun {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  /** The --summary file's text, when one was asked for. */
  summary?: string
}

interface RunningCli {
  done: Promise<CliRun>
  /** Resolves with the match once stdout + stderr match. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>
  /** Sends `signal` (to the process group when it has one of its own). */
  signal(signal: NodeJS.Signals): void
}

/** The user's few variables, as a terminal has them. */
function userEnv(): Record<string, string> {
  const base: Record<string, string> = {}
  for (const key of ['PATH', 'HOME', 'LANG', 'TMPDIR']) {
    const value = process.env[key]
    if (value !== undefined) base[key] = value
  }
  return base
}

interface Spawned {
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
function startCli(args: string[], env: Record<string, string> = {}): RunningCli {
  return startCommand({ command: process.execPath, args: [BIN, ...args], env })
}

function startCommand(spec: Spawned): RunningCli {
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
      const summaryFile = index >= 0 ? join(cwd, args[index + 1] ?? '') : undefined
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

function describeRun(r: CliRun): string {
  return `exit ${r.code ?? r.signal}\n--- stdout ---\n${r.stdout}\n--- stderr ---\n${r.stderr}`
}

/** The build of `job` that a run reported (its build-number), never "the last one". */
function buildOf(jenkins: TestJenkins, job: string, number: string | undefined): BuildState {
  const build = jenkins.builds(job).find(b => String(b.number) === number)
  if (!build) throw new Error(`no build #${number} of ${job}`)
  return build
}

describe('jenkins-build (the package bin)', () => {
  let jenkins: TestJenkins
  /** The admin's API token in the environment, as the README tells users to pass it. */
  let creds: Record<string, string>
  beforeAll(async () => {
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      executors: 10,
      jobs: {
        hello: {
          script: {
            durationMs: 200,
            // Jenkins text that looks like a command must reach the terminal as text.
            consoleLines: ['Hello from Jenkins', '::error::not a command', '##[group]nor this']
          }
        },
        failing: { script: { durationMs: 200, result: 'FAILURE', consoleLines: ['error: boom'] } },
        params: {
          parameters: [
            { name: 'BRANCH', type: 'string', default: 'main' },
            { name: 'DEBUG', type: 'boolean', default: false },
            { name: 'TARGET', type: 'choice', choices: ['staging', 'production'] },
            { name: 'NOTES', type: 'text', default: '' }
          ],
          script: { durationMs: 200, echoParameters: true }
        },
        flagged: { script: { durationMs: 200 } },
        long: { script: { durationMs: 30_000, consoleLines: ['working'] } }
      }
    })
    creds = { JENKINS_URL: jenkins.url, JENKINS_USER: 'admin', JENKINS_TOKEN: ADMIN_TOKEN }
  })
  afterAll(() => jenkins.close())

  describe.concurrent('runs', () => {
    it('--json: outputs on stdout, the log on stderr as a terminal shows it, credentials from the environment', async () => {
      const r = await startCli(['--job', 'hello', '--json'], creds).done
      expect(r.code, describeRun(r)).toBe(0)
      const outputs = JSON.parse(r.stdout) as Record<string, string>
      const build = buildOf(jenkins, 'hello', outputs['build-number'])
      expect(build.result).toBe('SUCCESS')
      expect(outputs).toMatchObject({
        result: 'SUCCESS',
        'build-url': `${jenkins.url}/job/hello/${build.number}/`,
        'queue-url': `${jenkins.url}/queue/item/${build.queueId}/`,
        'job-url': `${jenkins.url}/job/hello/`
      })
      // Started by the admin, who signed in with the token from JENKINS_TOKEN.
      const trigger = jenkins.requests.find(
        q => q.method === 'POST' && q.path === '/job/hello/build' && q.status === 201
      )
      expect(trigger).toMatchObject({ user: 'admin', auth: 'token' })

      expect(r.stderr).toContain(`=== Console of Jenkins hello #${build.number}\n`)
      expect(r.stderr).toContain(
        'Hello from Jenkins\n::error::not a command\n##[group]nor this\nFinished: SUCCESS\n'
      )
      expect(r.stderr).toContain(`Jenkins build hello #${build.number} finished: SUCCESS`)
      // No workflow command of the action's own is left raw, and no annotation came from Jenkins.
      expect(r.stderr).not.toMatch(/^::(add-mask|group|endgroup|stop-commands|debug)/m)
      expect(r.stderr).not.toContain('Error:')
      expect(r.stdout + r.stderr).not.toContain(ADMIN_TOKEN)
    })

    it('a failing build: exit status 1, the error line, the summary written with --summary', async () => {
      const r = await startCli(['--job', 'failing', '--summary', 'summary.md'], creds).done
      expect(r.code, describeRun(r)).toBe(1)
      const number = /Jenkins build failing #(\d+) started/.exec(r.stdout)?.[1]
      const build = buildOf(jenkins, 'failing', number)
      expect(build.result).toBe('FAILURE')
      // Without --json the log is on stdout.
      expect(r.stdout).toContain(
        `\nError: Jenkins build failing #${number} finished FAILURE (accepted: SUCCESS) — ${jenkins.url}/job/failing/${number}/\n`
      )
      expect(r.stdout).toContain('error: boom\n')
      expect(r.stdout).not.toMatch(/^::error/m)
      expect(r.summary).toContain(
        `<a href="${jenkins.url}/job/failing/${number}/">&#35;${number}</a>`
      )
      expect(r.summary).toContain('FAILURE')
    })

    it('-p parameters reach the build exactly, --verbose shows the debug lines', async () => {
      const notes = 'two\nlines; $(id) "q"'
      const r = await startCli(
        [
          '--job',
          'params',
          '-p',
          'BRANCH=feature/x=y',
          '--param',
          'TARGET=production',
          '-p',
          `NOTES=${notes}`,
          '--no-log',
          '--verbose',
          '--json'
        ],
        creds
      ).done
      expect(r.code, describeRun(r)).toBe(0)
      const outputs = JSON.parse(r.stdout) as Record<string, string>
      const build = buildOf(jenkins, 'params', outputs['build-number'])
      expect(build.parameters).toEqual({
        BRANCH: 'feature/x=y',
        DEBUG: false,
        TARGET: 'production',
        NOTES: notes
      })
      // --no-log: no console; --verbose: the action's debug lines.
      expect(r.stderr).not.toContain('=== Console of')
      expect(r.stderr).toMatch(/^Debug: /m)
    })

    it('flags instead of the environment: --url, --user and --token work, and --token is warned about and masked', async () => {
      const r = await startCli([
        '--url',
        jenkins.url,
        '--user',
        'admin',
        '--token',
        ADMIN_TOKEN,
        '--job',
        'flagged',
        '--wait=started',
        '--json'
      ]).done
      expect(r.code, describeRun(r)).toBe(0)
      expect(r.stderr).toContain(
        'Warning: --token on the command line lands in your shell history, and in the process list while this runs; set JENKINS_TOKEN in the environment instead.\n'
      )
      const outputs = JSON.parse(r.stdout) as Record<string, string>
      // wait: started returns once the build has a number, before its result.
      expect(outputs.result).toBeUndefined()
      expect(outputs['build-url']).toBe(
        `${jenkins.url}/job/flagged/${buildOf(jenkins, 'flagged', outputs['build-number']).number}/`
      )
      expect(r.stdout + r.stderr).not.toContain(ADMIN_TOKEN)
    })

    it('Ctrl+C (SIGINT) stops the Jenkins build as a cancelled workflow does, then ends by SIGINT', async () => {
      const cli = startCli(['--job', 'long'], creds)
      const [, number] = await cli.waitFor(/Jenkins build long #(\d+) started/)
      cli.signal('SIGINT')
      const r = await cli.done
      expect(r.signal, describeRun(r)).toBe('SIGINT')
      expect(buildOf(jenkins, 'long', number).result).toBe('ABORTED')
      expect(r.stdout).toContain(
        'Received SIGINT: cancelling the step as the runner cancels a workflow (SIGINT).\n'
      )
      // The action got exactly one SIGINT (the runner's), not a second from the terminal.
      expect(r.stdout).toContain('Received SIGINT: the workflow was cancelled.\n')
      expect(r.stdout).not.toContain('Received SIGINT again')
      expect(r.stdout).toContain(
        `Error: The workflow was cancelled while waiting for Jenkins long #${number}; stopped Jenkins build #${number} (stop; result ABORTED).\n`
      )
    })
  })

  describe.concurrent('the command line alone', () => {
    it('--help lists every input of action.yml as a flag, and exits 0', async () => {
      const r = await startCli(['--help']).done
      expect(r.code, describeRun(r)).toBe(0)
      for (const input of readActionInputs(join(ROOT, 'action.yml'))) {
        expect(r.stdout).toMatch(new RegExp(`^ {2}--(\\[no-\\])?${input.name}\\b`, 'm'))
      }
      expect(r.stdout).toMatch(/^Usage: jenkins-build /)
      expect(r.stderr).toBe('')
    })

    it('a bad flag: exit status 2, what was wrong, and no step started', async () => {
      const r = await startCli(['--jbo', 'hello'], creds).done
      expect(r.code, describeRun(r)).toBe(2)
      expect(r.stderr).toMatch(
        /^jenkins-build: unknown option --jbo \(did you mean --job\b.*\)\nSee 'jenkins-build --help' for the flags\.\n$/
      )
      expect(r.stdout).toBe('')

      const noUrl = await startCli(['--job', 'hello']).done
      expect(noUrl.code, describeRun(noUrl)).toBe(2)
      expect(noUrl.stderr).toContain(
        'jenkins-build: no Jenkins URL: give --url URL or set JENKINS_URL'
      )
    })
  })
})

/** The exit status a shell reports: the code, or 128 + the signal that ended the process. */
function shellStatus(r: CliRun): number {
  return r.code ?? 128 + (r.signal ? constants.signals[r.signal] : 0)
}

/** The stack trace lines of a Node error (`    at …`). */
const STACK_FRAME = /^\s+at .*(:\d+:\d+\)?|<anonymous>)$/m

/**
 * Each test here has a test server of its own, and a TMPDIR of its own, in
 * which the step's temporary folder (`jenkins-action-step-*`) is made: what
 * it asserts on is what its one run did.
 */
describe.concurrent('jenkins-build cut short, and its messages', () => {
  async function withJenkins<T>(
    jobs: Record<string, JobSpec>,
    test: (jenkins: TestJenkins, env: Record<string, string>, temp: string) => Promise<T>
  ): Promise<T> {
    const jenkins = await startJenkins({ quietPeriodSec: 0, executors: 4, jobs })
    const temp = mkdtempSync(join(tmpdir(), 'jenkins-build-tmp-'))
    try {
      const env = {
        JENKINS_URL: jenkins.url,
        JENKINS_USER: 'admin',
        JENKINS_TOKEN: ADMIN_TOKEN,
        TMPDIR: temp
      }
      return await test(jenkins, env, temp)
    } finally {
      await jenkins.close()
      rmSync(temp, { recursive: true, force: true })
    }
  }

  /** The step folders left in `temp`. */
  const stepFolders = (temp: string): string[] =>
    readdirSync(temp).filter(name => name.startsWith('jenkins-action-step-'))

  /**
   * A 10-minute build that prints a line a second. A closed pipe shows only
   * when the command next writes to it, as for any writer (`yes | head`):
   * the console's next line is that write.
   */
  const SLEEPY: Record<string, JobSpec> = {
    sleepy: {
      script: {
        durationMs: 600_000,
        consoleLines: Array.from({ length: 600 }, (_, i) => `sleeping ${i + 1}`)
      }
    }
  }

  for (const [job, lines] of [
    ['sleepy', 2],
    ['hello', 3]
  ] as const) {
    it(`| head -${lines} (--job ${job}): the build this run started is stopped, status 141, no stack trace, no folder left`, async () => {
      const jobs: Record<string, JobSpec> =
        job === 'sleepy'
          ? SLEEPY
          : {
              hello: {
                script: {
                  durationMs: 20_000,
                  consoleLines: Array.from({ length: 20 }, (_, i) => `Hello ${i + 1}`)
                }
              }
            }
      await withJenkins(jobs, async (jenkins, env, temp) => {
        // Exactly the user's pipeline, in bash, with the status of the command itself.
        const r = await startCommand({
          command: 'bash',
          args: [
            '-c',
            `"$NODE" "$BIN" --job ${job} | head -${lines}; echo "status=\${PIPESTATUS[0]}"`
          ],
          env: { ...env, NODE: process.execPath, BIN }
        }).done
        expect(r.code, describeRun(r)).toBe(0)
        const shown = r.stdout.split('\n')
        expect(shown[lines], describeRun(r)).toBe('status=141')
        const number = /^Jenkins build \S+ #(\d+) started/m.exec(r.stdout)?.[1]
        const build = buildOf(jenkins, job, number)
        expect(build.result, describeRun(r)).toBe('ABORTED')
        // Stopped by this run's step: one stop, of that build.
        const stops = jenkins.requests.filter(q => q.method === 'POST' && q.path.endsWith('/stop'))
        expect(stops.map(q => q.path)).toEqual([`/job/${job}/${build.number}/stop`])
        // The command's own lines go to stderr once stdout is gone.
        expect(r.stderr).toContain(
          'The reader of stdout went away: cancelling the step as the runner cancels a workflow (SIGINT).\n'
        )
        expect(r.stderr).not.toMatch(STACK_FRAME)
        expect(r.stderr).not.toContain('EPIPE')
        expect(stepFolders(temp)).toEqual([])
      })
    })
  }

  it('a closed stdout: the post step runs after the main step is cancelled', async () => {
    await withJenkins(SLEEPY, async (jenkins, env, temp) => {
      // sed stops reading at the line that names the build.
      const r = await startCommand({
        command: 'bash',
        args: ['-c', `"$NODE" "$BIN" --job sleepy --verbose | sed '/ started: /q'`],
        env: { ...env, NODE: process.execPath, BIN }
      }).done
      const number = /^Jenkins build sleepy #(\d+) started/m.exec(r.stdout)?.[1]
      expect(buildOf(jenkins, 'sleepy', number).result, describeRun(r)).toBe('ABORTED')
      const said = r.stderr
      const closed = said.indexOf('The reader of stdout went away')
      const post = said.indexOf(
        'Post step: the bundle again, with the state the main step saved.\n'
      )
      expect(closed, describeRun(r)).toBeGreaterThanOrEqual(0)
      expect(post, describeRun(r)).toBeGreaterThan(closed)
      expect(said.slice(post)).toContain('Post step: exit status 0.\n')
      expect(said).not.toMatch(STACK_FRAME)
      expect(stepFolders(temp)).toEqual([])
    })
  })

  it('Ctrl+C: the same exit status through npx, npm exec and node dist/cli/index.js (SIGINT, 130 in a shell)', async () => {
    await withJenkins(SLEEPY, async (jenkins, env, temp) => {
      const ways: Array<[string, Spawned]> = [
        ['node', { command: process.execPath, args: [BIN, '--job', 'sleepy'], env, group: true }],
        [
          'npx',
          {
            command: 'npx',
            args: ['--no-install', 'jenkins-build', '--job', 'sleepy'],
            env,
            cwd: ROOT,
            group: true
          }
        ],
        [
          'npm exec',
          {
            command: 'npm',
            args: ['exec', '--no', '--', 'jenkins-build', '--job', 'sleepy'],
            env,
            cwd: ROOT,
            group: true
          }
        ]
      ]
      for (const [way, spec] of ways) {
        const cli = startCommand(spec)
        const [, number] = await cli.waitFor(/Jenkins build sleepy #(\d+) started/)
        // What a terminal does on Ctrl+C: SIGINT to the whole foreground group.
        cli.signal('SIGINT')
        const r = await cli.done
        expect(r.signal, `${way}: ${describeRun(r)}`).toBe('SIGINT')
        expect(shellStatus(r)).toBe(130)
        expect(buildOf(jenkins, 'sleepy', number).result, way).toBe('ABORTED')
        expect(r.stdout, way).toContain(
          `Error: The workflow was cancelled while waiting for Jenkins sleepy #${number}; stopped Jenkins build #${number} (stop; result ABORTED).\n`
        )
        expect(r.stdout + r.stderr, way).not.toMatch(STACK_FRAME)
      }
      expect(stepFolders(temp)).toEqual([])
    })
  }, 120_000)

  it('SIGTERM: the build is stopped as on Ctrl+C, and the command ends by SIGTERM (143 in a shell)', async () => {
    await withJenkins(SLEEPY, async (jenkins, env, temp) => {
      const cli = startCli(['--job', 'sleepy'], env)
      const [, number] = await cli.waitFor(/Jenkins build sleepy #(\d+) started/)
      cli.signal('SIGTERM')
      const r = await cli.done
      expect(r.signal, describeRun(r)).toBe('SIGTERM')
      expect(shellStatus(r)).toBe(143)
      expect(buildOf(jenkins, 'sleepy', number).result).toBe('ABORTED')
      expect(r.stdout).toContain(
        'Received SIGTERM: cancelling the step as the runner cancels a workflow (SIGINT).\n'
      )
      expect(stepFolders(temp)).toEqual([])
    })
  })

  it('--json after an error: an object with the error message, and no job-url for a job that does not exist', async () => {
    await withJenkins({ hello: { script: { durationMs: 100 } } }, async (_jenkins, env) => {
      const r = await startCli(['--job', 'nope', '--json'], env).done
      expect(r.code, describeRun(r)).toBe(1)
      const outputs = JSON.parse(r.stdout) as Record<string, string>
      expect(outputs).not.toHaveProperty('job-url')
      // The message the log ends with, as it shows there.
      const last = /^Error: (.*)$/m.exec(r.stderr)?.[1] ?? ''
      expect(last).toMatch(/\bnope\b/)
      expect(outputs.error).toBe(last)

      const usage = await startCli(['--jbo', 'hello', '--json'], env).done
      expect(usage.code, describeRun(usage)).toBe(2)
      expect(JSON.parse(usage.stdout)).toEqual({
        error: expect.stringMatching(/^unknown option --jbo \(did you mean --job\b/) as unknown
      })
    })
  })

  it('terminal wording: flags and variables, never workflow inputs or ${{ }} expressions', async () => {
    const jobs: Record<string, JobSpec> = {
      repo: { type: 'multibranch', jobs: { main: { script: { durationMs: 100 } } } }
    }
    await withJenkins(jobs, async (_jenkins, env) => {
      const { JENKINS_TOKEN: _token, ...noToken } = env
      const cases: Array<[string[], Record<string, string>, string]> = [
        [
          [],
          env,
          'Error: --job is required unless --jobs is set or --list-jobs is true: expected `folder/job`, `job/folder/job/job`, or the job URL on the same server as --url (or JENKINS_URL).\n'
        ],
        [
          ['--job', 'repo'],
          noToken,
          "Error: --user (or JENKINS_USER) ('admin') is set but --token (or JENKINS_TOKEN) is empty: set --token (or JENKINS_TOKEN) to the user's API token (or leave both empty for anonymous access).\n"
        ],
        [
          ['--job', 'repo'],
          env,
          'Set --branch to the one to build (for example `--branch main` or `--branch PR-<number>`).\n'
        ]
      ]
      for (const [args, variables, message] of cases) {
        const r = await startCli(args, variables).done
        expect(r.code, describeRun(r)).toBe(1)
        expect(r.stdout).toContain(message)
        expect(r.stdout).not.toMatch(/Input '|\$\{\{/)
      }
    })
  })

  it("failed tests: each line keeps the test's name", async () => {
    const jobs: Record<string, JobSpec> = {
      tested: {
        script: {
          durationMs: 100,
          result: 'UNSTABLE',
          tests: {
            suites: [
              {
                name: 'CalcTest',
                cases: [
                  { className: 'CalcTest', name: 'adds' },
                  {
                    className: 'CalcTest',
                    name: 'divides by zero',
                    status: 'FAILED',
                    errorDetails: 'expected: <ArithmeticException> but was: <Infinity>'
                  }
                ]
              }
            ]
          }
        }
      }
    }
    await withJenkins(jobs, async (jenkins, env) => {
      const r = await startCli(['--job', 'tested'], env).done
      expect(r.code, describeRun(r)).toBe(1)
      const number = /Jenkins build tested #(\d+) started/.exec(r.stdout)?.[1]
      buildOf(jenkins, 'tested', number)
      expect(r.stdout).toContain(
        `\nError: divides by zero: expected: <ArithmeticException> but was: <Infinity>\nCalcTest — ${jenkins.url}/job/tested/${number}/testReport/`
      )
    })
  })
})

describe('stack traces of jenkins-build', () => {
  it("every source of the bundles' maps that is a file of the clone resolves to it", () => {
    for (const bundle of ['dist/index.js.map', 'dist/cli/index.js.map']) {
      const path = join(ROOT, bundle)
      const map = JSON.parse(readFileSync(path, 'utf8')) as {
        sourceRoot?: string
        sources: string[]
      }
      // Resolved as source-map-support and Node do: the map's folder, then sourceRoot, then the source.
      const files = map.sources
        .filter(source => /\/(src|node_modules)\//.test(source))
        .map(source => join(path, '..', map.sourceRoot ?? '', source))
      expect(
        files.some(
          file => file === join(ROOT, 'src', bundle.includes('cli') ? 'cli/main.ts' : 'main.ts')
        )
      ).toBe(true)
      const missing = files.filter(file => !existsSync(file))
      expect(missing, bundle).toEqual([])
    }
  })

  it('name source files that exist (src/cli/*.ts, not dist/src/cli/*.ts)', () => {
    // A copy of the command whose action.yml has no inputs: it fails with a stack trace.
    const copy = mkdtempSync(join(tmpdir(), 'jenkins-build-copy-'))
    try {
      mkdirSync(join(copy, 'dist'))
      cpSync(join(ROOT, 'dist', 'cli'), join(copy, 'dist', 'cli'), { recursive: true })
      cpSync(join(ROOT, 'dist', 'index.js'), join(copy, 'dist', 'index.js'))
      writeFileSync(join(copy, 'action.yml'), 'name: no inputs\n')
      symlinkSync(join(ROOT, 'src'), join(copy, 'src'))
      const r = spawnSync(process.execPath, [join(copy, 'dist', 'cli', 'index.js'), '--job', 'x'], {
        encoding: 'utf8',
        env: userEnv()
      })
      expect(r.stderr).toContain('has no inputs: block')
      const files = [...r.stderr.matchAll(/\(file:\/\/(\/[^:)]+\.ts):\d+:\d+\)/g)].map(m => m[1])
      expect(files, r.stderr).toContain(join(copy, 'src', 'cli', 'main.ts'))
      for (const file of files) expect(existsSync(file ?? ''), file).toBe(true)
    } finally {
      rmSync(copy, { recursive: true, force: true })
    }
  })
})
