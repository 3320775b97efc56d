/**
 * Today's action: the bundle built from the commit before issue 10 changed
 * how a build is followed, so that the new schedule and the one it replaces
 * run in the same bench, against the same test server, at the same time.
 * Built once per ref into node_modules/.cache and reused.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from '../../scripts/action-runner.js'
import { log } from '../util.js'

/** main before issue 10: the schedule it replaces (poll-policy.ts of 2026-11-26). */
export const TODAY_REF = 'bcf0537'
/** Bumped when the way today's bundle is built changes, so a stale cache is not reused. */
const BUILD_RECIPE = 2

/** The path of today's bundle (built from `ref` on first use: git archive of src/, then ncc). */
export function todayBundle(ref = TODAY_REF): string {
  const dir = join(
    ROOT,
    'node_modules',
    '.cache',
    'jenkins-build-action-bench',
    `today-${ref}-${BUILD_RECIPE}`
  )
  const bundle = join(dir, 'dist', 'index.js')
  if (existsSync(bundle)) return bundle
  log(`building today's bundle from ${ref} (once, into ${dir})`)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  // Inside node_modules/.cache, the sources resolve their packages from this
  // checkout's node_modules (the dependencies are the same at that ref).
  const tar = execFileSync(
    'git',
    ['-C', ROOT, 'archive', ref, 'src', 'tsconfig.json', 'package.json'],
    {
      maxBuffer: 64 * 1024 * 1024
    }
  )
  execFileSync('tar', ['-x', '-C', dir], { input: tar })
  execFileSync(
    join(ROOT, 'node_modules', '.bin', 'ncc'),
    // The flags of `npm run build`, so that both bundles load the same way.
    [
      'build',
      join(dir, 'src', 'index.ts'),
      '-o',
      join(dir, 'dist'),
      '--source-map',
      '--license',
      'licenses.txt',
      '--quiet'
    ],
    { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] }
  )
  if (!existsSync(bundle)) throw new Error(`bench: ncc did not write ${bundle}`)
  return bundle
}
