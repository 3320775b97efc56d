import { describe, expect, it } from 'vitest'
import {
  parseKeyValueLines,
  parseJsonValues,
  parseValues,
  readValues
} from '../../src/outcome/values.js'
import { Interrupted, JenkinsError } from '../../src/jenkins/transport/errors.js'
import { productProblems } from '../../src/outcome/report.js'
import type { Logger } from '../../src/util/logger.js'

const ref = { job: ['team', 'app'], number: 12, url: 'http://j/job/team/job/app/12/' }

function logger(): Logger & { warnings: string[] } {
  const warnings: string[] = []
  return { debug: () => {}, info: () => {}, warning: m => warnings.push(m), warnings }
}

describe('parseKeyValueLines', () => {
  it('reads KEY=VALUE lines: CRLF or LF, blanks and # lines skipped, key trimmed, value exact', () => {
    const parsed = parseKeyValueLines(
      '# built by ci\r\nVERSION=1.4.2\r\n\n  IMAGE = repo/app:1.4.2 \n  # indented comment\nQUOTED="a b"\nEQ=a=b=c\nEMPTY=\nESC=a\\nb\tc\nLONE=x\ry\n   \n'
    )
    expect(parsed).toEqual({
      values: {
        VERSION: '1.4.2',
        IMAGE: ' repo/app:1.4.2 ',
        QUOTED: '"a b"',
        EQ: 'a=b=c',
        EMPTY: '',
        ESC: 'a\\nb\tc',
        LONE: 'x\ry'
      }
    })
  })

  it('refuses a line without =, an empty key and a key twice, naming the line', () => {
    expect(parseKeyValueLines('A=1\nB\n')).toEqual({ problem: "has no '=' on line 2" })
    expect(parseKeyValueLines('A=1\n =2\n')).toEqual({ problem: 'has an empty key on line 2' })
    expect(parseKeyValueLines('A=1\n\nA =2\n')).toEqual({
      problem: 'has the key "A" twice (line 3)'
    })
  })

  it('keeps __proto__ and constructor as plain keys', () => {
    const parsed = parseKeyValueLines('__proto__=x\nconstructor=y\n')
    expect(JSON.stringify('values' in parsed && parsed.values)).toBe(
      '{"__proto__":"x","constructor":"y"}'
    )
  })

  it('gives {} for an empty file or only comments', () => {
    expect(JSON.stringify(parseKeyValueLines(''))).toBe('{"values":{}}')
    expect(JSON.stringify(parseKeyValueLines('# nothing\n\n'))).toBe('{"values":{}}')
  })
})

