import { describe, expect, it } from 'vitest'
import { sourceLineUrl } from '../../src/outcome/source-link.js'

const COMMIT = { serverUrl: 'https://github.com', repository: 'owner/repo', sha: 'a'.repeat(40) }

describe('sourceLineUrl', () => {
  it('links the line of the file at the commit', () => {
    expect(
      sourceLineUrl(COMMIT, {
        file: 'src/test/java/com/example/calc/CalculatorTest.java',
        line: 42
      })
    ).toBe(
      `https://github.com/owner/repo/blob/${'a'.repeat(40)}/src/test/java/com/example/calc/CalculatorTest.java#L42`
    )
  })

  it('URL-encodes each path segment: a #, ?, %, space or quote stays part of the path', () => {
    expect(
      sourceLineUrl(
        { ...COMMIT, serverUrl: 'https://ghe.example.com/' },
        { file: 'tests/a b#1/x?y%"<z>.py', line: 7 }
      )
    ).toBe(
      `https://ghe.example.com/owner/repo/blob/${'a'.repeat(40)}/tests/a%20b%231/x%3Fy%25%22%3Cz%3E.py#L7`
    )
  })
})
