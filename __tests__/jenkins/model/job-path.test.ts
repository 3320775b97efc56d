import { describe, expect, test } from 'vitest'
import {
  branchItemName,
  branchNameOf,
  fullName,
  jobKey,
  jobUrl,
  parseJobPath,
  redactUrl,
  sameJob
} from '../../../src/jenkins/model/job-path.js'
import { InputError } from '../../../src/util/input-error.js'

const BASE = 'http://127.0.0.1:1/jenkins'

function errorOf(input: string, base = BASE): string {
  try {
    parseJobPath(input, base)
  } catch (error) {
    expect(error).toBeInstanceOf(InputError)
    return (error as Error).message
  }
  throw new Error(`accepted ${input}`)
}

describe('parseJobPath', () => {
  test.each([
    ['deploy', ['deploy']],
    ['team/service/deploy', ['team', 'service', 'deploy']],
    ['/team/deploy/', ['team', 'deploy']],
    ['  team/deploy  ', ['team', 'deploy']],
    ['my job', ['my job']],
    ['café', ['café']],
    // A multibranch item name is taken literally, as Jenkins shows it.
    ['mb/feature%2Fx', ['mb', 'feature%2Fx']],
    ['a/job/b', ['a', 'job', 'b']]
  ])('full-name form %j', (input, expected) => {
    expect(parseJobPath(input, BASE)).toEqual(expected)
  })

  test.each([
    ['job/deploy', ['deploy']],
    ['job/team/job/service/job/deploy', ['team', 'service', 'deploy']],
    ['/job/team/job/deploy/', ['team', 'deploy']],
    ['job/my%20job', ['my job']],
    ['job/caf%C3%A9', ['café']],
    ['job/mb/job/feature%252Fx', ['mb', 'feature%2Fx']],
    // Copied from a URL that used the single-encoded form Jenkins also accepts.
    ['job/mb/job/feature%2Fx', ['mb', 'feature%2Fx']],
    ['job/a+b', ['a+b']]
  ])('URL-path form %j is decoded once', (input, expected) => {
    expect(parseJobPath(input, BASE)).toEqual(expected)
  })

  test.each([
    [`${BASE}/job/team/job/deploy/`, BASE, ['team', 'deploy']],
    [`${BASE}/job/team/job/deploy`, BASE, ['team', 'deploy']],
    ['HTTP://127.0.0.1:1/jenkins/job/a/', BASE, ['a']],
    ['http://127.0.0.1:80/ci/job/a/', 'http://127.0.0.1/ci', ['a']],
    ['http://127.0.0.1:1/job/a/job/b/', 'http://127.0.0.1:1', ['a', 'b']],
    [`${BASE}/job/caf%C3%A9/`, BASE, ['café']],
    [`${BASE}/job/café/`, BASE, ['café']],
    [`${BASE}/job/my job/`, BASE, ['my job']],
    [`${BASE}/job/mb/job/feature%252Fx/`, BASE, ['mb', 'feature%2Fx']],
    ['http://127.0.0.1:1/a%20b/job/x/', 'http://127.0.0.1:1/a b', ['x']]
  ])('job URL %s under %s', (input, base, expected) => {
    expect(parseJobPath(input, base)).toEqual(expected)
  })

  test('the result is frozen', () => {
    expect(Object.isFrozen(parseJobPath('a/b', BASE))).toBe(true)
  })

  test.each([
    [
      'http://127.0.0.2:1/jenkins/job/a/',
      /is a URL on http:\/\/127\.0\.0\.2:1, but 'url' is http:\/\/127\.0\.0\.1:1/
    ],
    ['http://127.0.0.1:2/jenkins/job/a/', /same server/],
    ['https://127.0.0.1:1/jenkins/job/a/', /is a URL on https:\/\/127\.0\.0\.1:1/],
    ['http://other.example.com/jenkins/job/a/', /same server/]
  ])('another origin is refused: %s', (input, pattern) => {
    expect(errorOf(input)).toMatch(pattern)
  })

  test.each([
    ['http://127.0.0.1:1/job/a/', /not under the context path '\/jenkins'/],
    ['http://127.0.0.1:1/jenkinsX/job/a/', /not under the context path/],
    [`${BASE}/`, /not a job path/],
    [`${BASE}/job/a/lastBuild/`, /not a job path/],
    [`${BASE}/view/all/job/a/`, /not a job path/],
    [`${BASE}/job/a/?x=1`, /query or fragment/],
    [`${BASE}/job/a/#top`, /query or fragment/],
    [
      'ftp://127.0.0.1:1/jenkins/job/a/',
      /^Input 'job' \('ftp:.*'\) must use http or https, not 'ftp': expected/
    ],
    [
      'http://[127.0.0.1/jenkins/job/a/',
      /^Input 'job' \('http:.*'\) is not an absolute URL: expected/
    ]
  ])('a URL that names no job under url is refused: %s', (input, pattern) => {
    expect(errorOf(input)).toMatch(pattern)
  })

  test('credentials in a job URL are refused and not echoed', () => {
    const message = errorOf('http://alice:pw-secret@127.0.0.1:1/jenkins/job/a/')
    expect(message).toMatch(/must not contain credentials/)
    expect(message).not.toContain('pw-secret')
  })

  test.each([
    'a/../b',
    '..',
    'a/.',
    'job/a/job/..',
    'job/%2e%2e',
    'job/a/job/%2E',
    `${BASE}/job/a/job/../job/b/`,
    `${BASE}/job/a/job/%2e%2e/job/b/`,
    'http://127.0.0.1:1/jenkins/../jenkins/job/a/'
  ])('a dot segment is refused: %s', input => {
    expect(errorOf(input)).toMatch(/'\.\.?' segment/)
  })

  test.each(['a//b', 'job/a/job//job/b', 'job//job/a', `${BASE}/job/a/job//`])(
    'an empty segment is refused: %s',
    input => {
      expect(errorOf(input)).toMatch(/empty segment|not a job path/)
    }
  )

  test.each(['job', 'job/a/b', 'job/a/job', 'job/a/build'])('a broken URL-path form: %s', input => {
    expect(errorOf(input)).toMatch(/every name must follow '\/job\/'/)
  })

  test('malformed percent-encoding, control characters and empty input', () => {
    expect(errorOf('job/%E0%A4%A')).toMatch(/malformed percent-encoding/)
    expect(errorOf('a\nb')).toMatch(/control character/)
    expect(errorOf('a\u0085b')).toMatch(/control character/)
    expect(errorOf('   ')).toMatch(/^Input 'job' is empty/)
  })

  test('every message names the input', () => {
    for (const input of [
      '',
      'a//b',
      '..',
      'job/a/b',
      'http://127.0.0.2/job/a',
      `${BASE}/job/a?x`
    ]) {
      expect(errorOf(input)).toMatch(/^Input 'job'/)
    }
  })
})

