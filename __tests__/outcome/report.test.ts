import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as core from '@actions/core'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { writeSummary as writeReport, type BuildOutcome } from '../../src/outcome/report.js'
import { failureMessage } from '../../src/outcome/failure.js'
import { BUILD_OUTPUT_MAX_BYTES, buildOutput, setOutputs } from '../../src/outcome/build-outputs.js'
import { formatDuration } from '../../src/util/duration.js'
import type { Build } from '../../src/jenkins/model/types.js'
import { decodeBuild } from '../../src/jenkins/reads/decode.js'
import type { Logger } from '../../src/util/logger.js'
import { silentLogger } from '../fixtures/recording-logger.js'

/** One build's summary, from its outcome alone. */
function writeSummary(
  summary: Parameters<typeof writeReport>[0],
  outcome: BuildOutcome,
  logger: Parameters<typeof writeReport>[2]
): Promise<void> {
  return writeReport(summary, [{ outcome, tail: [] }], logger, { several: false })
}

/** One build's outputs. */
function setBuildOutputs(
  out: Parameters<typeof setOutputs>[0],
  report: Parameters<typeof setOutputs>[1][number],
  logger: Logger = silentLogger
): void {
  setOutputs(out, [report], logger, { several: false })
}

/** A build as jenkins/reads decodes it from this JSON. */
function build(overrides: Record<string, unknown> = {}): Build {
  return decodeBuild({
    _class: 'hudson.model.FreeStyleBuild',
    number: 12,
    url: 'http://jenkins.internal:8080/job/team/job/deploy/12/',
    building: false,
    result: 'SUCCESS',
    duration: 63_000,
    estimatedDuration: 60_000,
    timestamp: 1_700_000_000_000,
    actions: [],
    ...overrides
  } as Parameters<typeof decodeBuild>[0])
}

const base: BuildOutcome = {
  jobName: 'team/deploy',
  jobUrl: 'http://127.0.0.1:8080/jenkins/job/team/job/deploy/'
}

/** A fresh core Summary (the exported one caches its file path). */
function newSummary(): typeof core.summary {
  const Summary = Object.getPrototypeOf(core.summary).constructor as new () => typeof core.summary
  return new Summary()
}

function recordingLogger() {
  const warnings: string[] = []
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warning: message => void warnings.push(message)
  }
  return { logger, warnings }
}

