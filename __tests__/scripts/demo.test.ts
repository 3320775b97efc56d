import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { ROOT } from '../../scripts/action-runner.js'

const TSX = join(ROOT, 'node_modules', '.bin', 'tsx')

/** The step folders (src/cli/step.ts) in `dir`. */
function stepFolders(dir: string): string[] {
  return readdirSync(dir).filter(name => name.startsWith('jenkins-action-step-'))
}

/** Whether the step in `dir` has saved its queue item (GITHUB_STATE, src/step/remote-work.ts). */
function triggered(dir: string): boolean {
  try {
    return /"queueId":\d+/.test(readFileSync(join(dir, 'state'), 'utf8'))
  } catch {
    return false
  }
}

// A temporary directory of the demo's own: other suites' steps come and go in the shared one.
let temp: string
afterEach(() => rmSync(temp, { recursive: true, force: true }))
function demoEnv(): NodeJS.ProcessEnv {
  temp = mkdtempSync(join(tmpdir(), 'demo-tmp-'))
  return { ...process.env, NO_COLOR: '', TMPDIR: temp, TMP: temp, TEMP: temp }
}

/**
 * `npm run demo` is the README's first command: it must pass, show every
 * section of the product it advertises, and print no warning of its own
 * making (its parameters must be ones its sample job defines).
 */
describe('npm run demo', () => {
  test('passes, with no warning, showing tests, stages, artifacts and parameters', () => {
    const demo = spawnSync(TSX, ['scripts/demo.ts'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 90_000,
      env: demoEnv()
    })
    const out = `${demo.stdout}${demo.stderr}`
    expect(demo.status, out).toBe(0)
    // The step's temporary folder went with the step.
    expect(stepFolders(temp)).toEqual([])
    expect(out).not.toContain('::warning')
    // Piped output carries no terminal escapes.
    expect(out).not.toContain('\x1b[')
    expect(out).toMatch(/^── Step passed \(exit code 0\)/m)
    // The parameters it passes reach the build (the console echoes them)…
    expect(out).toMatch(/^ENV=dev\nBRANCH=feature\/x\nPR=17$/m)
    // …and the workflow it shows writes them as a workflow author would.
    expect(out).toContain('PR=${{ github.event.number }}')
    expect(out).toMatch(/^::error title=divides by zero::/m)
    expect(out).toMatch(/^result = UNSTABLE$/m)
    expect(out).toMatch(/^tests-failed = 2$/m)
    for (const section of ['Failed tests', 'Stages', 'Artifacts', 'Parameters']) {
      expect(out).toContain(`<h3>${section}</h3>`)
    }
    expect(out).toContain('<td><code>PR</code></td><td>17</td>')
    expect(out).toMatch(/^artifacts = \["jenkins-artifacts\/build\/libs\/service-1\.0\.jar",/m)
  }, 120_000)

  test.skipIf(process.platform === 'win32')(
    'Ctrl+C cancels the step as the runner would, and leaves no temporary folder behind',
    async () => {
      const demo = spawn(TSX, ['scripts/demo.ts'], { cwd: ROOT, env: demoEnv() })
      let out = ''
      demo.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
      demo.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()))
      const exited = new Promise<number | null>(resolve => demo.on('close', code => resolve(code)))
      // The step has triggered its build once it saved the queue item for its post step (the build then waits 6 s at its input).
      while (!stepFolders(temp).some(dir => triggered(join(temp, dir)))) {
        if (demo.exitCode !== null) throw new Error(`the demo ended first:\n${out}`)
        await new Promise(resolve => setTimeout(resolve, 50))
      }
      demo.kill('SIGINT')
      const code = await exited
      expect(out).toContain(
        'demo: Received SIGINT: cancelling the step as the runner cancels a workflow (SIGINT).'
      )
      expect(out).toMatch(/^Received SIGINT: the workflow was cancelled\.$/m)
      expect(code, out).toBe(130)
      expect(stepFolders(temp)).toEqual([])
    },
    120_000
  )
})