describe('jobUrl', () => {
  test.each([
    [[], ''],
    [['deploy'], '/job/deploy'],
    [['team', 'service', 'deploy'], '/job/team/job/service/job/deploy'],
    [['my job'], '/job/my%20job'],
    [['café'], '/job/caf%C3%A9'],
    [['mb', 'feature%2Fx'], '/job/mb/job/feature%252Fx'],
    [['a/b'], '/job/a%2Fb'],
    [['a#?;:+&'], '/job/a%23%3F%3B%3A%2B%26']
  ])('%j → %s', (job, path) => {
    expect(jobUrl('', job)).toBe(`${path}/`)
    expect(jobUrl(BASE, job)).toBe(`${BASE}${path}/`)
  })

  test('round trip: the URL-path form of a job parses back to the same names', () => {
    for (const job of [
      ['mb', 'feature%2Fx'],
      ['my job', 'café'],
      ['a+b', "it's"]
    ]) {
      expect(parseJobPath(jobUrl('', job), BASE)).toEqual(job)
      expect(parseJobPath(jobUrl(BASE, job), BASE)).toEqual(job)
    }
  })
})

test('fullName joins with /', () => {
  expect(fullName(['team', 'deploy'])).toBe('team/deploy')
  expect(fullName([])).toBe('')
})

