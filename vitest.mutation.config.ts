import { configDefaults, defineConfig } from 'vitest/config'
import base from './vitest.config.js'

// The unit tests of src/'s folders, for `npm run mutation`
// (stryker.config.mjs). Left out: the end-to-end tests, which run the
// committed bundle that no mutant reaches, and the top-level tests of the
// documentation, the folder rules and `npm run local-action`, which spawn
// processes or lint, cost seconds a mutant and decide nothing in these files.
// More are left out because they may run on the wall clock, so on a
// loaded machine a mutant would be killed or not by the clock (and Stryker
// refuses to start when its first run fails): transport/limits.test.ts (stall
// timers in milliseconds), and the follower's tests (follow-one-build,
// schedule, queue-reason), whose virtual clock is a vi.mock of util/wait.js:
// in one module graph (isolate: false) a file that loaded util/wait.js before
// it leaves the real sleep in place. A clock passed in (abortRemote's sleep)
// works here.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    isolate: false,
    include: ['__tests__/{util,jenkins,inputs,outcome,follow,step,multi}/**/*.test.ts'],
    exclude: [
      ...(base.test?.exclude ?? configDefaults.exclude),
      '__tests__/follow/follow-one-build.test.ts',
      '__tests__/follow/schedule.test.ts',
      '__tests__/follow/queue-reason.test.ts',
      '__tests__/jenkins/transport/limits.test.ts'
    ]
  }
})
