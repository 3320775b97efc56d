// @ts-check
/**
 * `npm run mutation`: StrykerJS over the files whose decisions matter most
 * (docs/mutation.md says why each is here, and what survives).
 * One file while you work: `npm run mutation -- --mutate src/follow/poll-policy.ts`.
 */

/** The mutated files: the one list to update when a file moves or is merged. */
const MUTATE = [
  'src/jenkins/trigger/reconcile.ts',
  // The JSON reconcile's decisions read (moved out of reconcile.ts).
  'src/jenkins/reads/decode.ts',
  'src/follow/poll-policy.ts',
  'src/inputs/input-conflicts.ts',
  'src/outcome/commit-status.ts',
  'src/util/workspace-paths.ts',
  'src/jenkins/trigger/upload-recovery.ts',
  // Decides whether cancelling or stopping would end someone else's work too.
  'src/jenkins/trigger/shared-work.ts',
  // Whether a trigger is sent again, looked for, or refused; what a cancel or stop does.
  'src/jenkins/trigger/trigger.ts',
  'src/follow/cancel.ts',
  // What a job input names, and which two names are the same job (sameJob, jobKey).
  'src/jenkins/model/job-path.ts',
  // The GitHub client: its bounds, rate limits, whose comment is the action's.
  'src/outcome/github-client.ts',
  'src/outcome/github-transport.ts',
  'src/outcome/github-identity.ts',
  'src/outcome/pr-comment.ts'
]

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: MUTATE,
  testRunner: 'vitest',
  // Unit tests only: the end-to-end tests run dist/, which no mutant reaches.
  vitest: { configFile: 'vitest.mutation.config.ts', related: true },
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.json',
  coverageAnalysis: 'perTest',
  // A changed message text is not a changed decision; the README and docs
  // tests pin the messages that matter.
  mutator: { excludedMutations: ['StringLiteral'] },
  // Two shared cores: one test process at a time.
  concurrency: 1,
  // Anchored: a bare 'reports' would also drop src/jenkins/reports/.
  ignorePatterns: ['/dist', '/tools', '/coverage', '/reports', '/.tmp'],
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always'
}
