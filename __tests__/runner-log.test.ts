/**
 * The runner emulation the end-to-end tests rely on (fixtures/runner-log.ts):
 * if it missed a command form, every "no command came from Jenkins" assertion
 * would pass for nothing.
 */
import { describe, expect, it } from 'vitest'
import { commands, endsStopped, runnerView } from './fixtures/runner-log.js'

describe('the runner emulation', () => {
  it('splits lines on \\r, \\n and \\r\\n', () => {
    expect(runnerView('a\rb\nc\r\nd\n').map(l => l.text)).toEqual(['a', 'b', 'c', 'd'])
    expect(commands('why: x\r::warning::y')).toEqual([
      { name: 'warning', properties: '', value: 'y', form: 'v2' }
    ])
  })

  it('takes ::name props::data after .NET TrimStart (U+0085 included), names case-insensitive', () => {
    expect(commands('  \t::ERROR title=t::boom')).toEqual([
      { name: 'error', properties: 'title=t', value: 'boom', form: 'v2' }
    ])
    expect(commands('\u0085::error::x')).toHaveLength(1)
    // U+FEFF is not whitespace to .NET.
    expect(commands('\ufeff::error::x')).toEqual([])
    expect(commands('x ::error::y')).toEqual([])
    // Unregistered names are plain text.
    expect(commands('::nope::y')).toEqual([])
  })

  it('takes ##[name]data anywhere in a line', () => {
    expect(commands('In the quiet period ##[error]x')).toEqual([
      { name: 'error', properties: '', value: 'x', form: 'v1' }
    ])
    expect(commands('##[Warning file=a]y')).toEqual([
      { name: 'warning', properties: 'file=a', value: 'y', form: 'v1' }
    ])
    // v2 wins when both would parse: the v1 part is data.
    expect(commands('::debug::##[error]x')).toEqual([
      { name: 'debug', properties: '', value: '##[error]x', form: 'v2' }
    ])
  })

  it('honours stop-commands until the token, in either form', () => {
    const out = ['::stop-commands::Tok', '::error::no', '##[error]no', 'x ##[TOK]', '::error::yes']
    expect(commands(out.join('\n')).map(c => c.value)).toEqual(['Tok', 'yes'])
    expect(runnerView(out.join('\n')).map(l => l.stopped)).toEqual([false, true, true, true, false])
    expect(endsStopped(out.join('\n'))).toBe(false)
    expect(endsStopped('a\n::stop-commands::evil\nb\n')).toBe(true)
  })
})
