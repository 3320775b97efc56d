import { describe, expect, it } from 'vitest'
import { Redaction } from '../../src/util/redaction.js'

describe("Redaction('runner'): the runner's SecretMasker", () => {
  it('masks every occurrence, and nothing before a secret is added', () => {
    const masker = new Redaction('runner')
    expect(masker.redact('token s3cr3t-v4lue')).toBe('token s3cr3t-v4lue')
    masker.add('s3cr3t-v4lue')
    expect(masker.redact('a s3cr3t-v4lue b s3cr3t-v4lue')).toBe('a *** b ***')
  })

  it('merges overlapping and touching secrets into one ***', () => {
    const masker = new Redaction('runner')
    masker.add('abcdef')
    masker.add('defghi')
    expect(masker.redact('xabcdefghiy')).toBe('x***y')
    expect(masker.redact('abcdefabcdef')).toBe('***')
  })

  it('masks each trimmed line of a multi-line secret, and ignores blank values', () => {
    const masker = new Redaction('runner')
    masker.add('  ')
    expect(masker.redact('a  b')).toBe('a  b')
    masker.add('first line\r\n  second line  \n')
    expect(masker.redact('see: second line')).toBe('see: ***')
    expect(masker.redact('first line')).toBe('***')
  })

  it('masks the encoded forms the runner registers', () => {
    const secret = `p"a's&<w>rd/ 1!`
    const masker = new Redaction('runner')
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
    for (const form of forms) expect(masker.redact(`[${form}]`), form).toBe('[***]')
    const quoted = new Redaction('runner')
    quoted.add('"quoted-secret"')
    expect(quoted.redact('it is quoted-secret')).toBe('it is ***')
  })
})

describe("Redaction('text'): what the step and the client write", () => {
  it('takes every secret out in every form, the summary escaping included', () => {
    const secret = 'tok_3n*secret#1'
    const secrets = new Redaction()
    secrets.add(secret)
    const forms = [
      secret,
      encodeURIComponent(secret),
      // escapeHtml, as the summary shows Jenkins text.
      'tok&#95;3n&#42;secret&#35;1',
      Buffer.from(secret).toString('base64'),
      JSON.stringify(secret).slice(1, -1)
    ]
    for (const form of forms) expect(secrets.redact(`[${form}]`), form).toBe('[***]')
    // base64 of `user:` + the token (an echoed Authorization value) loses its token part.
    const basic = Buffer.from(`alice:${secret}`).toString('base64')
    expect(secrets.redact(basic)).not.toBe(basic)
    expect(
      Buffer.from(secrets.redact(basic).replace('***', ''), 'base64').toString()
    ).not.toContain('secret')
  })

  it('takes out what a cut left of a secret next to its ellipsis, at least 4 characters', () => {
    const secrets = new Redaction()
    secrets.add('abcdefgh12345678')
    // cut(): the start of it, then the ellipsis.
    expect(secrets.redact('token abcdefgh12…')).toBe('token ***…')
    // The console's tail: the ellipsis, then the end of it.
    expect(secrets.redact('…5678 said')).toBe('…*** said')
    // Fewer than 4 characters, or not next to a cut: left alone.
    expect(secrets.redact('token abc…')).toBe('token abc…')
    expect(secrets.redact('abcdefgh12 and 12345678')).toBe('abcdefgh12 and 12345678')
  })

  it('leaves values under 4 characters alone, and redacts user:password in URLs', () => {
    const secrets = new Redaction()
    secrets.add('on')
    secrets.add('abc')
    expect(secrets.redact('abc is on')).toBe('abc is on')
    expect(secrets.redact('see https://bob:pw@host/x and http://h/y')).toBe(
      'see https://***@host/x and http://h/y'
    )
  })

  it('redacts overlapping secrets whole, whatever order they were added in', () => {
    const secrets = new Redaction()
    secrets.add('abcdef')
    secrets.add('cdefghij')
    expect(secrets.redact('xabcdefghijy')).toBe('x***y')
  })
})

describe("Redaction('text'): a secret's runs of letters and digits", () => {
  it('takes out what a test URL or a label keeps of a secret whose punctuation it replaced', () => {
    const secrets = new Redaction()
    secrets.add('pw-58cad7e169e3.x')
    // CaseResult.getSafeName: every character not a Java identifier part becomes '_'.
    expect(secrets.redact('testReport/a/B/echo__pw_58cad7e169e3_x/')).toBe(
      'testReport/a/B/echo__pw_***_x/'
    )
    // Runs under 8 characters stay: they would blank ordinary words.
    secrets.add('deploy-main-2024-token')
    expect(secrets.redact('deploy main')).toBe('deploy main')
  })
})
