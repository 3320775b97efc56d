import { describe, expect, test } from 'vitest'
import type { Input } from '../../src/util/constants.js'
import { parseSettings, type Settings } from '../../src/inputs/inputs.js'
import { InputError } from '../../src/util/input-error.js'
import { parseJobs } from '../../src/inputs/jobs-input.js'

const URL = 'http://127.0.0.1:1/jenkins'
const NONE = { parameters: {}, hasParameters: false, branch: '' }

function settings(inputs: Record<string, string>): Settings {
  const all: Record<string, string> = { url: URL, ...inputs }
  return parseSettings((name: Input) => all[name] ?? '', { workspace: '/w', platform: 'linux' })
}

describe('parseJobs', () => {
  test('JSON nested deeper than 500 levels is refused before any walk over it', () => {
    const deep = `[{"job": "a", "parameters": {"X": ${'['.repeat(50_000)}${']'.repeat(50_000)}}}]`
    expect(() =>
      parseJobs(deep, URL, { parameters: {}, hasParameters: false, branch: '' })
    ).toThrow(/^Input 'jobs' is JSON nested more than 500 levels deep \(at character \d+\): /)
  })

  test('plain lines: one job path per line, blank lines skipped, each with the shared parameters', () => {
    const { entries, warnings } = parseJobs(
      '\n  mono/api  \n\nmono/web\r\njob/mono/job/docs/\n',
      URL,
      { parameters: { SHA: 'abc' }, hasParameters: true, branch: '' }
    )
    expect(entries.map(e => e.job)).toEqual([
      ['mono', 'api'],
      ['mono', 'web'],
      ['mono', 'docs']
    ])
    expect(entries.map(e => e.parameters)).toEqual([{ SHA: 'abc' }, { SHA: 'abc' }, { SHA: 'abc' }])
    expect(entries.every(e => e.hasParameters)).toBe(true)
    expect(entries.map(e => e.statusContext)).toEqual([
      'jenkins/mono/api',
      'jenkins/mono/web',
      'jenkins/mono/docs'
    ])
    expect(warnings).toEqual([])
  })

  test('JSON: strings and objects; an item’s parameters (object or lines) go over the shared ones', () => {
    const { entries } = parseJobs(
      JSON.stringify([
        'unit',
        { job: 'integration', parameters: { SUITE: 'full', SHA: 'def', N: 3, FLAG: true } },
        { job: 'deploy', parameters: 'ENV=preview\nREGION=eu\nREGION=us' }
      ]),
      URL,
      { parameters: { SHA: 'abc' }, hasParameters: true, branch: '' }
    )
    expect(entries.map(e => [e.jobName, e.parameters])).toEqual([
      ['unit', { SHA: 'abc' }],
      ['integration', { SHA: 'def', SUITE: 'full', N: '3', FLAG: 'true' }],
      ['deploy', { SHA: 'abc', ENV: 'preview', REGION: ['eu', 'us'] }]
    ])
  })

  test('branches: the shared one applies to every item, an item\'s own replaces it, "" removes it', () => {
    const { entries } = parseJobs(
      JSON.stringify([
        'mb/api',
        { job: 'mb/web', branch: 'feature/x' },
        { job: 'plain', branch: '' }
      ]),
      URL,
      { ...NONE, branch: 'PR-42' }
    )
    expect(entries.map(e => e.job)).toEqual([
      ['mb', 'api', 'PR-42'],
      ['mb', 'web', 'feature%2Fx'],
      ['plain']
    ])
    expect(entries[1]?.branch).toEqual({ name: 'feature/x', project: ['mb', 'web'] })
    // A required check keeps its name from one pull request to the next: the project's.
    expect(entries.map(e => e.statusContext)).toEqual([
      'jenkins/mb/api',
      'jenkins/mb/web',
      'jenkins/plain'
    ])
    expect(entries[2]?.branch).toBeUndefined()
  })

  test('the same job twice with the same parameters is allowed, with a warning; contexts stay apart', () => {
    const { entries, warnings } = parseJobs(
      JSON.stringify([
        'app',
        { job: 'App', parameters: {} },
        { job: 'app', parameters: { X: '1' } }
      ]),
      URL,
      NONE
    )
    expect(entries).toHaveLength(3)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(
      /Input 'jobs' lists App twice with the same parameters \(items 1 and 2\): Jenkins merges identical requests while one is still queued/
    )
    expect(entries.map(e => e.statusContext)).toEqual([
      'jenkins/app',
      'jenkins/App (2)',
      'jenkins/app (3)'
    ])
  })

  test('a job URL on the same server is accepted as an item', () => {
    const { entries } = parseJobs(`["${URL}/job/a/job/b/"]`, URL, NONE)
    expect(entries[0]?.job).toEqual(['a', 'b'])
  })

  test.each([
    ['[]', /lists no job/],
    ['[null]', /item 1 is null/],
    ['[["a"]]', /item 1 is an array/],
    ['[{"job": ""}]', /item 1 has no 'job'/],
    ['[{"job": "a", "parameters": ["A=1"]}]', /item 1 has 'parameters' that are an array/],
    ['[{"job": "a", "branch": 42}]', /item 1 has a 'branch' that is a number/],
    ['[{"job": "a", "branch": "x\\ny"}]', /item 1's 'branch' contains a control character/],
    ['[{"job": "a", "parameters": {"A": 1, "A": 2}}]', /item 1 has the key 'A' twice \(line 1\)/],
    ['["b", {"job": "a",\n"job": "c"}]', /item 2 has the key 'job' twice \(lines 1 and 2\)/],
    ['["http://other.example/job/a/"]', /item 1 is a URL on http:\/\/other\.example/]
  ])('%s is refused', (text, message) => {
    expect(() => parseJobs(text, URL, NONE)).toThrow(InputError)
    expect(() => parseJobs(text, URL, NONE)).toThrow(message)
  })

  test("an item's own build: a number or a URL of its job, followed instead of triggered", () => {
    const { entries } = parseJobs(
      JSON.stringify([
        { job: 'a', build: 42 },
        { job: 'f/b', build: `${URL}/job/f/job/b/7/` },
        { job: 'c', build: `${URL}/queue/item/9/` },
        'd'
      ]),
      URL,
      NONE
    )
    expect(entries.map(e => e.given && [e.given.kind, e.given.where])).toEqual([
      ['build', "Input 'jobs' item 1's 'build'"],
      ['build', "Input 'jobs' item 2's 'build'"],
      ['queue', "Input 'jobs' item 3's 'build'"],
      undefined
    ])
  })

  test.each([
    [
      { job: 'a', build: 'last' },
      /^Input 'jobs' item 1's 'build' \('last'\) is not one: expected a build number/
    ],
    [{ job: 'a', build: true }, /item 1 has a 'build' that is a boolean/],
    [
      { job: 'a', build: `${URL}/job/b/3/` },
      /item 1's 'build' URL .* is a build of job 'b', not of 'a' \(its 'job'\): follow a build of its job/
    ],
    [
      { job: 'a', build: 3, parameters: { X: '1' } },
      /item 1 has 'build' and parameters: a given build is followed, not triggered/
    ]
  ])("an item's build %j is refused", (item, message) => {
    expect(() => parseJobs(JSON.stringify([item]), URL, NONE)).toThrow(message)
  })

  test('a credential in an item URL is never echoed', () => {
    let message = ''
    try {
      parseJobs('["http://bob:hunter2@127.0.0.1:1/jenkins/job/a/"]', URL, NONE)
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toMatch(/item 1 URL must not contain credentials/)
    expect(message).not.toContain('hunter2')
  })
})

describe('parseSettings with jobs', () => {
  test('jobs replaces job: no job path, the entries, fail-fast, the warnings', () => {
    const s = settings({ jobs: 'a\na', 'fail-fast': 'true', parameters: 'X=1' })
    expect(s.job).toEqual([])
    expect(s.jobName).toBe('')
    expect(s.jobs?.map(e => e.jobName)).toEqual(['a', 'a'])
    expect(s.failFast).toBe(true)
    expect(s.inputWarnings).toHaveLength(1)
  })

  test('the shared branch goes to every line; scan: never needs some item with a branch', () => {
    const s = settings({ jobs: 'mb/api\nmb/web', branch: 'main', scan: 'never' })
    expect(s.branch).toBeUndefined()
    expect(s.jobs?.map(e => e.jobName)).toEqual(['mb/api/main', 'mb/web/main'])
    expect(s.scan).toBe('never')
    expect(() => settings({ jobs: 'a', scan: 'never' })).toThrow(/only applies with 'branch'/)
  })

  test('build: last, wait: started, commit-status and artifacts are taken per build', () => {
    expect(settings({ jobs: 'a\nb', build: 'last' }).build).toBe('last')
    expect(settings({ jobs: 'a\nb', wait: 'started' }).wait).toBe('started')
    const s = settings({
      jobs: 'a\nb',
      'commit-status': 'true',
      'github-token': 't',
      artifacts: '*.zip'
    })
    expect(s.commitStatus).toBe(true)
    expect(s.jobs?.map(e => e.statusContext)).toEqual(['jenkins/a', 'jenkins/b'])
  })

  test("build: <number or URL> names one build: with jobs it is an item's own", () => {
    expect(() => settings({ jobs: 'a\nb', build: '42' })).toThrow(
      `Inputs 'jobs' and 'build' cannot be used together: a build number or URL names one build of one job: give it as that item's "build".`
    )
  })

  test('disable applies to every listed job', () => {
    expect(settings({ jobs: 'a\nb', disable: 'true' }).disable).toBe(true)
  })
})
