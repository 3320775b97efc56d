import { describe, expect, it } from 'vitest'
import { Masker } from '../../src/cli/masker.js'

describe('Masker (the runner SecretMasker)', () => {
  it('masks every occurrence, and nothing before a secret is added', () => {
    const masker = new Masker()
    expect(masker.mask('token s3cr3t-v4lue')).toBe('token s3cr3t-v4lue')
    masker.add('s3cr3t-v4lue')
    expect(masker.mask('a s3cr3t-v4lue b s3cr3t-v4lue')).toBe('a *** b ***')
  })

  it('merges overlapping and touching secrets into one ***', () => {
    const masker = new Masker()
    masker.add('abcdef')
    masker.add('defghi')
    expect(masker.mask('xabcdefghiy')).toBe('x***y')
    expect(masker.mask('abcdefabcdef')).toBe('***')
  })

  it('masks each trimmed line of a multi-line secret, and ignores blank values', () => {
    const masker = new Masker()
    masker.add('  ')
    expect(masker.mask('a  b')).toBe('a  b')
    masker.add('first line\r\n  second line  \n')
    expect(masker.mask('see: second line')).toBe('see: ***')
    expect(masker.mask('first line')).toBe('***')
  })

  it('masks the encoded forms the runner registers', () => {
    const secret = `p"a's&<w>rd/ 1!`
    const masker = new Masker()
    masker.add(secret)
    const forms = [
      Buffer.from(secret).toString('base64'),
      // base64 of `user:` + secret carries the secret's base64 from a shifted byte.
      Buffer.from(secret).subarray(1).toString('base64'),
      JSON.stringify(secret).slice(1, -1),
      `p%22a%27s%26%3Cw%3Erd%2F%201%21`,
      'p&quot;a&apos;s&amp;&lt;w&gt;rd/ 1!',
      `p\\"a's&<w>rd/ 1!`,
      `p"a''s&<w>rd/ 1!`
    ]
    for (const form of forms) expect(masker.mask(`[${form}]`), form).toBe('[***]')
    const quoted = new Masker()
    quoted.add('"quoted-secret"')
    expect(quoted.mask('it is quoted-secret')).toBe('it is ***')
  })
})
