/**
 * `npm run mutation` mutates the files of stryker.config.mjs's list, and
 * docs/mutation.md says why each is there: a file merged or moved must leave
 * both, or the run stops on a file that is not there.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { expect, it } from 'vitest'
import { ROOT } from '../../scripts/action-runner.js'

it("every file of the mutation run exists, and docs/mutation.md's table names exactly them", async () => {
  const config: unknown = await import(pathToFileURL(join(ROOT, 'stryker.config.mjs')).href)
  const mutate = (config as { default: { mutate: string[] } }).default.mutate
  expect(mutate.length).toBeGreaterThan(10)
  expect(mutate.filter(file => !existsSync(join(ROOT, file)))).toEqual([])

  const doc = readFileSync(join(ROOT, 'docs/mutation.md'), 'utf8')
  const table = doc.split('## The files, and why these')[1]?.split('\n## ')[0] ?? ''
  const named = [...table.matchAll(/^\| `(src\/[^`]+)`/gm)].map(match => match[1])
  expect(named.toSorted()).toEqual(mutate.toSorted())
})
