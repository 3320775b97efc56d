import type { JobSpec, TestSuiteSpec } from '../types.js'

/** A small report with two failures (12 tests, 2 failed, 1 skipped). */
const CALCULATOR_TESTS: TestSuiteSpec[] = [
  {
    name: 'com.example.calc.CalculatorTest',
    cases: [
      { className: 'com.example.calc.CalculatorTest', name: 'adds', duration: 0.002 },
      { className: 'com.example.calc.CalculatorTest', name: 'subtracts', duration: 0.001 },
      {
        className: 'com.example.calc.CalculatorTest',
        name: 'divides by zero',
        status: 'FAILED',
        errorDetails: 'expected: <ArithmeticException> but was: <Infinity>',
        errorStackTrace:
          'org.opentest4j.AssertionFailedError: expected: <ArithmeticException> but was: <Infinity>\n\tat com.example.calc.CalculatorTest.dividesByZero(CalculatorTest.java:42)'
      },
      { className: 'com.example.calc.CalculatorTest', name: 'multiplies', duration: 0.001 },
      { className: 'com.example.calc.CalculatorTest', name: 'rounds half even', status: 'SKIPPED' }
    ]
  },
  {
    name: 'com.example.calc.ParserTest',
    cases: [
      { className: 'com.example.calc.ParserTest', name: 'parses integers' },
      { className: 'com.example.calc.ParserTest', name: 'parses decimals' },
      {
        className: 'com.example.calc.ParserTest',
        name: 'parses "1e3" [scientific]',
        status: 'FAILED',
        errorDetails: "Unexpected character 'e' at position 1\nexpected a digit or end of input",
        // What the JUnit plugin keeps of a JUnit 5 failure: the frames name the test's file and line.
        errorStackTrace:
          "com.example.calc.ParseException: Unexpected character 'e' at position 1\n\tat com.example.calc.Parser.number(Parser.java:88)\n\tat com.example.calc.Parser.parse(Parser.java:31)\n\tat com.example.calc.ParserTest.parsesScientific(ParserTest.java:57)\n\tat java.base/java.lang.reflect.Method.invoke(Method.java:580)"
      },
      { className: 'com.example.calc.ParserTest', name: 'rejects empty input' },
      { className: 'com.example.calc.ParserTest', name: 'rejects letters' },
      { className: 'com.example.calc.ParserTest', name: 'keeps whitespace' },
      { className: 'com.example.calc.ParserTest', name: 'handles unicode minus' }
    ]
  }
]

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
      tests: { suites: CALCULATOR_TESTS },
      consoleLines: ['Running tests', 'Tests run: 12, Failures: 2, Skipped: 1'],
      artifacts: [
        { path: 'build/libs/calculator-1.0.jar', size: 48_213 },
        { path: 'build/reports/tests/index.html', content: '<html><body>Tests</body></html>' },
        {
          path: 'build/test-results/TEST-com.example.calc.CalculatorTest.xml',
          content: '<testsuite/>'
        }
      ]
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
            // What the README's quick start and the demo pass from a pull request.
            parameters: [
              { name: 'ENV', type: 'choice', choices: ['dev', 'prod'] },
              { name: 'BRANCH', default: 'main', description: 'Branch or pull request head' },
              { name: 'PR', default: '', description: 'Pull request number, if any' }
            ],
            script: {
              echoParameters: true,
              stages: [
                { name: 'Checkout', durationMs: 300, consoleLines: ['Checking out abc1234'] },
                { name: 'Build', durationMs: 600, consoleLines: ['Compiling 42 files'] },
                {
                  name: 'Test',
                  durationMs: 600,
                  result: 'UNSTABLE',
                  consoleLines: ['Tests run: 12, Failures: 2, Skipped: 1']
                },
                {
                  name: 'Approve',
                  durationMs: 100,
                  // The user who started the build proceeds after 6 s (the demo's reviewer), past the action's first look at the stages.
                  input: { message: 'Deploy to dev?', proceedAfterMs: 6000 }
                },
                { name: 'Deploy', durationMs: 500, consoleLines: ['deploying'] }
              ],
              tests: { suites: CALCULATOR_TESTS },
              artifacts: [
                { path: 'build/libs/service-1.0.jar', size: 120_000 },
                {
                  path: 'build/reports/tests/index.html',
                  content: '<html><body>Tests</body></html>'
                }
              ]
            }
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
