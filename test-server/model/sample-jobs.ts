import type { JobSpec, TestSuiteSpec } from '../types.js'

/**
 * Where the sample reports' stack traces lead: a small Java project whose
 * files are at the lines the traces name, so that running the action in it
 * (GITHUB_WORKSPACE, or jenkins-build's current directory) shows failed
 * tests at their `file:line`. Relative to the repository root.
 */
export const SAMPLE_WORKSPACE = 'test-server/sample-workspace'

/**
 * A small report with two failures (12 tests, 2 failed, 1 skipped); its
 * traces resolve to files of SAMPLE_WORKSPACE.
 */
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
          "com.example.calc.ParseException: Unexpected character 'e' at position 1\n\tat com.example.calc.Parser.number(Parser.java:88)\n\tat com.example.calc.Parser.parseAll(Parser.java:31)\n\tat com.example.calc.Parser.parse(Parser.java:25)\n\tat com.example.calc.ParserTest.parsesScientific(ParserTest.java:57)\n\tat java.base/java.lang.reflect.Method.invoke(Method.java:580)"
      },
      { className: 'com.example.calc.ParserTest', name: 'rejects empty input' },
      { className: 'com.example.calc.ParserTest', name: 'rejects letters' },
      { className: 'com.example.calc.ParserTest', name: 'keeps whitespace' },
      { className: 'com.example.calc.ParserTest', name: 'handles unicode minus' }
    ]
  }
]

/** A third suite for failing-tests: one more failure, behind JUnit's own frames (2 tests, 1 failed). */
const FORMATTER_TESTS: TestSuiteSpec = {
  name: 'com.example.calc.FormatterTest',
  cases: [
    {
      className: 'com.example.calc.FormatterTest',
      name: 'formats small numbers as they are',
      duration: 0.001
    },
    {
      className: 'com.example.calc.FormatterTest',
      name: 'formats thousands with a separator',
      status: 'FAILED',
      duration: 0.003,
      errorDetails: 'expected: <1,000> but was: <1000>',
      errorStackTrace:
        'org.opentest4j.AssertionFailedError: expected: <1,000> but was: <1000>\n\tat org.junit.jupiter.api.AssertionFailureBuilder.build(AssertionFailureBuilder.java:151)\n\tat org.junit.jupiter.api.AssertEquals.failNotEqual(AssertEquals.java:197)\n\tat org.junit.jupiter.api.Assertions.assertEquals(Assertions.java:1145)\n\tat com.example.calc.FormatterTest.formatsThousands(FormatterTest.java:21)\n\tat java.base/java.lang.reflect.Method.invoke(Method.java:580)'
    }
  ]
}

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
  // A file parameter (core's File Parameter): jenkins-build --file PACKAGE=path, or the `files` input.
  upload: {
    parameters: [
      { name: 'PACKAGE', type: 'file', description: 'The file to publish' },
      { name: 'CHANNEL', type: 'choice', choices: ['beta', 'stable'] }
    ],
    script: {
      durationMs: 500,
      echoParameters: true,
      consoleLines: ['Publishing PACKAGE to the channel', 'Published']
    }
  },
  // What a build says back: a values file it archives, an HTML description, a display name.
  release: {
    type: 'pipeline',
    script: {
      durationMs: 400,
      consoleLines: ['Building 1.4.2 from main', 'Archiving build.env'],
      description: '<b>1.4.2</b> built from <i>main</i>',
      displayName: '1.4.2',
      artifacts: [{ path: 'build.env', content: 'VERSION=1.4.2\nCHANNEL=beta\n' }]
    }
  },
  // A Pipeline whose Test stage fails with failed tests (sh 'mvn test' exits 1; junit in post { always }).
  'failing-tests': {
    type: 'pipeline',
    script: {
      stages: [
        { name: 'Checkout', durationMs: 200, consoleLines: ['Checking out abc1234'] },
        {
          name: 'Build',
          durationMs: 300,
          consoleLines: ['+ mvn -B compile', '[INFO] BUILD SUCCESS']
        },
        {
          name: 'Test',
          durationMs: 400,
          result: 'FAILURE',
          consoleLines: [
            '+ mvn -B test',
            '[ERROR] Tests run: 14, Failures: 3, Errors: 0, Skipped: 1',
            '[INFO] BUILD FAILURE'
          ]
        },
        { name: 'Deploy', durationMs: 200, consoleLines: ['deploying'] }
      ],
      tests: { suites: [...CALCULATOR_TESTS, FORMATTER_TESTS] }
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

/**
 * What each sample shows, one line each, by the full names the start-up
 * lines list: `npm run server -- --help` and docs/test-server.md print them.
 */
export const SAMPLE_NOTES: Record<string, string> = {
  hello: 'a freestyle job that passes in half a second: the simplest run',
  params: 'string, boolean, choice, text and password parameters, echoed in its console',
  failing: 'a freestyle build that ends FAILURE: the step fails with the end of the console',
  'pipeline-early':
    'a Pipeline whose result turns UNSTABLE while it still runs, with console annotations',
  'with-tests':
    'a test report with 2 failures (annotations, the summary) and 3 archived files (artifacts)',
  upload: 'a file parameter PACKAGE and a choice: --file PACKAGE=path, or the files input',
  release:
    'a Pipeline that archives build.env and sets an HTML description and a display name: values-file: build.env, and the description and display-name outputs',
  'failing-tests': `a Pipeline whose Test stage fails with 3 failed tests, at file:line when run in ${SAMPLE_WORKSPACE}`,
  'my job': 'a name with a space',
  café: 'a name with a non-ASCII letter',
  'team/service/deploy':
    'a Pipeline in folders: parameters, five stages, tests, artifacts, an input its starter approves after 6 s',
  'team/build': 'a freestyle job in a folder',
  repo: 'a multibranch project: branches main and feature/x, and PR-1, which a scan finds (branch, scan)',
  remote: 'a "Trigger builds remotely" token, sample-job-token (the job-token input)',
  disabled: 'a disabled job: Jenkins refuses to build it'
}
