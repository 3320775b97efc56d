/**
 * `npm run build` builds dist/ (what the action runs), `npm run typecheck`
 * checks the types, and every check of the committed bundle (.ci/run, CI,
 * the release) runs the build and then fails on any difference in dist/.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { ROOT } from '../../scripts/action-runner.js'

const scripts = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>
  }
).scripts

/** The bundle's build, then a check that fails when dist/ changed: its lines, in order. */
function buildThenCheck(lines: string[], where: string): void {
  const build = lines.findIndex(line => line.trim() === 'npm run build')
  expect(build, `${where} runs npm run build`).toBeGreaterThanOrEqual(0)
  const check = lines.findIndex(
    (line, i) => i > build && line.includes('git status --porcelain -- dist')
  )
  expect(check, `${where} checks dist/ after the build`).toBeGreaterThan(build)
  expect(lines.slice(check).some(line => line.trim() === 'exit 1')).toBe(true)
}

describe('the build scripts', () => {
  it('build empties dist/, then bundles dist/index.js and dist/cli/index.js; typecheck checks types; package is build', () => {
    // ncc leaves files it did not write: a chunk whose name changed would stay, committed.
    expect(scripts.build).toMatch(
      /^node -e "fs\.rmSync\('dist', \{ recursive: true, force: true \}\)" && ncc build src\/index\.ts -o dist /
    )
    expect(scripts.build).toContain('ncc build src/cli/index.ts -o dist/cli ')
    expect(scripts.typecheck).toBe('tsc --noEmit -p tsconfig.all.json')
    expect(scripts.package).toBe('npm run build')
  })

  it("dist/licenses.txt names the packages of every chunk: the entry's and undici's, loaded later", () => {
    const names = readFileSync(join(ROOT, 'dist/licenses.txt'), 'utf8').split('\n')
    for (const name of ['@actions/core', '@actions/github', 'tough-cookie', 'undici']) {
      expect(names, name).toContain(name)
    }
  })

  it('.ci/run, CI and the release build dist/ and fail when it is stale', () => {
    buildThenCheck(readFileSync(join(ROOT, '.ci/run'), 'utf8').split('\n'), '.ci/run')
    for (const [file, job] of [
      ['.github/workflows/ci.yml', 'dist'],
      ['.github/workflows/release.yml', 'release']
    ] as const) {
      const workflow = parse(readFileSync(join(ROOT, file), 'utf8')) as {
        jobs: Record<string, { steps: Array<{ run?: string }> }>
      }
      const steps = Object.values(workflow.jobs).flatMap(j => j.steps)
      buildThenCheck(
        steps.flatMap(step => (step.run ?? '').split('\n')),
        `${file} (${job})`
      )
    }
  })
})