describe('setBuildOutputs', () => {
  it('sets every output of a finished build', () => {
    const outputs: Record<string, string> = {}
    const b = build({ result: 'UNSTABLE' })
    setBuildOutputs(
      { setOutput: (name, value) => (outputs[name] = value) },
      {
        outcome: {
          ...base,
          build: b,
          buildUrl: 'http://127.0.0.1:8080/jenkins/job/team/job/deploy/12/',
          queueUrl: 'http://127.0.0.1:8080/jenkins/queue/item/7/',
          result: 'UNSTABLE'
        }
      }
    )
    expect(outputs).toEqual({
      result: 'UNSTABLE',
      'build-number': '12',
      'build-url': 'http://127.0.0.1:8080/jenkins/job/team/job/deploy/12/',
      duration: '63000',
      'queue-url': 'http://127.0.0.1:8080/jenkins/queue/item/7/',
      build: JSON.stringify(b.json),
      'job-url': base.jobUrl,
      description: '',
      'display-name': '#12',
      'build-parameters': '{}'
    })
  })

  it('takes the result from a finished build when the outcome has none', () => {
    const outputs: Record<string, string> = {}
    setBuildOutputs(
      { setOutput: (n, v) => (outputs[n] = v) },
      { outcome: { ...base, build: build({ result: 'FAILURE' }) } }
    )
    expect(outputs.result).toBe('FAILURE')
  })

  it('sets no result and no duration while the build runs, even when a Pipeline already set a result', () => {
    const outputs: Record<string, string> = {}
    setBuildOutputs(
      { setOutput: (n, v) => (outputs[n] = v) },
      { outcome: { ...base, build: build({ building: true, result: 'FAILURE', duration: 0 }) } }
    )
    expect(outputs).not.toHaveProperty('result')
    expect(outputs).not.toHaveProperty('duration')
    expect(outputs['build-number']).toBe('12')
  })

  it('cuts a build over the cap to valid JSON without its largest fields, and warns', () => {
    const outputs: Record<string, string> = {}
    const { logger, warnings } = recordingLogger()
    const items = Array.from({ length: 3000 }, (_, i) => ({
      msg: `commit ${i} ${'x'.repeat(100)}`
    }))
    const b = build({ changeSets: [{ items }], culprits: [{ fullName: 'y'.repeat(200) }] })
    setBuildOutputs(
      { setOutput: (n, v) => (outputs[n] = v) },
      { outcome: { ...base, build: b, buildUrl: 'http://127.0.0.1/job/team/job/deploy/12/' } },
      logger
    )
    const json = outputs.build ?? ''
    expect(Buffer.byteLength(json)).toBeLessThanOrEqual(BUILD_OUTPUT_MAX_BYTES)
    const parsed = JSON.parse(json) as Record<string, unknown>
    expect(parsed).not.toHaveProperty('changeSets')
    // Only what had to go: the rest is there, whole.
    expect(parsed).toMatchObject({ number: 12, result: 'SUCCESS', culprits: b.json.culprits })
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(
      /^The build output holds \d+ KiB of JSON, over its cap of 256 KiB: it leaves out changeSets\. The whole build is at http:\/\/127\.0\.0\.1\/job\/team\/job\/deploy\/12\/api\/json\.$/
    )
  })

  it('leaves a build within the cap whole, and drops the largest fields first to fit any cap', () => {
    const b = build().json
    expect(buildOutput(b)).toEqual({
      json: JSON.stringify(b),
      dropped: [],
      fullBytes: JSON.stringify(b).length
    })
    const large = { ...b, log: 'x'.repeat(200_000), changes: 'y'.repeat(100_000) }
    const small = buildOutput(large)
    expect(Buffer.byteLength(small.json)).toBeLessThanOrEqual(BUILD_OUTPUT_MAX_BYTES)
    expect(small.dropped).toEqual(['log'])
    expect(JSON.parse(small.json)).toEqual({ ...b, changes: large.changes })
    expect(buildOutput({ log: 'x'.repeat(BUILD_OUTPUT_MAX_BYTES) }).json).toBe('{}')
    // Several fields over the cap together: dropped one after the other, the largest first,
    // until the rest fits (the next largest kept once it does).
    const larger = {
      ...b,
      log: 'x'.repeat(300_000),
      changes: 'y'.repeat(200_000),
      notes: 'z'.repeat(100_000)
    }
    const cut = buildOutput(larger)
    expect(Buffer.byteLength(cut.json)).toBeLessThanOrEqual(BUILD_OUTPUT_MAX_BYTES)
    expect(cut.dropped).toEqual(['log', 'changes'])
    expect(JSON.parse(cut.json)).toEqual({ ...b, notes: larger.notes })
  })

  it("is Jenkins' JSON as it came: nothing decoded is added to it", () => {
    const jenkins = {
      number: 12,
      result: 'SUCCESS',
      duration: 1e21,
      actions: [
        { _class: 'hudson.model.ParametersAction', parameters: [{ name: 'ENV', value: 'prod' }] }
      ]
    } as const
    const outputs: Record<string, string> = {}
    setBuildOutputs(
      { setOutput: (n, v) => (outputs[n] = v) },
      {
        outcome: {
          ...base,
          build: decodeBuild(structuredClone(jenkins) as Parameters<typeof decodeBuild>[0])
        }
      }
    )
    expect(outputs.build).toBe(JSON.stringify(jenkins))
    expect(outputs['build-parameters']).toBe('{"ENV":"prod"}')
  })

  it('only sets what it knows when no build started', () => {
    const outputs: Record<string, string> = {}
    setBuildOutputs(
      { setOutput: (n, v) => (outputs[n] = v) },
      { outcome: { ...base, queueUrl: 'http://127.0.0.1/queue/item/3/' } }
    )
    expect(outputs).toEqual({
      'queue-url': 'http://127.0.0.1/queue/item/3/',
      'job-url': base.jobUrl
    })
  })
})

