/**
 * The runner's reading of a step's output (src/cli/workflow-commands.ts),
 * which the end-to-end tests rely on and the jenkins-build command renders
 * with: if it missed a command form, every "no command came from Jenkins"
 * assertion would pass for nothing, and a terminal would show a command as
 * text.
 */
import { describe, expect, it } from 'vitest'
import {
  CommandReader,
  commandData,
  commandProperties,
  commands,
  endsStopped,
  LineSplitter,
  runnerView
} from '../fixtures/runner-log.js'

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

describe('reading a stream chunk by chunk', () => {
  it('ends lines where ReadLine does, a \\r\\n cut between two chunks included', () => {
    const splitter = new LineSplitter()
    expect(splitter.push('a\r')).toEqual(['a'])
    expect(splitter.push('\nb')).toEqual([])
    expect(splitter.push('\r')).toEqual(['b'])
    expect(splitter.push('\n')).toEqual([])
    expect(splitter.push('\n')).toEqual([''])
    expect(splitter.push('\r\rc')).toEqual(['', ''])
    expect(splitter.end()).toEqual(['c'])
    expect(splitter.end()).toEqual([])
  })

  it('gives the same lines as the whole text, however it is cut', () => {
    const text = 'one\r\ntwo\rthree\n\r\n::error::x\r'
    const whole = runnerView(text).map(l => l.text)
    for (let cut = 0; cut <= text.length; cut++) {
      const splitter = new LineSplitter()
      const lines = [
        ...splitter.push(text.slice(0, cut)),
        ...splitter.push(text.slice(cut)),
        ...splitter.end()
      ]
      expect(lines, `cut at ${cut}`).toEqual(whole)
    }
  })

  it('one command state for several streams: a stop on one holds on the other', () => {
    const reader = new CommandReader()
    expect(reader.read('::stop-commands::t0k3n').command?.name).toBe('stop-commands')
    expect(reader.stopped).toBe(true)
    expect(reader.read('::error::from the other stream')).toEqual({
      text: '::error::from the other stream',
      stopped: true
    })
    expect(reader.read('::t0k3n::').command?.name).toBe('t0k3n')
    expect(reader.stopped).toBe(false)
  })
})

describe('command data and properties, unescaped as the runner does', () => {
  it('v2 data: %0D, %0A, %25 in that order; other escapes stay', () => {
    const [command] = commands('::error::a%0Ab%0Dc%25d %3A %2C %250A')
    expect(command && commandData(command)).toBe('a\nb\rc%d %3A %2C %0A')
  })

  it('v2 properties: also %3A and %2C; pairs without a name or value are skipped', () => {
    const [command] = commands('::error file=a%3Ab%2Cc,line=3,=x,y=,title=T%25::m')
    expect(command && commandProperties(command)).toEqual({ file: 'a:b,c', line: '3', title: 'T%' })
  })

  it('v1 data and properties: %3B and %5D too, properties split on ;', () => {
    const [command] = commands('x ##[warning file=a%3Bb;line=2]d%5D%3B%0A')
    expect(command && commandData(command)).toBe('d];\n')
    expect(command && commandProperties(command)).toEqual({ file: 'a;b', line: '2' })
  })
})
