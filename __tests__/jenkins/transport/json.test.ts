import nock from 'nock'
import { describe, expect, it } from 'vitest'
import {
  JsonTooDeep,
  MAX_JSON_DEPTH,
  parseJenkinsJson,
  tooDeepAt
} from '../../../src/jenkins/transport/json.js'
import { jenkinsError, makeClient, ORIGIN, useNock } from '../helpers.js'

useNock()

/** `{"a":` + `[` × depth + `]` × depth + `}`: nested `depth + 1` levels. */
function nested(depth: number): string {
  return `{"a":${'['.repeat(depth)}${']'.repeat(depth)}}`
}

describe('tooDeepAt', () => {
  it('counts brackets and braces outside strings only', () => {
    expect(tooDeepAt(nested(MAX_JSON_DEPTH - 1))).toBe(-1)
    expect(tooDeepAt(nested(MAX_JSON_DEPTH))).toBe(5 + MAX_JSON_DEPTH - 1)
    expect(tooDeepAt('[[[]]]', 2)).toBe(2)
    expect(tooDeepAt('[[]] [[]]', 2)).toBe(-1)
    // Brackets inside strings, with escaped quotes and backslashes before them.
    expect(tooDeepAt('["[[[[", "\\"[[[[", "\\\\", "{{{{\\\\\\"{{"]', 1)).toBe(-1)
    expect(tooDeepAt('["\\\\"[', 1)).toBe(5)
    // A string that never ends: JSON.parse says what is wrong.
    expect(tooDeepAt('["[[[[', 1)).toBe(-1)
  })

  it('a million levels (2 MB) are refused at the first level too many, without recursion', () => {
    const text = '['.repeat(1_000_000) + ']'.repeat(1_000_000)
    expect(() => parseJenkinsJson(text)).toThrow(new JsonTooDeep(MAX_JSON_DEPTH, MAX_JSON_DEPTH))
    expect(() => parseJenkinsJson(text)).toThrow(
      `JSON nested more than ${MAX_JSON_DEPTH} levels deep (at character ${MAX_JSON_DEPTH})`
    )
  })

  it('parses what is within the bound, and leaves malformed text to JSON.parse', () => {
    expect(parseJenkinsJson('{"a":[1,{"b":"]]]"}]}')).toEqual({ a: [1, { b: ']]]' }] })
    expect(() => parseJenkinsJson('{"a":')).toThrow(SyntaxError)
  })
})

describe('a Jenkins answer nested too deep', () => {
  it('is a protocol error saying what was too deep, not retried', async () => {
    const { client } = makeClient()
    const prefix = '{"number":4,"result":"SUCCESS","actions":[{"x":'
    const deep = `${prefix}${nested(1_000_000)}}]}`
    // Three levels before `nested`, its `{` a fourth: the 497th `[` is one too many.
    const offset = prefix.length + '{"a":'.length + (MAX_JSON_DEPTH - 4)
    nock(ORIGIN)
      .get('/jenkins/job/a/4/api/json')
      .query(true)
      .reply(200, deep, { 'Content-Type': 'application/json' })
    const error = await jenkinsError(client.getBuild(['a'], 4), 'protocol')
    expect(error.message).toBe(
      `Jenkins at https://ci.example.com/jenkins answered build #4 of 'a' with JSON nested more than ${MAX_JSON_DEPTH} levels deep (at character ${offset}), which this action does not read: no Jenkins answer it asks for nests that deep, so a plugin or something in front of Jenkins sent it`
    )
    expect(client.requestCounts['build']).toBe(1)
  })

  it('an error body too deep has no message to quote; the status still speaks', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/job/a/4/api/json')
      .query(true)
      .reply(400, `{"message":"x","deep":${nested(100_000)}}`, {
        'Content-Type': 'application/json'
      })
    const error = await jenkinsError(client.getBuild(['a'], 4), 'bad-request')
    expect(error.message).not.toContain(': x')
    expect(error.status).toBe(400)
  })
})