describe('parseJsonValues', () => {
  it('keeps one object with its nested values', () => {
    expect(
      parseJsonValues(' {"version":"1.4.2","n":3,"ok":true,"tags":["a"],"m":{"x":null}} ')
    ).toEqual({
      values: { version: '1.4.2', n: 3, ok: true, tags: ['a'], m: { x: null } }
    })
  })

  it('refuses what is not one JSON object', () => {
    for (const [text, kind] of [
      ['[1]', 'an array'],
      ['null', 'null'],
      ['"s"', 'string'],
      ['3', 'number']
    ]) {
      expect(parseJsonValues(text as string)).toEqual({
        problem: `is not one JSON object (it holds ${kind})`
      })
    }
    expect(parseJsonValues('{"a":1} {"b":2}')).toMatchObject({
      problem: expect.stringMatching(/^is not one JSON object \(/)
    })
    expect(parseJsonValues('')).toMatchObject({
      problem: expect.stringMatching(/^is not one JSON object/)
    })
    expect(parseJsonValues('['.repeat(600) + ']'.repeat(600))).toMatchObject({
      problem: expect.stringMatching(/nested more than 500 levels/)
    })
  })

  it('refuses a key twice, at the top or nested, but not the same key in two objects', () => {
    expect(parseJsonValues('{"a":1,"b":{"c":1},"a":2}')).toEqual({
      problem: 'has the key "a" twice'
    })
    expect(parseJsonValues('{"b":{"c":"}\\"","c":2}}')).toEqual({
      problem: 'has the key "c" twice'
    })
    expect(parseJsonValues('{"a\\u0041":1,"aA":2}')).toEqual({ problem: 'has the key "aA" twice' })
    expect(
      parseJsonValues('{"x":{"k":1},"y":{"k":2},"z":[{"k":3},{"k":4}],"s":"k:"}')
    ).toMatchObject({
      values: { x: { k: 1 } }
    })
  })
})

describe('parseValues', () => {
  it('reads .json files as JSON and others as lines; a BOM is not part of the first key', () => {
    expect(parseValues('out/values.JSON', Buffer.from('\uFEFF{"a":"1"}'))).toEqual({
      values: { a: '1' }
    })
    expect(parseValues('build.env', Buffer.from('\uFEFFa=1'))).toEqual({ values: { a: '1' } })
    expect(parseValues('values.json.txt', Buffer.from('{"a":1}'))).toEqual({
      problem: "has no '=' on line 1"
    })
  })
})

describe('readValues', () => {
  it('reads at most 1 MiB, in one request, and gives the values', async () => {
    const calls: unknown[] = []
    const out = logger()
    const result = await readValues(
      {
        readArtifact: async (...args) => {
          calls.push(args)
          return { bytes: Buffer.from('A=1') }
        }
      },
      ref,
      'build.env',
      out
    )
    expect(calls).toEqual([[ref, 'build.env', 1024 * 1024]])
    expect(result).toEqual({ values: { A: '1' } })
    expect(out.warnings).toEqual([])
  })

  it.each([
    [
      'not archived',
      new JenkinsError('not-found', 'gone', 404),
      'was not archived by the build (404)'
    ],
    [
      'unreadable',
      new JenkinsError('forbidden', 'no Run/Artifacts', 403),
      'could not be read (no Run/Artifacts)'
    ]
  ])('%s: one warning that says which, and {}', async (_, error, says) => {
    const out = logger()
    const result = await readValues(
      {
        readArtifact: async () => {
          throw error
        }
      },
      ref,
      'values.json',
      out
    )
    expect(JSON.stringify(result.values)).toBe('{}')
    expect(out.warnings).toEqual([
      `The values-file 'values.json' of build #12 of team/app ${says}: the values output is {}.`
    ])
  })

  it('too large and malformed: one warning each, and {}', async () => {
    for (const [read, says] of [
      [{ tooLarge: true as const }, 'is larger than 1 MiB, so it was not read'],
      [{ bytes: Buffer.from('{"a":1,"a":2}') }, 'has the key "a" twice']
    ] as const) {
      const out = logger()
      const result = await readValues({ readArtifact: async () => read }, ref, 'v.json', out)
      expect(JSON.stringify(result.values)).toBe('{}')
      expect(out.warnings).toEqual([
        `The values-file 'v.json' of build #12 of team/app ${says}: the values output is {}.`
      ])
    }
  })

  it('values-file-required: no warning but the problem the step fails with, and {}', async () => {
    const out = logger()
    const missing = async () => {
      throw new JenkinsError('not-found', 'gone', 404)
    }
    const result = await readValues({ readArtifact: missing }, ref, 'build.env', out, {
      required: true
    })
    expect(JSON.stringify(result.values)).toBe('{}')
    expect(out.warnings).toEqual([])
    expect(result).toMatchObject({
      required: true,
      problem:
        "The values-file 'build.env' of build #12 of team/app was not archived by the build (404), and values-file-required is true: the values output is {}."
    })
    expect(
      productProblems({ outcome: { jobName: 'team/app', jobUrl: '' }, values: result })
    ).toEqual([result.problem])
    // Read, or not required: nothing the step fails with.
    const read = await readValues(
      { readArtifact: async () => ({ bytes: Buffer.from('A=1') }) },
      ref,
      'build.env',
      out,
      { required: true }
    )
    expect(productProblems({ outcome: { jobName: 'team/app', jobUrl: '' }, values: read })).toEqual(
      []
    )
    const warned = await readValues({ readArtifact: missing }, ref, 'build.env', out)
    expect(
      productProblems({ outcome: { jobName: 'team/app', jobUrl: '' }, values: warned })
    ).toEqual([])
  })

  it('lets the step’s own cancel through', async () => {
    const cancelled = new Interrupted('cancelled', { sent: false })
    await expect(
      readValues({ readArtifact: async () => Promise.reject(cancelled) }, ref, 'v.json', logger())
    ).rejects.toBe(cancelled)
    const stop = new Error('aborted')
    await expect(
      readValues({ readArtifact: async () => Promise.reject(stop) }, ref, 'v.json', logger())
    ).rejects.toBe(stop)
  })
})
