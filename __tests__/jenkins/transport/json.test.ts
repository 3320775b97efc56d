import nock from 'nock'
import { describe, expect, it } from 'vitest'
import {
  JsonTooDeep,
  MAX_JSON_DEPTH,
  parseJenkinsJson,
  readJenkinsJson,
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
    // `text` `limit` levels below the bound: it goes too deep where it nests deeper than `limit`.
    const below = (limit: number, text: string) => '['.repeat(MAX_JSON_DEPTH - limit) + text
    const from = (limit: number) => MAX_JSON_DEPTH - limit
    expect(tooDeepAt(below(2, '[[[]]]'))).toBe(from(2) + 2)
    expect(tooDeepAt(below(2, '[[]] [[]]'))).toBe(-1)
    // Brackets inside strings, with escaped quotes and backslashes before them.
    expect(tooDeepAt(below(1, '["[[[[", "\\"[[[[", "\\\\", "{{{{\\\\\\"{{"]'))).toBe(-1)
    expect(tooDeepAt(below(1, '["\\\\"['))).toBe(from(1) + 5)
    // A string that never ends: JSON.parse says what is wrong.
    expect(tooDeepAt(below(1, '["[[[['))).toBe(-1)
  })

  it('a million levels (2 MB) are refused at the first level too many, without recursion', () => {
    const text = '['.repeat(1_000_000) + ']'.repeat(1_000_000)
    expect(() => parseJenkinsJson(text)).toThrow(new JsonTooDeep(MAX_JSON_DEPTH))
    expect(() => parseJenkinsJson(text)).toThrow(
      `JSON nested more than ${MAX_JSON_DEPTH} levels deep (at character ${MAX_JSON_DEPTH})`
    )
  })

  it('parses what is within the bound, and leaves malformed text to JSON.parse', () => {
    expect(parseJenkinsJson('{"a":[1,{"b":"]]]"}]}')).toEqual({ a: [1, { b: ']]]' }] })
    expect(() => parseJenkinsJson('{"a":')).toThrow(SyntaxError)
  })
})

/** `[` × depth + `]` × depth: nested `depth` levels. */
function brackets(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth)
}

describe('readJenkinsJson: elements of droppable lists nested too deep are left out', () => {
  const actions = { droppable: ['actions', 'changeSets'] }
  const deepAction = (depth: number) =>
    `{"_class":"hudson.model.DeepAction","nested":${brackets(depth)}}`

  it('a million levels deep in one action (2 MB): that action is left out, the rest read', () => {
    const head = '{"number":7,"result":"SUCCESS","actions":[{"_class":"a.Cause"},'
    const text = `${head}${deepAction(1_000_000)},{"_class":"a.Params"}],"url":"u"}`
    const { value, dropped } = readJenkinsJson(text, actions)
    expect(value).toEqual({
      number: 7,
      result: 'SUCCESS',
      actions: [{ _class: 'a.Cause' }, { _class: 'a.Params' }],
      url: 'u'
    })
    // `{` 1, `[` 2, the action's `{` 3: the 498th bracket of `nested` is level 501.
    const offset = head.length + '{"_class":"hudson.model.DeepAction","nested":'.length + 497
    expect(dropped).toEqual([
      { field: 'actions', index: 1, className: 'hudson.model.DeepAction', offset }
    ])
    expect(text[offset]).toBe('[')
  })

  it('keeps the list valid wherever the dropped elements are, commas and spaces included', () => {
    const d = deepAction(MAX_JSON_DEPTH)
    const read = (list: string) => readJenkinsJson(`{"actions":${list}}`, actions)
    expect(read(`[${d}]`).value).toEqual({ actions: [] })
    expect(read(`[ ${d} , 1 ]`).value).toEqual({ actions: [1] })
    expect(read(`[1 , ${d} ]`).value).toEqual({ actions: [1] })
    expect(read(`[${d},${d},1,${d},2,${d}]`).value).toEqual({ actions: [1, 2] })
    expect(read(`[${d},${d}]`).dropped.map(p => p.index)).toEqual([0, 1])
    // An element without a leading _class is still dropped, unnamed.
    expect(read(`[${brackets(MAX_JSON_DEPTH)}]`).dropped).toEqual([
      { field: 'actions', index: 0, offset: 12 + MAX_JSON_DEPTH - 2 }
    ])
  })

  it('an element exactly at the bound is kept; one level more is dropped', () => {
    // `{` + `[` + element levels: the element may nest MAX_JSON_DEPTH - 2 levels.
    const at = readJenkinsJson(`{"actions":[${brackets(MAX_JSON_DEPTH - 2)}]}`, actions)
    expect(at.dropped).toEqual([])
    const over = readJenkinsJson(`{"actions":[${brackets(MAX_JSON_DEPTH - 1)}]}`, actions)
    expect(over.value).toEqual({ actions: [] })
  })

  it('refuses the whole answer when a top-level field, or a list not named, is too deep', () => {
    const deep = brackets(1_000_000)
    const refused = (text: string) => () => readJenkinsJson(text, actions)
    // The build's own fields.
    expect(refused(`{"number":7,"result":${deep},"actions":[]}`)).toThrow(JsonTooDeep)
    expect(refused(`{"number":{"n":${deep}}}`)).toThrow(new JsonTooDeep(15 + 498))
    // A list the reader did not name, and the named name as a value, not a key.
    expect(refused(`{"artifacts":[${deep}]}`)).toThrow(JsonTooDeep)
    expect(refused(`{"a":"actions","b":[${deep}]}`)).toThrow(JsonTooDeep)
    // A list of that name below the top level, and a document that is a list.
    expect(refused(`{"x":{"actions":[${deep}]}}`)).toThrow(JsonTooDeep)
    expect(refused(`[{"actions":[${deep}]}]`)).toThrow(JsonTooDeep)
    // Nothing is droppable unless the reader says so.
    expect(() => readJenkinsJson(`{"actions":[${deep}]}`)).toThrow(JsonTooDeep)
    // A droppable element dropped does not excuse a later field too deep.
    expect(refused(`{"actions":[${deep}],"result":${deep}}`)).toThrow(JsonTooDeep)
  })

  it('brackets in strings and keys do not count; malformed text stays a SyntaxError', () => {
    const text = `{"a\\\\":"]]","actions":["[[[",${deepAction(MAX_JSON_DEPTH)},"]\\"]"]}`
    expect(readJenkinsJson(text, actions).value).toEqual({ 'a\\': ']]', actions: ['[[[', ']"]'] })
    // A deep element that never ends is not cut: JSON.parse refuses the text.
    expect(() => readJenkinsJson(`{"actions":[${brackets(600).slice(0, 900)}`, actions)).toThrow(
      SyntaxError
    )
    expect(() => readJenkinsJson(`{"actions":[,${deepAction(600)}]}`, actions)).toThrow(SyntaxError)
  })
})

