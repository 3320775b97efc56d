import type { JobSpec } from './types.js'

/**
 * Jobs for the CLI, the demo and tests that want a populated server. Durations
 * are short so that tests built on them stay fast.
 */
export const sampleJobs: Record<string, JobSpec> = {
  hello: {
    script: { durationMs: 500, consoleLines: ['Hello from Jenkins', 'Working...', 'Done'] }
  },
  params: {
    parameters: [
      { name: 'BRANCH', type: 'string', default: 'main', description: 'Branch to build' },
      { name: 'DEBUG', type: 'boolean', default: false, description: 'Verbose output' },
      { name: 'TARGET', type: 'choice', choices: ['staging', 'production'] },
      { name: 'NOTES', type: 'text', default: '' },
      { name: 'SECRET', type: 'password', default: '' }
    ],
    script: { durationMs: 500, echoParameters: true, consoleLines: ['Built with parameters'] }
  },
  failing: {
    script: { durationMs: 400, result: 'FAILURE', consoleLines: ['Compiling', 'error: boom'] }
  },
  'pipeline-early': {
    type: 'pipeline',
    script: {
      durationMs: 800,
      earlyResult: { afterMs: 200, result: 'UNSTABLE' },
      consoleLines: ['[Pipeline] echo', 'tests unstable', '[Pipeline] sleep'],
      consoleNotes: true,
      stopDelayMs: 300
    }
  },
  'with-tests': {
    script: {
      durationMs: 400,
      result: 'UNSTABLE',
      tests: { total: 12, failed: 2, skipped: 1 },
      consoleLines: ['Running tests', 'Tests run: 12, Failures: 2, Skipped: 1']
    }
  },
  'my job': { script: { durationMs: 300, consoleLines: ['a job with a space'] } },
  café: { script: { durationMs: 300, consoleLines: ['non-ASCII name'] } },
  team: {
    type: 'folder',
    jobs: {
      service: {
        type: 'folder',
        jobs: {
          deploy: {
            type: 'pipeline',
            parameters: [{ name: 'ENV', type: 'choice', choices: ['dev', 'prod'] }],
            script: { durationMs: 500, echoParameters: true, consoleLines: ['deploying'] }
          }
        }
      },
      build: { script: { durationMs: 300, consoleLines: ['building in a folder'] } }
    }
  },
  repo: {
    type: 'multibranch',
    jobs: {
      main: { script: { durationMs: 300, consoleLines: ['main branch'] } },
      'feature%2Fx': { script: { durationMs: 300, consoleLines: ['feature branch'] } }
    },
    // A pull request the last scan has not seen yet: `branch: PR-1` scans first.
    heads: {
      main: {},
      'feature/x': {},
      'PR-1': { script: { durationMs: 300, consoleLines: ['pull request #1'] } }
    }
  },
  // "Trigger builds remotely" with this token (the `job-token` input).
  remote: {
    authToken: 'sample-job-token',
    script: { durationMs: 300, consoleLines: ['triggered with the job token'] }
  },
  disabled: { disabled: true, script: { durationMs: 300 } }
}
