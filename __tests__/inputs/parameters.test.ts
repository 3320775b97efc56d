import { describe, expect, test } from 'vitest'
import { InputError } from '../../src/util/input-error.js'
import { parseParameters } from '../../src/inputs/parameters.js'

function errorOf(text: string): Error {
  try {
    parseParameters(text)
  } catch (error) {
    expect(error).toBeInstanceOf(InputError)
    return error as Error
  }
  throw new Error(`accepted ${JSON.stringify(text)}`)
}

describe('NAME=value lines', () => {
  test('split on the first =, so values may hold = and may be empty', () => {
    expect(parseParameters('BRANCH=main\nQUERY=a=b&c=d\nEMPTY=')).toEqual({
      BRANCH: 'main',
      QUERY: 'a=b&c=d',
      EMPTY: ''
    })
  })

  test('blank lines are skipped and CRLF is tolerated', () => {
    expect(parseParameters('\r\nA=1\r\n\r\n   \r\nB=2\r\n')).toEqual({ A: '1', B: '2' })
  })

  test('the name is trimmed; the value is kept as written', () => {
    expect(parseParameters('  A = spaced value  \n\tB=\tx')).toEqual({
      A: ' spaced value  ',
      B: '\tx'
    })
  })

  test('a repeated name becomes a multi-value parameter in line order', () => {
    expect(parseParameters('TARGET=a\nOTHER=x\nTARGET=b\nTARGET=')).toEqual({
      TARGET: ['a', 'b', ''],
      OTHER: 'x'
    })
  })

  test('names are case-sensitive, as Jenkins reads them', () => {
    expect(parseParameters('a=1\nA=2')).toEqual({ a: '1', A: '2' })
  })

  test('empty or blank input is no parameters', () => {
    expect(parseParameters('')).toEqual({})
    expect(parseParameters(' \n\r\n ')).toEqual({})
  })

  test('a line without = is named by its number, counting blank lines, and not echoed', () => {
    const error = errorOf('\nA=1\n\nsecret-value-here\n')
    expect(error.message).toMatch(
      /^Input 'parameters' line 4 has no '=': expected `NAME=value` lines/
    )
    expect(error.message).not.toContain('secret-value-here')
  })

  test('an empty NAME is refused', () => {
    expect(errorOf('A=1\n  =hidden').message).toMatch(/line 2 has an empty NAME/)
    expect(errorOf('A=1\n  =hidden').message).not.toContain('hidden')
  })
})

describe('JSON object', () => {
  test('strings, numbers, booleans and arrays of those', () => {
    expect(
      parseParameters(
        '{"S": "x=y", "N": 3, "F": 1.5, "T": true, "B": false, "L": ["a", 2, true], "E": "", "Z": []}'
      )
    ).toEqual({
      S: 'x=y',
      N: '3',
      F: '1.5',
      T: 'true',
      B: 'false',
      L: ['a', '2', 'true'],
      E: '',
      Z: []
    })
  })

  test('surrounding whitespace is allowed and {} is no parameters', () => {
    expect(parseParameters('\n  {"A": "1"}  \n')).toEqual({ A: '1' })
    expect(parseParameters('{}')).toEqual({})
  })

  test('a value of __proto__ stays an ordinary parameter', () => {
    const params = parseParameters('{"__proto__": "x"}')
    expect(Object.entries(params)).toEqual([['__proto__', 'x']])
    expect(Object.entries(parseParameters('__proto__=y'))).toEqual([['__proto__', 'y']])
  })

  test.each([
    ['{"A": null}', /value of 'A' is null/],
    ['{"A": {"b": 1}}', /value of 'A' is an object/],
    ['{"A": ["x", null]}', /value of 'A' is null/],
    ['{"A": [["x"]]}', /value of 'A' is a nested array/],
    ['{"A": [{"b": 1}]}', /value of 'A' is an object/],
    ['{"A": 1e999}', /value of 'A' is a number out of range/],
    ['{"": "x"}', /empty parameter name/],
    ['{" ": "x"}', /empty parameter name/],
    ['[1, 2]', /is JSON but not an object/],
    ['{"A": 1,}', /is not valid JSON \(at character \d+\)|is not valid JSON:/],
    ['{A: 1}', /is not valid JSON/],
    ['{"A": "1", "A": "2"}', /has the key 'A' twice \(line 1\): .*\{"A": \["a", "b"\]\}/],
    ['{\n  "A": "1",\n  "B": "x",\n  "\\u0041": "2"\n}', /has the key 'A' twice \(lines 2 and 4\)/],
    ['{"__proto__": "1", "__proto__": "2"}', /has the key '__proto__' twice/]
  ])('%s is refused', (text, pattern) => {
    const error = errorOf(text)
    expect(error.message).toMatch(pattern)
    expect(error.message).toMatch(/^Input 'parameters' /)
    expect(error.message).toMatch(/a JSON object such as/)
  })

  test('JSON nested 100,000 levels deep is refused before momoa (the duplicate-key check) would overflow the stack', () => {
    const error = errorOf(`{"A": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`)
    expect(error.message).toMatch(
      /^Input 'parameters' is JSON nested more than 500 levels deep \(at character 506\): .*a JSON object such as/
    )
  })

  test('a duplicate key names the key but never a value', () => {
    const error = errorOf('{"TOKEN": "hunter2-secret", "TOKEN": "other-secret"}')
    expect(error.message).toContain("'TOKEN' twice")
    expect(error.message).not.toContain('secret')
  })

  test('keys that differ only in case or spacing are different parameters', () => {
    expect(parseParameters('{"A": "1", "a": "2", "A ": "3"}')).toEqual({
      A: '1',
      a: '2',
      'A ': '3'
    })
  })

  test('malformed JSON is not echoed', () => {
    const error = errorOf('{"PASSWORD": "hunter2-secret" "B": 1}')
    expect(error.message).not.toContain('hunter2-secret')
    expect(error.message).not.toContain('PASSWORD')
  })
})
