// Makes the source maps of a bundle built into a nested folder point at the
// sources. ncc writes each source as '../' + its path from the working
// directory (its sourceMapBasePrefix, which the ncc command line does not
// expose), right for a bundle one folder down (dist/index.js) but one level
// short for dist/cli/index.js, whose stack traces named dist/src/cli/main.ts.
// A source map's sourceRoot is prefixed to every source, and both Node's
// --enable-source-maps and the source-map-support that ncc registers resolve
// the result against the map's own folder: so the map gets the missing levels
// as its sourceRoot. Usage: node scripts/source-root.mjs MAP...
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

for (const path of process.argv.slice(2)) {
  const map = JSON.parse(readFileSync(path, 'utf8'))
  // Where '../' + a path from here lands as ncc meant it: one folder below here.
  const up = relative(dirname(resolve(path)), join(process.cwd(), 'dist'))
  map.sourceRoot = up === '' ? '' : `${up.split(/[\\/]/).join('/')}/`
  writeFileSync(path, JSON.stringify(map))
}
