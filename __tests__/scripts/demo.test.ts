import { spawnSync } from 'node:child_process'
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { ROOT } from '../../scripts/action-runner.js'

/**
 * `npm run demo` is the README's first command: it must pass, show every
 * section of the product it advertises, and print no warning of its own
 * making (its parameters must be ones its sample job defines).
 */
describe('npm run demo', () => {
  test('passes, with no warning, showing tests, stages, artifacts and parameters', () => {
    const tsx = join(ROOT, 'node_modules', '.bin', 'tsx')
    const demo = spawnSync(tsx, ['scripts/demo.ts'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 90_000,
      env: { ...process.env, NO_COLOR: '' }
    })
    const out = `${demo.stdout}${demo.stderr}`
    // The demo keeps its workspace for the reader to look at; the test does not need it.
    const kept = /^The step's workspace, with the downloaded artifacts: (.+)$/m.exec(out)?.[1]
    if (kept && existsSync(kept)) rmSync(kept, { recursive: true, force: true })
    expect(demo.status, out).toBe(0)
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
})
