import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { node24, ROOT, runAction } from '../../scripts/action-runner.js'
import { HELP } from '../../test-server/cli-options.js'

/**
 * `npm run server` as a user runs it: spawned, its start-up lines read for
 * the login it made, and the bundle run against it with that login, by the
 * very commands it prints (jenkins-build with the API token: Jenkins checks
 * no crumb) and with the password (crumb and session). Its --log lines show
 * how each request signed in; marker requests around each run delimit that
 * run's lines.
 */
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx')
const TOKEN = '11c0ffee' + '0'.repeat(26)

interface Cli {
  child: ChildProcess
  stdout(): string
  stderr(): string
  /** Resolves once stdout matches. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>
}

function startCli(args: string[]): Cli {
  const child = spawn(TSX, ['test-server/cli.ts', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let stdout = ''
  let stderr = ''
  const waiters = new Set<() => void>()
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
    for (const check of [...waiters]) check()
  })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const exited = new Promise<number | null>(resolve => child.on('close', code => resolve(code)))
  const waitFor = (pattern: RegExp): Promise<RegExpExecArray> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const match = pattern.exec(stdout)
        if (!match) return
        waiters.delete(check)
        resolve(match)
      }
      waiters.add(check)
      void exited.then(code => {
        if (!waiters.has(check)) return
        waiters.delete(check)
        reject(new Error(`server exited (${code}) before ${pattern}:\n${stdout}\n${stderr}`))
      })
      check()
    })
  return { child, stdout: () => stdout, stderr: () => stderr, waitFor, exited }
}

/** Runs a shell command line in the repository root, as a user pastes it. */
function shell(command: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    child.on('error', reject)
    child.on('close', code => {
      clearTimeout(killer)
      resolve({ code, stdout, stderr })
    })
  })
}

describe('npm run server, and the action pointed at it by its start-up lines', () => {
  let cli: Cli
  let startup: string

  beforeAll(async () => {
    cli = startCli([
      '--port',
      '0',
      '--log',
      '--no-samples',
      '--user',
      'alice:s3cret',
      '--token',
      `alice:${TOKEN}`,
      '--job',
      'team/app:300ms:FAILURE',
      '--param',
      'team/app:ENV:choice=dev|prod',
      '--job',
      'ok:200ms'
    ])
    startup = (await cli.waitFor(/^[^]*?Stop it with Ctrl\+C\.\n/))[0]
  })

  afterAll(async () => {
    cli.child.kill('SIGTERM')
    expect(await cli.exited).toBe(0)
  })

  /** Sends a request the log shows as `GET /<name>`; where its line starts and ends in stdout. */
  async function marker(url: string, name: string): Promise<{ start: number; end: number }> {
    await (await fetch(`${url}/${name}`)).arrayBuffer()
    const line = await cli.waitFor(new RegExp(`^GET /${name} \\d+ .*\\n`, 'm'))
    return { start: line.index, end: line.index + line[0].length }
  }

  test('prints the login it made, its jobs, and the inputs that point the action at it', () => {
    expect(startup).toMatch(/^Jenkins test server at http:\/\/127\.0\.0\.1:\d+\/$/m)
    expect(startup).toContain(
      `Users:\n  alice: password s3cret, API token ${TOKEN} (permissions read, build, configure, cancel)\n`
    )
    expect(startup).toContain('Jobs: team/app, ok\n')
    expect(startup).toMatch(/^ {4}user: alice\n {4}token: 11c0ffee0+\n {4}job: team\/app$/m)
  })

  test('API token: the printed commands run the bundle through jenkins-build; Jenkins checks no crumb', async () => {
    const url = /^ {4}url: (\S+)$/m.exec(startup)?.[1] ?? ''
    const exports = /^ {2}(export JENKINS_URL=.*)$/m.exec(startup)?.[1] ?? ''
    const command = /^ {2}(npx --no-install jenkins-build .*)$/m.exec(startup)?.[1] ?? ''
    expect(exports).toBe(`export JENKINS_URL=${url} JENKINS_USER=alice JENKINS_TOKEN=${TOKEN}`)
    expect(command).toBe('npx --no-install jenkins-build --job team/app')
    const run = await shell(`${exports}\n${command} -p ENV=prod --json`)
    // The job was asked to fail: the step fails with it.
    expect(run.code, run.stderr).toBe(1)
    const outputs = JSON.parse(run.stdout) as Record<string, string>
    expect(outputs.result).toBe('FAILURE')
    expect(outputs['build-url']).toBe(`${url}/job/team/job/app/1/`)
    expect(run.stderr).toContain(
      "ENV=prod\nteam/app runs 0.3 sec and ends FAILURE, as the test server's command line asked\nFinished: FAILURE\n"
    )
    // The token is masked from the first line, as on the runner.
    expect(run.stdout + run.stderr).not.toContain(TOKEN)

    const lines = cli.stdout().slice(startup.length, (await marker(url, 'after-token-run')).start)
    expect(lines).toContain(
      'POST /job/team/job/app/buildWithParameters?delay=0sec 201 (alice by API token, trigger)\n'
    )
    expect(lines).not.toContain('crumb checked')
    expect(lines).not.toContain('by password')
    expect(lines).not.toMatch(/^POST (?!\/job\/team\/job\/app\/buildWithParameters)/m)
  })

  test('password: the bundle gets a crumb and a session, and Jenkins checks the crumb', async () => {
    const url = /^ {4}url: (\S+)$/m.exec(startup)?.[1] ?? ''
    const [, user = '', password = ''] = /^ {2}(\w+): password (\S+),/m.exec(startup) ?? []
    const from = (await marker(url, 'before-password-run')).end
    const run = await runAction(
      { url, user, token: password, job: 'ok' },
      { node: node24(), killAfterMs: 60_000 }
    )
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(run.outputs.result).toBe('SUCCESS')
    expect(run.outputs['build-url']).toBe(`${url}/job/ok/1/`)

    const lines = cli.stdout().slice(from, (await marker(url, 'after-password-run')).start)
    expect(lines).toContain('GET /crumbIssuer/api/json 200 (alice by password, crumb)\n')
    expect(lines).toContain(
      'POST /job/ok/build?delay=0sec 201 (alice by password, crumb checked, trigger)\n'
    )
    expect(lines).not.toContain('by API token')
  })
})

describe('npm run server: --help, bad flags, a busy port', () => {
  test('--help prints the help on stdout and exits 0', async () => {
    const cli = startCli(['--help'])
    expect(await cli.exited).toBe(0)
    expect(cli.stdout()).toBe(`${HELP}\n`)
    expect(cli.stderr()).toBe('')
  })

  test('a bad flag: one line naming it, where to look, exit 2, nothing started', async () => {
    const cli = startCli(['--job', 'x:soon'])
    expect(await cli.exited).toBe(2)
    expect(cli.stderr()).toBe(
      "test server: --job: 'soon' is not a duration: 500ms, 30s, 2m or 1h (at most 24h)\nSee npm run server -- --help for the flags.\n"
    )
    expect(cli.stdout()).toBe('')
  })

  test('a port in use: says so and how to choose another, exit 1', async () => {
    const taken = createServer()
    await new Promise<void>(resolve => taken.listen(0, '127.0.0.1', resolve))
    const { port } = taken.address() as AddressInfo
    try {
      const cli = startCli(['--port', String(port)])
      expect(await cli.exited).toBe(1)
      expect(cli.stderr()).toBe(
        `test server: port ${port} is in use (another test server?): choose another with --port N, or --port 0 for a free one\n`
      )
    } finally {
      await new Promise(resolve => taken.close(resolve))
    }
  })
})
