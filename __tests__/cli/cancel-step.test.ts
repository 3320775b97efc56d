import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { interruptedStatus, Output } from '../../src/cli/cancel-step.js'

describe('Output: a stream whose reader may go away', () => {
  it('tells once that the reader went away, with the error code, and drops what is written after', () => {
    const stream = new PassThrough()
    let written = ''
    stream.on('data', (chunk: Buffer) => (written += chunk.toString()))
    const told: string[] = []
    const output = new Output('stdout', stream, (name, code) => told.push(`${name} ${code}`))
    output.write('one\n')
    expect(output.closed).toBeUndefined()
    const epipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })
    stream.emit('error', epipe)
    stream.emit('error', epipe)
    output.write('two\n')
    expect(told).toEqual(['stdout EPIPE'])
    expect(output.closed).toBe('EPIPE')
    expect(written).toBe('one\n')
  })

  it('a write that throws closes it too', () => {
    const stream = new PassThrough()
    stream.write = () => {
      throw Object.assign(new Error('write EBADF'), { code: 'EBADF' })
    }
    const output = new Output('stderr', stream, () => undefined)
    output.write('x')
    expect(output.closed).toBe('EBADF')
  })
})

describe('interruptedStatus: what a shell reports', () => {
  it('128 + the signal, and 141 (SIGPIPE) for a closed output', () => {
    expect(interruptedStatus({ signal: 'SIGINT' })).toBe(130)
    expect(interruptedStatus({ signal: 'SIGTERM' })).toBe(143)
    expect(interruptedStatus({ signal: 'SIGHUP' })).toBe(129)
    expect(interruptedStatus({ closed: 'stdout' })).toBe(141)
  })
})
