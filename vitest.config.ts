import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['__tests__/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // End-to-end tests spawn the bundle and a server each; two cores do not
    // gain from more than two workers.
    maxWorkers: 2,
    restoreMocks: true
  }
})
