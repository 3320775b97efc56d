import { describe, expect, it } from 'vitest'
import { Printer } from '../../src/step/printer.js'

function recorder() {
  const out: string[] = []
  const printer = new Printer({
    logger: {
      debug: m => void out.push(`debug ${m}`),
      info: m => void out.push(`info ${m}`),
      warning: m => void out.push(`warning ${m}`)
    },
    write: text => void out.push(`write ${text}`),
    drained: async () => undefined,
    startGroup: title => void out.push(`group ${title}`),
    endGroup: () => void out.push('endgroup'),
    annotate: (message, title) => void out.push(`error ${title}: ${message}`)
  })
  return { out, printer }
}

describe('Printer', () => {
  it('holds lines, warnings, debug and annotations while a group is open, then prints them in order', async () => {
    const { out, printer } = recorder()
    let release!: () => void
    const gate = new Promise<void>(resolve => (release = resolve))
    const group = printer.group('Console of a #1', async sink => {
      sink.write('line 1\n')
      await gate
      sink.write('line 2\n')
    })
    await Promise.resolve()
    printer.logger.info('b #2 started')
    printer.logger.warning('careful')
    printer.logger.debug('detail')
    printer.annotate('boom', 'test x')
    release()
    await group
    printer.logger.info('after')
    expect(out).toEqual([
      'group Console of a #1',
      'write line 1\n',
      'write line 2\n',
      'endgroup',
      'info b #2 started',
      'warning careful',
      'debug detail',
      'error test x: boom',
      'info after'
    ])
  })

  it('prints groups one after the other, in the order asked, and closes a group whose work failed', async () => {
    const { out, printer } = recorder()
    const first = printer.group('one', async sink => {
      await new Promise(resolve => setTimeout(resolve, 10))
      sink.write('1\n')
      throw new Error('cut')
    })
    const second = printer.group('two', async sink => sink.write('2\n'))
    await expect(first).rejects.toThrow('cut')
    await second
    expect(out).toEqual([
      'group one',
      'write 1\n',
      'endgroup',
      'group two',
      'write 2\n',
      'endgroup'
    ])
  })
})
