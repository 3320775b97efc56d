import { configDefaults, defineConfig } from 'vitest/config'
import base from './vitest.config.js'

// The unit tests of src/'s folders, for `npm run mutation`
// (stryker.config.mjs). Left out: the end-to-end tests, which run the
// committed bundle that no mutant reaches, and the top-level tests of the
// documentation, the folder rules and `npm run local-action`, which spawn
// processes or lint, cost seconds a mutant and decide nothing in these files.
// Two more are left out because they run on the wall clock in milliseconds,
// so on a loaded machine a mutant would be killed or not by the clock (and
// Stryker refuses to start when its first run fails): follower.test.ts (the
// poll policy's delays) and transport/limits.test.ts (stall timers).
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    isolate: false,
    include: ['__tests__/{util,jenkins,inputs,outcome,follow,step,multi}/**/*.test.ts'],
    exclude: [
      ...(base.test?.exclude ?? configDefaults.exclude),
      '__tests__/follow/follower.test.ts',
      '__tests__/jenkins/transport/limits.test.ts'
    ]
  }
})
