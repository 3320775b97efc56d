import { configDefaults, defineConfig } from 'vitest/config'
import base from './vitest.config.js'

// The unit tests of src/'s folders, for `npm run mutation`
// (stryker.config.mjs). Left out: the end-to-end tests, which run the
// committed bundle that no mutant reaches, and the top-level tests of the
// documentation, the folder rules and `npm run local-action`, which spawn
// processes or lint, cost seconds a mutant and decide nothing in these files.
// follower.test.ts is left out too: it runs the poll policy in real
// milliseconds, so on a loaded machine a mutant would be killed or not by
// the clock (Stryker refuses to start when its first run fails there).
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['__tests__/{util,jenkins,inputs,outcome,follow,step,multi}/**/*.test.ts'],
    exclude: [
      ...(base.test?.exclude ?? configDefaults.exclude),
      '__tests__/follow/follower.test.ts'
    ]
  }
})