describe('formatDuration', () => {
  it.each([
    [850, '850 ms'],
    [0, '0 ms'],
    [1500, '1.5 s'],
    [42_400, '42 s'],
    [63_000, '1 min 3 s'],
    [120_000, '2 min'],
    [3_600_000 + 5 * 60_000 + 7_000, '1 h 5 min'],
    [-1, 'unknown'],
    [1e21, 'unknown'],
    [2 ** 53, 'unknown']
  ])('%d ms is %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text)
  })
})

describe('writeSummary', () => {
  let dir: string
  let file: string
  const saved = process.env.GITHUB_STEP_SUMMARY

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'summary-'))
    file = join(dir, 'step_summary.md')
    writeFileSync(file, '')
    process.env.GITHUB_STEP_SUMMARY = file
  })

  afterEach(() => {
    if (saved === undefined) delete process.env.GITHUB_STEP_SUMMARY
    else process.env.GITHUB_STEP_SUMMARY = saved
    rmSync(dir, { recursive: true, force: true })
  })

  it('writes the job, result, build link, duration, queue wait, tests, parameters and note', async () => {
    const { logger, warnings } = recordingLogger()
    await writeSummary(
      newSummary(),
      {
        ...base,
        build: build({ result: 'FAILURE' }),
        buildUrl: 'http://127.0.0.1:8080/jenkins/job/team/job/deploy/12/',
        parameters: { ENV: 'staging', REGIONS: ['eu', 'us'] },
        queueWaitMs: 850,
        tests: {
          counts: { total: 40, failed: 0, skipped: 1 },
          failed: [],
          reportUrl: 'http://127.0.0.1:8080/jenkins/job/team/job/deploy/12/testReport/',
          casesRead: 0,
          partial: false
        },
        result: 'FAILURE',
        accepted: false,
        note: 'Did not wait for everything.'
      },
      logger
    )
    const html = readFileSync(file, 'utf8')
    expect(warnings).toEqual([])
    expect(html).toContain(
      '<h2>Jenkins <a href="http://127.0.0.1:8080/jenkins/job/team/job/deploy/">team/deploy</a></h2>'
    )
    expect(html).toContain('<tr><th>Result</th><td>❌ FAILURE (not accepted)</td></tr>')
    expect(html).toContain(
      '<tr><th>Build</th><td><a href="http://127.0.0.1:8080/jenkins/job/team/job/deploy/12/">&#35;12</a></td></tr>'
    )
    expect(html).toContain('<tr><th>Duration</th><td>1 min 3 s</td></tr>')
    expect(html).toContain('<tr><th>Queue wait</th><td>850 ms</td></tr>')
    expect(html).toContain('<tr><th>Tests</th><td>40 total / 0 failed / 1 skipped</td></tr>')
    expect(html).toContain('<tr><td><code>ENV</code></td><td>staging</td></tr>')
    expect(html).toContain('<tr><td><code>REGIONS</code></td><td>eu, us</td></tr>')
    expect(html).toContain('<p>Did not wait for everything.</p>')
    // Jenkins' own (possibly internal) URL is not what we link to.
    expect(html).not.toContain('jenkins.internal')
    expect(html.length).toBeLessThan(2000)
  })

  it('shows what the build ran with, hiding secret-looking names and password parameters', async () => {
    const { logger } = recordingLogger()
    await writeSummary(
      newSummary(),
      {
        ...base,
        // What jenkins/reads decodes a build's ParametersAction into.
        build: build({
          actions: [
            {
              _class: 'hudson.model.ParametersAction',
              parameters: [
                { _class: 'hudson.model.StringParameterValue', name: 'ENV', value: 'prod' },
                { _class: 'hudson.model.BooleanParameterValue', name: 'DRY_RUN', value: false },
                { _class: 'hudson.model.PasswordParameterValue', name: 'DB' },
                {
                  _class: 'hudson.model.StringParameterValue',
                  name: 'API_TOKEN',
                  value: 'tok-123'
                },
                { _class: 'hudson.model.StringParameterValue', name: 'ssh_key', value: 'key-456' },
                {
                  _class: 'hudson.model.StringParameterValue',
                  name: 'db_password',
                  value: 'pw-789'
                },
                { _class: 'hudson.model.StringParameterValue', name: 'my_secret', value: 'sec-000' }
              ]
            }
          ]
        }),
        parameters: { ENV: 'asked-for' }
      },
      logger
    )
    const html = readFileSync(file, 'utf8')
    expect(html).toContain('<tr><td><code>ENV</code></td><td>prod</td></tr>')
    expect(html).not.toContain('asked-for')
    expect(html).toContain('<tr><td><code>DRY&#95;RUN</code></td><td>false</td></tr>')
    expect(html).toContain('<tr><td><code>DB</code></td><td>***</td></tr>')
    for (const secret of ['tok-123', 'key-456', 'pw-789', 'sec-000'])
      expect(html).not.toContain(secret)
    expect(html.match(/<td>\*\*\*<\/td>/g)).toHaveLength(5)
    expect(html).toContain('<tr><th>Result</th><td>✅ SUCCESS</td></tr>')
  })

  it('hides secret-looking user parameters too', async () => {
    await writeSummary(
      newSummary(),
      { ...base, parameters: { PASSWORD: 'hunter2', X: 'y' } },
      recordingLogger().logger
    )
    const html = readFileSync(file, 'utf8')
    expect(html).not.toContain('hunter2')
    expect(html).toContain('<tr><td><code>PASSWORD</code></td><td>***</td></tr>')
    expect(html).toContain('<tr><th>Result</th><td>⏳ not started</td></tr>')
  })

  it('escapes HTML and Markdown from Jenkins and the user', async () => {
    const evil =
      '<img src=x onerror=alert(1)>\n\n# Heading\n\n[click](javascript:alert(1)) **bold** `code` | pipe'
    await writeSummary(
      newSummary(),
      {
        ...base,
        jobName: 'team/<script>alert(1)</script>',
        jobUrl: 'javascript:alert(1)',
        build: build({ result: 'UNSTABLE' }),
        buildUrl: 'http://127.0.0.1/job/x/12/"><script>',
        parameters: { 'NAME<b>': evil },
        accepted: true,
        note: '</p><script>x</script>'
      },
      recordingLogger().logger
    )
    const html = readFileSync(file, 'utf8')
    expect(html).not.toMatch(/<script|<img|<b>|href="javascript/)
    expect(html).not.toContain('\n\n')
    expect(html).not.toMatch(/\*\*|`|\[click\]/)
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;<br><br>&#35; Heading')
    expect(html).toContain('<h2>Jenkins team/&#60;script&#62;alert(1)&#60;/script&#62;</h2>')
    expect(html).toContain('href="http://127.0.0.1/job/x/12/%22%3E%3Cscript%3E"')
    expect(html).toContain('⚠️ UNSTABLE (accepted)')
  })

  it("shows a file parameter as the uploaded file's name and size, not an empty cell", async () => {
    const uploads = [
      { name: 'PACKAGE', fileName: 'app <1>.zip', size: 300_000 },
      { name: 'B64', fileName: 'notes.txt', size: 12 },
      { name: 'SIGNING_KEY', fileName: 'key.pem', size: 2000 }
    ]
    const actions = [
      {
        _class: 'hudson.model.ParametersAction',
        parameters: [
          { _class: 'hudson.model.FileParameterValue', name: 'PACKAGE' },
          { _class: 'io.jenkins.plugins.file_parameters.Base64FileParameterValue', name: 'B64' },
          { _class: 'hudson.model.FileParameterValue', name: 'SIGNING_KEY' },
          { _class: 'io.jenkins.plugins.file_parameters.StashedFileParameterValue', name: 'OLD' },
          { _class: 'hudson.model.StringParameterValue', name: 'TARGET', value: 'prod' }
        ]
      }
    ]
    await writeSummary(
      newSummary(),
      { ...base, build: build({ actions }), uploads },
      recordingLogger().logger
    )
    const html = readFileSync(file, 'utf8')
    expect(html).toContain(
      '<tr><td><code>PACKAGE</code></td><td>app &#60;1&#62;.zip (293 KiB)</td></tr>'
    )
    expect(html).toContain('<tr><td><code>B64</code></td><td>notes.txt (12 B)</td></tr>')
    // A secret-looking name stays hidden, file or not.
    expect(html).toContain('<tr><td><code>SIGNING&#95;KEY</code></td><td>***</td></tr>')
    // A file this step did not upload: Jenkins does not say which.
    expect(html).toContain('<tr><td><code>OLD</code></td><td>(a file)</td></tr>')
    expect(html).toContain('<tr><td><code>TARGET</code></td><td>prod</td></tr>')
  })

  it('before the build is read (wait: false), the uploaded files follow the parameters asked for', async () => {
    await writeSummary(
      newSummary(),
      {
        ...base,
        parameters: { TARGET: 'prod' },
        uploads: [{ name: 'PACKAGE', fileName: 'app.zip', size: 2 * 1024 * 1024 }]
      },
      recordingLogger().logger
    )
    const html = readFileSync(file, 'utf8')
    expect(html).toContain(
      '<tr><td><code>TARGET</code></td><td>prod</td></tr><tr><td><code>PACKAGE</code></td><td>app.zip (2 MiB)</td></tr>'
    )
  })

  it('keeps the summary small with many or long parameters', async () => {
    const parameters = Object.fromEntries(
      Array.from({ length: 80 }, (_, i) => [`P${i}`, 'v'.repeat(5000)])
    )
    await writeSummary(newSummary(), { ...base, parameters }, recordingLogger().logger)
    const html = readFileSync(file, 'utf8')
    expect(html).toContain('<p>… and 30 more.</p>')
    expect(html).not.toContain('P50')
    expect(html.length).toBeLessThan(50 * 250)
  })

  it('warns and does not throw without GITHUB_STEP_SUMMARY', async () => {
    delete process.env.GITHUB_STEP_SUMMARY
    const { logger, warnings } = recordingLogger()
    const summary = newSummary()
    await expect(
      writeSummary(summary, { ...base, build: build() }, logger)
    ).resolves.toBeUndefined()
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/^Could not write the job summary: .*GITHUB_STEP_SUMMARY/)
    // Nothing is left in the buffer for a later write.
    expect(summary.stringify()).toBe('')
    expect(readFileSync(file, 'utf8')).toBe('')
  })
})

describe('outputs and summary of tests, stages and artifacts', () => {
  const BUILD_URL = 'http://127.0.0.1:8080/jenkins/job/team/job/deploy/12/'
  const tests = {
    counts: { total: 300, failed: 3, skipped: 4 },
    failed: [
      {
        className: 'com.example.<Calc>Test',
        name: 'adds *fast* | `x`',
        status: 'FAILED',
        url: `${BUILD_URL}testReport/com.example/_Calc_Test/adds__fast_____x_/`,
        errorDetails: 'expected: <3> but was: <4>\n\tat Calc.add'
      },
      {
        className: 'com.example.CalcTest',
        name: '::error::injected',
        status: 'REGRESSION',
        url: `${BUILD_URL}testReport/com.example/CalcTest/__error__injected/`
      }
    ],
    reportUrl: `${BUILD_URL}testReport/`,
    casesRead: 120,
    partial: true
  }
  const stages = [
    {
      id: '6',
      name: 'Build',
      status: 'SUCCESS',
      startTimeMillis: 0,
      durationMillis: 4200,
      pauseDurationMillis: 0
    },
    {
      id: '9',
      name: 'Test <script>',
      status: 'FAILED',
      startTimeMillis: 0,
      durationMillis: 65_000,
      pauseDurationMillis: 0
    },
    {
      id: '14',
      name: 'Deploy',
      status: 'NOT_EXECUTED',
      startTimeMillis: 0,
      durationMillis: 0,
      pauseDurationMillis: 0
    }
  ]
  const artifacts = {
    written: ['jenkins-artifacts/dist/app.jar', 'jenkins-artifacts/report <1>.html'],
    folder: 'jenkins-artifacts',
    bytes: 3 * 1024 * 1024,
    refused: [{ path: '../../etc/x', reason: "has a '..' segment" }],
    problems: []
  }

  it('sets tests-*, stages and artifacts', () => {
    const outputs: Record<string, string> = {}
    setBuildOutputs(
      { setOutput: (name, value) => void (outputs[name] = value) },
      { outcome: { ...base, build: build(), tests, stages, artifacts } }
    )
    expect(outputs['tests-total']).toBe('300')
    expect(outputs['tests-failed']).toBe('3')
    expect(outputs['tests-skipped']).toBe('4')
    expect(JSON.parse(outputs['stages'] ?? '')).toEqual([
      { name: 'Build', status: 'SUCCESS', durationMillis: 4200 },
      { name: 'Test <script>', status: 'FAILED', durationMillis: 65_000 },
      { name: 'Deploy', status: 'NOT_EXECUTED', durationMillis: 0 }
    ])
    expect(JSON.parse(outputs['artifacts'] ?? '')).toEqual(artifacts.written)
  })

  it('without a report, stages or artifacts those outputs stay unset; no stage plugin is []', () => {
    const outputs: Record<string, string> = {}
    setBuildOutputs(
      { setOutput: (name, value) => void (outputs[name] = value) },
      { outcome: { ...base, build: build() } }
    )
    expect(Object.keys(outputs).filter(k => /tests|stages|artifacts/.test(k))).toEqual([])
    setBuildOutputs(
      { setOutput: (name, value) => void (outputs[name] = value) },
      { outcome: { ...base, build: build(), stages: [] } }
    )
    expect(outputs['stages']).toBe('[]')
  })

  let dir: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'summary-'))
    writeFileSync(join(dir, 'summary.md'), '')
    process.env.GITHUB_STEP_SUMMARY = join(dir, 'summary.md')
  })
  afterEach(() => {
    delete process.env.GITHUB_STEP_SUMMARY
    rmSync(dir, { recursive: true, force: true })
  })

  it('lists the failed tests with links, the stages and the artifacts, all escaped', async () => {
    const { logger, warnings } = recordingLogger()
    await writeSummary(
      newSummary(),
      {
        ...base,
        build: build({ result: 'FAILURE' }),
        buildUrl: BUILD_URL,
        tests,
        stages,
        artifacts
      },
      logger
    )
    const html = readFileSync(join(dir, 'summary.md'), 'utf8')
    expect(warnings).toEqual([])
    expect(html).toContain('<h3>Failed tests</h3>')
    expect(html).toContain(
      `<tr><td><a href="${BUILD_URL}testReport/com.example/_Calc_Test/adds__fast_____x_/">adds &#42;fast&#42; &#124; &#96;x&#96;</a></td><td><code>com.example.&#60;Calc&#62;Test</code></td><td>expected: &#60;3&#62; but was: &#60;4&#62;</td></tr>`
    )
    expect(html).toContain('>::error::injected</a>')
    expect(html).toContain(
      `<p>2 of 3 failed tests shown. The report is too large to read whole: these come from its first 120 of 300 tests. All results: <a href="${BUILD_URL}testReport/">test report</a>.</p>`
    )
    expect(html).toContain('<h3>Stages</h3>')
    expect(html).toContain('<tr><td>Build</td><td>✅ SUCCESS</td><td>4.2 s</td></tr>')
    expect(html).toContain(
      '<tr><td>Test &#60;script&#62;</td><td>❌ FAILED</td><td>1 min 5 s</td></tr>'
    )
    expect(html).toContain('<tr><td>Deploy</td><td>⚪ NOT&#95;EXECUTED</td><td>&nbsp;</td></tr>')
    expect(html).toContain('<h3>Artifacts</h3>')
    expect(html).toContain('<p>2 file(s), 3 MiB, in <code>jenkins-artifacts</code>:</p>')
    expect(html).toContain('<li><code>jenkins-artifacts/report &#60;1&#62;.html</code></li>')
    expect(html).toContain(
      '<p>⚠️ Refused <code>&#34;../../etc/x&#34;</code>: it has a &#39;..&#39; segment.</p>'
    )
    expect(html).not.toContain('<script>')
  })
})

