// ncc writes one license file per chunk ([name].licenses.txt): with a single
// name, the last chunk's would overwrite the others'. This joins them into
// dist/licenses.txt, the entry chunk's first, and removes the parts.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const dir = process.argv[2] ?? 'dist'
const parts = readdirSync(dir)
  .filter(name => name.endsWith('.licenses.txt'))
  .sort(
    (a, b) => Number(b.startsWith('main.')) - Number(a.startsWith('main.')) || a.localeCompare(b)
  )
if (parts.length === 0) throw new Error(`join-licenses: no *.licenses.txt in ${dir}`)
writeFileSync(
  join(dir, 'licenses.txt'),
  parts.map(name => readFileSync(join(dir, name), 'utf8')).join('')
)
for (const name of parts) rmSync(join(dir, name))