describe('a Jenkins answer nested too deep', () => {
  it('a build with one action a million levels deep is read without it, said once', async () => {
    const { client, logger } = makeClient()
    const prefix = '{"number":4,"result":"SUCCESS","actions":[{"_class":"x.Deep","x":'
    const deep = `${prefix}${nested(1_000_000)}},{"_class":"x.Kept"}]}`
    // Three levels before `nested`, its `{` a fourth: the 497th `[` is one too many.
    const offset = prefix.length + '{"a":'.length + (MAX_JSON_DEPTH - 4)
    nock(ORIGIN)
      .get('/jenkins/job/a/4/api/json')
      .query(true)
      .times(2)
      .reply(200, deep, { 'Content-Type': 'application/json' })
    for (let read = 0; read < 2; read++) {
      const build = await client.getBuild(['a'], 4)
      expect(build.json).toEqual({
        number: 4,
        result: 'SUCCESS',
        actions: [{ _class: 'x.Kept' }]
      })
    }
    expect(logger.lines.filter(l => l.level === 'warning').map(l => l.message)).toEqual([
      `Jenkins at https://ci.example.com/jenkins answered build #4 of 'a' with element 1 of its 'actions' (x.Deep) nested more than ${MAX_JSON_DEPTH} levels deep (at character ${offset}): it is read without that element, as if Jenkins had not sent it (a plugin's data, or something in front of Jenkins that ignores tree=)`
    ])
  })

  it('is a protocol error saying what was too deep, not retried, when a field of the build is', async () => {
    const { client } = makeClient()
    const prefix = '{"number":4,"actions":[],"result":{"x":'
    const deep = `${prefix}${nested(1_000_000)}}}`
    // Two levels before `nested`, its `{` a third: the 498th `[` is one too many.
    const offset = prefix.length + '{"a":'.length + (MAX_JSON_DEPTH - 3)
    nock(ORIGIN)
      .get('/jenkins/job/a/4/api/json')
      .query(true)
      .reply(200, deep, { 'Content-Type': 'application/json' })
    const error = await jenkinsError(client.getBuild(['a'], 4), 'protocol')
    expect(error.message).toBe(
      `Jenkins at https://ci.example.com/jenkins answered build #4 of 'a' with JSON nested more than ${MAX_JSON_DEPTH} levels deep (at character ${offset}), which this action does not read: no Jenkins answer it asks for nests that deep, so a plugin or something in front of Jenkins sent it`
    )
    expect(client.http.requestCounts['build']).toBe(1)
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
