/**
 * src/main.ts's run() ends with a failing exit status when the step fails,
 * even where @actions/core is replaced by a stand-in whose setFailed only
 * records the failure, as @github/local-action's does: that status is what
 * `npm run local-action` exits with.
 */
import { afterEach, expect, test, vi } from 'vitest'

const failures: string[] = []

vi.mock('@actions/core', async importOriginal => ({
  ...(await importOriginal<typeof import('@actions/core')>()),
  // @github/local-action's stand-in: records the failure, leaves process.exitCode alone.
  setFailed: (message: string) => failures.push(message),
  saveState: () => undefined,
  getState: () => ''
}))

afterEach(() => {
  process.exitCode = undefined
  failures.length = 0
})

test('a failed step sets process.exitCode to 1 itself', async () => {
  const { run } = await import('../src/main.js')
  vi.stubEnv('INPUT_URL', '')
  process.exitCode = undefined
  await run()
  expect(failures).toEqual([expect.stringMatching(/url/)])
  expect(process.exitCode).toBe(1)
})