describe('redactUrl', () => {
  test.each([
    ['https://u:p@host/x', 'https://***@host/x'],
    ['https://u:p@ss@host/x', 'https://***@host/x'],
    ['https://u:p/ss@host/x', 'https://***@host/x'],
    ['u:p@host', '***@host'],
    ['https://host/x', 'https://host/x'],
    ['folder/job', 'folder/job'],
    ['https://host/x?token=s3cret&a=b', 'https://host/x?…'],
    ['https://host/x#s3cret', 'https://host/x#…'],
    ['https://host/x?q=a@b#c', 'https://host/x?…'],
    ['https://u:p@host/x?t=1', 'https://***@host/x?…'],
    ['host?token=s3cret', 'host?…'],
    // Whitespace is no boundary: a query or credentials with a space or a line break go whole.
    ['https://host/x?token=a b\nc', 'https://host/x?…'],
    ['https://u ser:p w@host/x', 'https://***@host/x']
  ])('%s → %s', (input, output) => {
    expect(redactUrl(input)).toBe(output)
  })
})

describe('parseJobPath: which slashes and markers are read', () => {
  test.each([
    ['//team/deploy//', ['team', 'deploy']],
    [`${BASE}//job/a//`, ['a']],
    ['http://127.0.0.1:1/jenkins/job/a/', ['a'], 'http://127.0.0.1:1/jenkins//']
  ])('repeated slashes at either end are dropped: %s', (input, expected, base = BASE) => {
    expect(parseJobPath(input, base)).toEqual(expected)
  })

  test('a scheme further on is no job URL: the full-name form refuses its empty segment', () => {
    expect(errorOf('team/git://x')).toMatch(/has an empty segment \('\/\/'\)/)
  })

  test('credentials are refused with a user alone, and with a password alone', () => {
    expect(errorOf('http://alice@127.0.0.1:1/jenkins/job/a/')).toMatch(
      /must not contain credentials/
    )
    expect(errorOf('http://:pw-secret@127.0.0.1:1/jenkins/job/a/')).toMatch(
      /must not contain credentials/
    )
  })

  test('the base URL itself names no job (under its own context path)', () => {
    expect(errorOf(BASE)).toMatch(/is not a job path: every name must follow '\/job\/'/)
  })

  test("an empty name after '/job/' is not a job path (not an empty segment)", () => {
    expect(errorOf('job//job/b')).toMatch(/is not a job path: every name must follow '\/job\/'/)
  })
})

describe('jobKey and sameJob', () => {
  test('a job is known by its lower-case full name', () => {
    expect(jobKey(['Team', 'Deploy'])).toBe('team/deploy')
    expect(sameJob(['Team', 'Deploy'], ['team', 'DEPLOY'])).toBe(true)
    expect(sameJob(['team', 'deploy'], ['team', 'deploy2'])).toBe(false)
  })

  test("a name that upper-cases to two letters is not the same job (as Jenkins' case-insensitive order has it)", () => {
    // 'ß'.toUpperCase() is 'SS'; Jenkins compares character by character.
    expect(sameJob(['straße'], ['STRASSE'])).toBe(false)
  })
})

describe('branchItemName and branchNameOf (branch-api NameEncoder)', () => {
  test.each([
    ['main', 'main'],
    ['feature/x', 'feature%2Fx'],
    ['a%b', 'a%25b'],
    ['#?[]\\', '%23%3F%5B%5D%5C'],
    ['', '%00'],
    ['.', '%2E'],
    ['..', '%2E.'],
    ['...', '...']
  ])('%j ↔ %j', (branch, item) => {
    expect(branchItemName(branch)).toBe(item)
    expect(branchNameOf(item)).toBe(branch)
  })

  test('only the escapes NameEncoder writes are read back', () => {
    expect(branchNameOf('a%41b')).toBe('a%41b')
    expect(branchNameOf('%2f')).toBe('%2f')
    expect(branchNameOf('50%')).toBe('50%')
  })
})
