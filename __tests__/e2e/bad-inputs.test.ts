/**
 * End to end: every row of the bad-input table against the bundle. Each run
 * must exit non-zero with an error naming the input, leak no secret, and
 * send nothing: `url` (and any URL in `job`) points at a live test server,
 * so "zero requests" is measured, not assumed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorAnnotation } from '../../scripts/action-runner.js'
import { startJenkins, type TestJenkins } from '../../test-server/index.js'
import { badInputs, fixtureSecrets, validInputs } from '../fixtures/bad-inputs.js'
import { describeRun, run, RUNTIMES } from './helpers.js'

/** The table's placeholder server, replaced by the live one in every value. */
const PLACEHOLDER = '127.0.0.1:1'

describe('the bad-input table against the bundle', () => {
  let jenkins: TestJenkins
  let host: string
  beforeAll(async () => {
    jenkins = await startJenkins({
      contextPath: '/jenkins',
      jobs: { folder: { type: 'folder', jobs: { job: {} } } }
    })
    host = new URL(jenkins.url).host
  })
  afterAll(() => jenkins.close())

  it('the valid inputs it starts from do reach the live server (so zero requests means something)', async () => {
    const live = Object.fromEntries(
      Object.entries(validInputs).map(([k, v]) => [k, v.replaceAll(PLACEHOLDER, host)])
    )
    const r = await run(process.execPath, { ...live, 'list-jobs': 'true', job: 'folder' })
    expect(jenkins.requests.length, describeRun(r)).toBeGreaterThan(0)
    jenkins.requests.length = 0
  })

  describe.concurrent('rows', () => {
    it.each(badInputs.map((row, i) => ({ ...row, i })))('$name', async ({ inputs, error, i }) => {
      const merged = Object.fromEntries(
        Object.entries({ ...validInputs, ...inputs }).map(([k, v]) => [
          k,
          v.replaceAll(PLACEHOLDER, host)
        ])
      )
      const runtime = RUNTIMES[i % RUNTIMES.length] ?? RUNTIMES[0]
      const r = await run(runtime?.path ?? process.execPath, merged, {
        env: { RUNNER_DEBUG: '1' }
      })
      expect(r.code, describeRun(r)).not.toBe(0)
      expect(errorAnnotation(r)).toMatch(error)
      // `::add-mask::` lines are consumed by the runner (that is how a value
      // gets masked) and never shown; everything else would be.
      const shown = r.stdout
        .split('\n')
        .filter(line => !line.startsWith('::add-mask::'))
        .join('\n')
      const everything = [shown, r.stderr, JSON.stringify(r.outputs), r.summary, r.env].join('\n')
      for (const secret of fixtureSecrets) expect(everything).not.toContain(secret)
    })
  })

  it('the server received zero requests from all of them', () => {
    expect(jenkins.requests).toEqual([])
  })
})
