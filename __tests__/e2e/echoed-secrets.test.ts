/**
 * End to end: a Jenkins (or a proxy in front of it) whose queue `why` echoes
 * the request's session cookie and the session's crumb (test server option
 * `hostile.echoRequest`). The step registers both with the runner
 * (`::add-mask::`) the moment it gets them, before any line could show them,
 * redacts them from its own status lines, and sends the crumb with POSTs only.
 * The build's console then quotes them too, raw as Jenkins text is printed:
 * only the masks catch that line, on the runner and in the jenkins-build
 * command.
 */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT, node24, startAction, type ActionRun } from '../../scripts/action-runner.js'
import { startJenkins, type TestJenkins } from '../../test-server/index.js'
import { adminPost, auth, describeRun, runnerView, startBuild, untilServer } from './helpers.js'

const NODE24 = node24()
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  bin: Record<string, string>
}
const BIN = join(ROOT, PACKAGE.bin['jenkins-build'] ?? '')

/** The crumbs and session ids the server handed out since `from` of each. */
function secretsSince(jenkins: TestJenkins, crumbs: number, sessions: number): string[] {
  return [...jenkins.issuedCrumbs.slice(crumbs), ...jenkins.issuedSessions.slice(sessions)]
}

/**
 * Blocks `job` with a long build from outside, so that the step's item waits
 * in the queue with a `why`. Unblocking lets the step's build start, and its
 * console then quotes `secrets` too (raw: the runner's masker must catch it).
 */
async function blocked(
  jenkins: TestJenkins,
  job: string
): Promise<(secrets: () => string[]) => Promise<void>> {
  const spec = jenkins.state.findJob(job)!.script
  const normal = spec.durationMs
  spec.durationMs = 60_000
  const gate = await startBuild(jenkins, job)
  spec.durationMs = normal
  return async secrets => {
    await adminPost(jenkins, `/job/${job}/${gate.number}/stop`)
    const build = await untilServer(
      () => jenkins.builds(job).find(b => b.number !== gate.number && b.building),
      `the step's build of ${job}`
    )
    jenkins.appendConsole(job, build.number, `proxy log: ${secrets().join(' ')}`)
  }
}

// One at a time: each counts the crumbs and sessions handed out during its run.
describe('a queue why that echoes the session cookie and the crumb', () => {
  let jenkins: TestJenkins
  beforeAll(async () => {
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      executors: 4,
      hostile: { text: '', fields: ['why'], echoRequest: true },
      jobs: {
        // Not concurrent: a running build keeps the step's item queued.
        echoed: { script: { durationMs: 2000 } },
        'echoed-cli': { script: { durationMs: 2000 } }
      }
    })
  })
  afterAll(() => jenkins.close())

  it('the step masks both before any line shows them, redacts its why line, and sends the crumb with POSTs only', async () => {
    const unblock = await blocked(jenkins, 'echoed')
    const [crumbs, sessions] = [jenkins.issuedCrumbs.length, jenkins.issuedSessions.length]
    const firstRequest = jenkins.requests.length
    // The password, not the API token: the crumb and its session are needed.
    const step = startAction(
      { ...auth(jenkins, 'password'), job: 'echoed' },
      { node: NODE24, killAfterMs: 60_000 }
    )
    await step.waitForOutput(/Waiting in the Jenkins queue: why: /)
    await unblock(() => secretsSince(jenkins, crumbs, sessions))
    const r: ActionRun = await step.done
    expect(r.code, describeRun(r)).toBe(0)
    expect(r.outputs.result).toBe('SUCCESS')

    const secrets = secretsSince(jenkins, crumbs, sessions)
    expect(jenkins.issuedCrumbs.length).toBeGreaterThan(crumbs)
    expect(jenkins.issuedSessions.length).toBeGreaterThan(sessions)
    const lines = runnerView(r.stdout)
    const masked = new Set<string>()
    let whyLines = 0
    for (const line of lines) {
      if (line.command?.name === 'add-mask') {
        masked.add(line.command.value)
        continue
      }
      for (const secret of secrets) {
        if (line.text.includes(secret))
          expect(masked, `unmasked at: ${line.text}`).toContain(secret)
      }
      if (line.text.includes('Waiting in the Jenkins queue: why: ')) {
        whyLines++
        // Jenkins echoed them; the step's own line shows neither (our redaction list holds them).
        expect(line.text).toMatch(
          new RegExp(`why: ${jenkins.cookieName}=\\*\\*\\* crumb \\*\\*\\* `)
        )
        for (const secret of secrets) expect(masked).toContain(secret)
      }
    }
    expect(whyLines).toBeGreaterThan(0)
    // The console quoted them raw (Jenkins text is printed as it comes): the runner masks that line.
    const quoted = lines.filter(line => line.text.startsWith('proxy log: '))
    expect(quoted.map(line => line.text)).toEqual([`proxy log: ${secrets.join(' ')}`])
    // Nowhere else: not in stderr, the outputs, the summary or the saved state.
    const left = [r.stderr, JSON.stringify(r.outputs), r.summary, JSON.stringify(r.state)]
    for (const secret of secrets) for (const text of left) expect(text).not.toContain(secret)

    // The crumb went with the POST (CrumbFilter checked it), and with no GET.
    const own = jenkins.requests.slice(firstRequest).filter(q => q.user === 'admin')
    const trigger = own.find(q => q.method === 'POST' && q.path === '/job/echoed/build')
    expect(trigger).toMatchObject({ crumbHeader: true, crumbChecked: true, status: 201 })
    const gets = own.filter(q => q.method === 'GET' && q.auth === 'password')
    expect(gets.length).toBeGreaterThan(3)
    expect(gets.filter(q => q.crumbHeader)).toEqual([])
  }, 60_000)

  it('jenkins-build masks them in what it prints', async () => {
    const unblock = await blocked(jenkins, 'echoed-cli')
    const [crumbs, sessions] = [jenkins.issuedCrumbs.length, jenkins.issuedSessions.length]
    const child = spawn(process.execPath, [BIN, '--job', 'echoed-cli'], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        JENKINS_URL: jenkins.url,
        JENKINS_USER: 'admin',
        JENKINS_TOKEN: 'admin'
      },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out += chunk))
    const killer = setTimeout(() => child.kill('SIGKILL'), 50_000)
    const waited = setInterval(() => {
      if (out.includes('Waiting in the Jenkins queue: why: ')) {
        clearInterval(waited)
        void unblock(() => secretsSince(jenkins, crumbs, sessions))
      }
    }, 50)
    const code = await new Promise<number | null>(resolve => child.on('close', resolve))
    clearTimeout(killer)
    clearInterval(waited)
    expect(code, out).toBe(0)
    expect(out).toContain(`Waiting in the Jenkins queue: why: ${jenkins.cookieName}=*** crumb ***`)
    const secrets = secretsSince(jenkins, crumbs, sessions)
    expect(jenkins.issuedCrumbs.length).toBeGreaterThan(crumbs)
    expect(jenkins.issuedSessions.length).toBeGreaterThan(sessions)
    for (const secret of secrets) expect(out).not.toContain(secret)
    // The bundle printed the console line raw; the command masked it as the runner would.
    expect(out).toContain(`proxy log: ${secrets.map(() => '***').join(' ')}\n`)
  }, 60_000)
})