describe('the failed-tests table: where each failed', () => {
  const BUILD_URL = 'http://127.0.0.1:8080/jenkins/job/team/job/deploy/12/'
  const located = {
    className: 'com.example.CalcTest',
    name: 'divides',
    status: 'FAILED',
    url: `${BUILD_URL}testReport/com.example/CalcTest/divides/`,
    errorDetails: 'boom'
  }
  const unlocated = { ...located, name: 'adds', url: `${BUILD_URL}testReport/x/adds/` }
  const hostile = { ...located, name: 'hostile', url: `${BUILD_URL}testReport/x/hostile/` }
  const tests = (commit?: { serverUrl: string; repository: string; sha: string }) => ({
    counts: { total: 3, failed: 3, skipped: 0 },
    failed: [located, unlocated, hostile],
    reportUrl: `${BUILD_URL}testReport/`,
    casesRead: 3,
    partial: false,
    located: new Map([
      [located, { file: 'src/test/java/com/example/CalcTest.java', line: 42 }],
      [hostile, { file: 'src/*x*/[a](javascript:b)/<img>|`#`.py', line: 3 }]
    ]),
    commit
  })
  let dir: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'summary-'))
    writeFileSync(join(dir, 'summary.md'), '')
    process.env.GITHUB_STEP_SUMMARY = join(dir, 'summary.md')
  })
  afterEach(() => {
    delete process.env.GITHUB_STEP_SUMMARY
    rmSync(dir, { recursive: true, force: true })
  })
  const written = async (outcome: BuildOutcome): Promise<string> => {
    await writeSummary(newSummary(), outcome, recordingLogger().logger)
    return readFileSync(join(dir, 'summary.md'), 'utf8')
  }

  it('links path:line to that line of the commit under test, each segment encoded, all inert', async () => {
    const sha = 'a'.repeat(40)
    const html = await written({
      ...base,
      build: build({ result: 'FAILURE' }),
      tests: tests({ serverUrl: 'https://github.com', repository: 'owner/repo', sha })
    })
    expect(html).toContain('<tr><th>Test</th><th>Class</th><th>File</th><th>Error</th></tr>')
    expect(html).toContain(
      `<td><code>com.example.CalcTest</code></td><td><code><a href="https://github.com/owner/repo/blob/${sha}/src/test/java/com/example/CalcTest.java#L42">src/test/java/com/example/CalcTest.java:42</a></code></td><td>boom</td>`
    )
    // A test without a place: an empty cell.
    expect(html).toContain('<td><code>com.example.CalcTest</code></td><td>&nbsp;</td><td>boom</td>')
    // Path text forms no Markdown or HTML, and the link stays in its path.
    expect(html).toContain(
      `<a href="https://github.com/owner/repo/blob/${sha}/src/*x*/%5Ba%5D(javascript%3Ab)/%3Cimg%3E%7C%60%23%60.py#L3">src/&#42;x&#42;/&#91;a&#93;(javascript:b)/&#60;img&#62;&#124;&#96;&#35;&#96;.py:3</a>`
    )
    expect(html).not.toMatch(/<img|\]\(javascript/)
  })

  it('without a commit (a terminal), the plain path:line', async () => {
    const html = await written({ ...base, build: build({ result: 'FAILURE' }), tests: tests() })
    expect(html).toContain(
      '<td><code>src/test/java/com/example/CalcTest.java:42</code></td><td>boom</td>'
    )
    expect(html).not.toContain('/blob/')
  })

  it("is docs/job-summary.md's example table", async () => {
    const page = readFileSync(new URL('../../docs/job-summary.md', import.meta.url), 'utf8')
    const table = /^<table><tr><th>Test<\/th>.*<\/table>$/m.exec(page)?.[0]
    const test = {
      className: 'com.example.calc.CalculatorTest',
      name: 'divides by zero',
      status: 'FAILED',
      url: 'https://ci.example.com/jenkins/job/calculator/7/testReport/com.example.calc/CalculatorTest/divides_by_zero/',
      errorDetails: 'expected: <ArithmeticException> but was: <Infinity>'
    }
    const html = await written({
      ...base,
      build: build({ result: 'FAILURE' }),
      tests: {
        counts: { total: 14, failed: 1, skipped: 0 },
        failed: [test],
        reportUrl: 'https://ci.example.com/jenkins/job/calculator/7/testReport/',
        casesRead: 14,
        partial: false,
        located: new Map([
          [test, { file: 'src/test/java/com/example/calc/CalculatorTest.java', line: 42 }]
        ]),
        commit: {
          serverUrl: 'https://github.com',
          repository: 'octo-org/calculator',
          sha: '3f2c9a7e5b1d4c6a8e0f2b4d6c8a0e2f4b6d8c0a'
        }
      }
    })
    expect(table).toBeDefined()
    expect(html).toContain(`<h3>Failed tests</h3>\n${table}\n`)
  })

  it('no File column when no test was located', async () => {
    const html = await written({
      ...base,
      build: build({ result: 'FAILURE' }),
      tests: { ...tests(), located: new Map() }
    })
    expect(html).toContain('<tr><th>Test</th><th>Class</th><th>Error</th></tr>')
  })
})

