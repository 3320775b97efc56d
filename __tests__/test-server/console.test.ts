import { afterEach, describe, expect, it } from 'vitest'
import {
  generatedBytes,
  GENERATED_LINE_BYTES,
  startJenkins,
  stripNotes,
  type ServerOptions,
  type TestJenkins
} from '../../test-server/index.js'
import { ADMIN, get, post, waitFor } from './helpers.js'

let jenkins: TestJenkins | undefined

async function start(options: ServerOptions = {}): Promise<TestJenkins> {
  jenkins = await startJenkins({
    users: [{ ...ADMIN, permissions: ['admin'] }],
    quietPeriodSec: 0,
    jobs: {
      notes: {
        type: 'pipeline',
        script: { durationMs: 100, consoleLines: ['[Pipeline] echo'], consoleNotes: true }
      },
      big: { script: { durationMs: 300, consoleBytes: 1_000_050 } },
      hold: { script: { durationMs: 30_000 } }
    },
    ...options
  })
  return jenkins
}

afterEach(async () => {
  await jenkins?.close()
  jenkins = undefined
})

async function progressive(j: TestJenkins, path: string, start?: number) {
  const res = await get(
    j,
    `${path}/logText/progressiveText${start === undefined ? '' : `?start=${start}`}`
  )
  const body = Buffer.from(await res.arrayBuffer())
  return {
    status: res.status,
    size: Number(res.headers.get('x-text-size')),
    more: res.headers.get('x-more-data'),
    type: res.headers.get('content-type'),
    jenkins: res.headers.get('x-jenkins'),
    body
  }
}

describe('progressiveText (jenkins-api.md 6.1)', () => {
  it('sends X-More-Data only while the log is written, CRLF line ends, and the next offset', async () => {
    const j = await start()
    // A build that runs until it is stopped: what it has written is known
    // at each read, however slow the machine (a timed one may have written
    // its lines, or ended, before the first read).
    await post(j, '/job/hold/build')
    await waitFor(() => j.builds('hold')[0], 'build #1 to start')
    const first = await progressive(j, '/job/hold/1')
    expect(first.status).toBe(200)
    expect(first.type).toBe('text/plain;charset=UTF-8')
    expect(first.more).toBe('true')
    expect(first.jenkins).toBeNull()
    expect(first.body.toString()).toBe('Started by user admin\r\n')
    expect(first.size).toBe('Started by user admin\n'.length)

    for (const line of ['one', 'two', 'three']) j.appendConsole('hold', 1, line)
    const written = await progressive(j, '/job/hold/1', first.size)
    expect(written.more).toBe('true')
    expect(written.body.toString()).toBe('one\r\ntwo\r\nthree\r\n')

    expect((await post(j, '/job/hold/1/stop')).status).toBe(302)
    await waitFor(() => (j.builds('hold')[0]?.logUpdated === false ? true : undefined))
    const rest = await progressive(j, '/job/hold/1', written.size)
    expect(rest.more).toBeNull()
    expect(rest.body.toString()).toBe('Aborted by admin\r\nFinished: ABORTED\r\n')
    const stored = j.builds('hold')[0]?.consoleText() ?? ''
    expect(rest.size).toBe(Buffer.byteLength(stored))
    expect(stored).toContain('one\ntwo\n')

    // A start beyond the length restarts from 0.
    const reset = await progressive(j, '/job/hold/1', rest.size + 100)
    expect(reset.body.toString()).toBe(stored.replace(/\n/g, '\r\n'))
    expect(reset.size).toBe(rest.size)
    expect((await get(j, '/job/hold/1/logText/progressiveText?start=abc')).status).toBe(500)
  })

  it('keeps raw ConsoleNotes in progressiveText and strips them from consoleText', async () => {
    const j = await start()
    await post(j, '/job/notes/build')
    await waitFor(() => (j.builds('notes')[0]?.logUpdated === false ? true : undefined))
    const raw = (await progressive(j, '/job/notes/1')).body.toString()
    // eslint-disable-next-line no-control-regex -- ConsoleNotes are delimited by ESC
    expect(raw).toMatch(/\x1b\[8mha:\/\/\/\/[A-Za-z0-9+/=]+\x1b\[0m\[Pipeline\] echo\r\n/)
    const text = await (await get(j, '/job/notes/1/consoleText')).text()
    expect(text).not.toContain('\x1b')
    expect(text).toContain('[Pipeline] echo\n')
    expect(text).toBe(stripNotes(j.builds('notes')[0]?.consoleText() ?? ''))
  })

  it('serves any range of a generated console, deterministically by offset', async () => {
    const j = await start()
    await post(j, '/job/big/build')
    await waitFor(() => (j.builds('big')[0]?.logUpdated === false ? true : undefined))
    const build = j.builds('big')[0]
    const header = 'Started by user admin\n'.length
    const total = build?.consoleLength() ?? 0
    expect(total).toBe(header + 1_000_050 + 'Finished: SUCCESS\n'.length)
    const offset = header + 5 * GENERATED_LINE_BYTES + 7
    const res = await get(j, `/job/big/1/logText/progressiveText?start=${offset}`)
    const body = Buffer.from(await res.arrayBuffer()).toString('latin1')
    const expected = generatedBytes(offset - header, 1_000_050, 1_000_050).toString('latin1')
    expect(body.startsWith(expected.slice(0, 500).replace(/\n/g, '\r\n'))).toBe(true)
    expect(body.endsWith('\r\nFinished: SUCCESS\r\n')).toBe(true)
    // The generated console ends in a newline even when its size is not whole lines.
    expect(expected.endsWith('\n')).toBe(true)
    expect(generatedBytes(0, 1_000_050, 1_000_050)).toHaveLength(1_000_050)
  })

  it('writes injected lines into a running build', async () => {
    const j = await start()
    await post(j, '/job/hold/build')
    j.appendConsole('hold', 1, '::add-mask::s3cret')
    j.appendConsole('hold', 1, '::error::boom\n')
    const text = await (await get(j, '/job/hold/1/consoleText')).text()
    expect(text).toBe('Started by user admin\n::add-mask::s3cret\n::error::boom\n')
    expect(() => j.appendConsole('hold', 2, 'x')).toThrow()
  })
})
