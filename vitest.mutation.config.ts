import { defineConfig } from 'vitest/config'
import base from './vitest.config.js'

// The unit tests of src/'s folders, for `npm run mutation`
// (stryker.config.mjs). Left out: the end-to-end tests, which run the
// committed bundle that no mutant reaches, and the top-level tests of the
// documentation, the folder rules and `npm run local-action`, which spawn
// processes or lint, cost seconds a mutant and decide nothing in these files.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['__tests__/{util,jenkins,inputs,outcome,follow,step,multi}/**/*.test.ts']
  }
})
