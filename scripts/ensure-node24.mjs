// Installs Node 24 (the runtime action.yml declares) into tools/node24 when
// it is missing, so that `npm test` and `npm run bench` work right after
// `npm ci` on a fresh clone. It comes from the npm registry's `node` package.
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'tools', 'node24')
const binary = join(dir, 'node_modules', '.bin', 'node')
if (!existsSync(binary)) {
  console.log('Installing Node 24 into tools/node24 (npm ci)...')
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--prefix', dir], { stdio: 'inherit' })
}
const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim()
if (!version.startsWith('v24.')) {
  console.error(`tools/node24 holds ${version}, not Node 24`)
  process.exit(1)
}