describe('failureMessage', () => {
  const failed: BuildOutcome = {
    ...base,
    build: build({ result: 'FAILURE' }),
    buildUrl: 'http://127.0.0.1:8080/jenkins/job/team/job/deploy/12/',
    result: 'FAILURE',
    accepted: false
  }

  it('names the job, build, result, accepted results and URL, then the last console lines', () => {
    const message = failureMessage({ ...failed, accept: ['SUCCESS'] }, [
      '[Pipeline] sh',
      '+ make',
      'make: *** [all] Error 2'
    ])
    expect(message).toBe(
      [
        'Jenkins build team/deploy #12 finished FAILURE (accepted: SUCCESS) — http://127.0.0.1:8080/jenkins/job/team/job/deploy/12/',
        'Last 3 console lines:',
        '[Pipeline] sh',
        '+ make',
        'make: *** [all] Error 2'
      ].join('\n')
    )
  })

  it('leaves out the accepted list when unknown, and the console part without a tail', () => {
    expect(failureMessage(failed, [])).toBe(
      'Jenkins build team/deploy #12 finished FAILURE — http://127.0.0.1:8080/jenkins/job/team/job/deploy/12/'
    )
  })

  it('keeps at most 30 lines and 4 KiB, drops colours and trailing blank lines', () => {
    const tail = [...Array.from({ length: 100 }, (_, i) => `\x1b[31mline ${i}\x1b[0m`), '', '  ']
    const lines = failureMessage(failed, tail).split('\n')
    expect(lines[1]).toBe('Last 30 console lines:')
    expect(lines.slice(2)).toEqual(Array.from({ length: 30 }, (_, i) => `line ${70 + i}`))

    const wide = Array.from({ length: 30 }, (_, i) => `${i} ${'x'.repeat(500)}`)
    const message = failureMessage(failed, wide)
    expect(Buffer.byteLength(message)).toBeLessThan(4096 + 300)
    expect(message.endsWith(`29 ${'x'.repeat(500)}`)).toBe(true)

    const huge = failureMessage(failed, ['y'.repeat(100_000)])
    expect(Buffer.byteLength(huge)).toBeLessThan(4096 + 300)
  })

  it('says when no build started, with the note', () => {
    expect(
      failureMessage(
        {
          ...base,
          queueUrl: 'http://127.0.0.1/queue/item/3/',
          note: 'The queue item was cancelled.'
        },
        []
      )
    ).toBe(
      'Jenkins job team/deploy did not start a build — http://127.0.0.1/queue/item/3/\nThe queue item was cancelled.'
    )
  })

  it('names the stage the failure came from', () => {
    const message = failureMessage(
      { ...base, build: build({ result: 'FAILURE' }), result: 'FAILURE', failedStage: 'Test' },
      []
    )
    expect(message.split('\n')[0]).toBe(
      "Jenkins build team/deploy #12 finished FAILURE in stage 'Test'"
    )
  })

  it('says when the build did not finish', () => {
    expect(
      failureMessage(
        { ...failed, build: build({ building: true, result: null }), result: undefined },
        []
      )
    ).toMatch(/^Jenkins build team\/deploy #12 did not finish — /)
  })
})
