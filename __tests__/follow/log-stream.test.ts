import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { ConsoleStreamer, stopCommands, withCommandsStopped } from '../../src/follow/log-stream.js'
import { whenCommandsRun } from '../../src/runner/commands.js'
import type { BuildRef, ProgressiveText } from '../../src/jenkins/model/types.js'

const build: BuildRef = {
  job: ['team', 'deploy'],
  number: 12,
  url: 'http://127.0.0.1/job/team/job/deploy/12/'
}

interface Reply {
  chunks: (string | Buffer)[] | Readable
  textSize: number
  moreData: boolean
}

/** A fake progressiveText that answers the queued replies in order and records each start. */
function fakeApi(replies: Reply[]) {
  const starts: number[] = []
  return {
    starts,
    progressiveText: async (ref: BuildRef, start: number): Promise<ProgressiveText> => {
      expect(ref).toBe(build)
      starts.push(start)
      const reply = replies.shift()
      if (!reply) throw new Error('unexpected poll')
      const body = reply.chunks instanceof Readable ? reply.chunks : Readable.from(reply.chunks)
      return { body, textSize: reply.textSize, moreData: reply.moreData }
    }
  }
}

function collector() {
  const written: string[] = []
  return { written, write: (text: string) => void written.push(text), text: () => written.join('') }
}

describe('ConsoleStreamer', () => {
  it('writes complete lines, holds back a partial line until the next poll, and follows X-Text-Size', async () => {
    const api = fakeApi([
      { chunks: ['Started by user alice\r\n', 'Building in work'], textSize: 40, moreData: true },
      { chunks: ['space /tmp\r\nFinished: SUCCESS\r\n'], textSize: 75, moreData: false }
    ])
    const sink = collector()
    const streamer = new ConsoleStreamer(api, build, sink)

    expect(await streamer.poll()).toEqual({ moreData: true, grew: true, finished: false })
    expect(sink.text()).toBe('Started by user alice\n')

    expect(await streamer.poll()).toEqual({ moreData: false, grew: true, finished: true })
    expect(sink.text()).toBe(
      'Started by user alice\nBuilding in workspace /tmp\nFinished: SUCCESS\n'
    )
    expect(api.starts).toEqual([0, 40])
  })

  it('keeps multi-byte characters split between chunks and between polls', async () => {
    const text = 'größe 😀 ok\n'
    const bytes = Buffer.from(text, 'utf8')
    const emoji = bytes.indexOf(0xf0)
    const api = fakeApi([
      // ö split inside one body, the emoji split across two polls
      {
        chunks: [bytes.subarray(0, 3), bytes.subarray(3, emoji + 2)],
        textSize: emoji + 2,
        moreData: true
      },
      { chunks: [bytes.subarray(emoji + 2)], textSize: bytes.length, moreData: false }
    ])
    const sink = collector()
    const streamer = new ConsoleStreamer(api, build, sink)
    await streamer.poll()
    await streamer.poll()
    streamer.flush()
    expect(sink.text()).toBe(text)
    expect(sink.text()).not.toContain('\uFFFD')
  })

  it('turns CRLF into LF even when CR and LF arrive in different chunks or polls, and keeps a lone CR', async () => {
    const api = fakeApi([
      { chunks: ['a\r', '\nb\r'], textSize: 4, moreData: true },
      { chunks: ['\n10%\r20%\r\n'], textSize: 9, moreData: false }
    ])
    const sink = collector()
    const streamer = new ConsoleStreamer(api, build, sink)
    await streamer.poll()
    await streamer.poll()
    streamer.flush()
    expect(sink.text()).toBe('a\nb\n10%\r20%\n')
  })

  it('strips ConsoleNote annotations (Jenkins >= 2.509), also when one is split between polls', async () => {
    const note = '\x1b[8mha:////4LsUxG2SHBs1R+9mLm5o5yZCm2xTcu8AAAA=\x1b[0m'
    const api = fakeApi([
      {
        chunks: [`[Pipeline] ${note}echo\r\nhello ${note.slice(0, 12)}`],
        textSize: 50,
        moreData: true
      },
      { chunks: [`${note.slice(12)}world\r\n`], textSize: 90, moreData: false }
    ])
    const sink = collector()
    const streamer = new ConsoleStreamer(api, build, sink)
    await streamer.poll()
    await streamer.poll()
    streamer.flush()
    expect(sink.text()).toBe('[Pipeline] echo\nhello world\n')
    // Other escape sequences (colours) are the runner's to render.
    expect(sink.text()).not.toContain('ha:')
  })

  it('keeps ANSI colours', async () => {
    const api = fakeApi([{ chunks: ['\x1b[31mred\x1b[0m\r\n'], textSize: 14, moreData: false }])
    const sink = collector()
    await new ConsoleStreamer(api, build, sink).poll()
    expect(sink.text()).toBe('\x1b[31mred\x1b[0m\n')
  })

  it('flush writes the held-back partial line and ends it, so the next command starts a line', async () => {
    const api = fakeApi([{ chunks: ['one\r\ntwo'], textSize: 8, moreData: false }])
    const sink = collector()
    const streamer = new ConsoleStreamer(api, build, sink)
    await streamer.poll()
    expect(sink.text()).toBe('one\n')
    streamer.flush()
    expect(sink.text()).toBe('one\ntwo\n')
    streamer.flush()
    expect(sink.text()).toBe('one\ntwo\n')
  })

  it('writes an overlong line without waiting for its end, and flush then ends that line', async () => {
    // Longer than the 64 Ki characters a partial line may hold.
    const long = 'x'.repeat(70_000)
    const api = fakeApi([
      { chunks: [long.slice(0, 35_000), long.slice(35_000)], textSize: 70_000, moreData: true },
      { chunks: ['yz\r\n'], textSize: 70_003, moreData: true },
      { chunks: ['abc'], textSize: 70_006, moreData: false }
    ])
    const sink = collector()
    const streamer = new ConsoleStreamer(api, build, sink)
    await streamer.poll()
    expect(sink.text()).toBe(long)
    await streamer.poll()
    expect(sink.text()).toBe(long + 'yz\n')
    await streamer.poll()
    streamer.flush()
    expect(sink.text()).toBe(long + 'yz\nabc\n')
  })

  it('does not write a half of a CRLF or of a ConsoleNote when spilling an overlong line', async () => {
    const note = '\x1b[8mha:AAAA\x1b[0m'
    const n = 70_000
    const api = fakeApi([
      { chunks: ['a'.repeat(n) + '\r'], textSize: n + 1, moreData: true },
      { chunks: ['\n' + 'b'.repeat(n) + note.slice(0, 6)], textSize: 2 * n, moreData: true },
      { chunks: [note.slice(6) + 'c\r\n'], textSize: 2 * n + 20, moreData: false }
    ])
    const sink = collector()
    const streamer = new ConsoleStreamer(api, build, sink)
    await streamer.poll()
    await streamer.poll()
    await streamer.poll()
    expect(sink.text()).toBe('a'.repeat(n) + '\n' + 'b'.repeat(n) + 'c\n')
  })

  it('a chunk that decodes to nothing (half of a character) does not write an unfinished ConsoleNote held back', async () => {
    // A note longer than a partial line may hold: held back from its ESC until it ends.
    const open = '\x1b[8mha:' + 'A'.repeat(70_000)
    const e = Buffer.from('é', 'utf8')
    const api = fakeApi([
      {
        chunks: [
          Buffer.from('x' + open),
          e.subarray(0, 1),
          Buffer.concat([e.subarray(1), Buffer.from('\x1b[0mdone\r\n')])
        ],
        textSize: 70_020,
        moreData: false
      }
    ])
    const sink = collector()
    const streamer = new ConsoleStreamer(api, build, sink)
    await streamer.poll()
    streamer.flush()
    expect(sink.text()).toBe('xdone\n')
  })

  it('writes Jenkins lines verbatim (workflow commands included) between the stop and resume markers', async () => {
    const lines = [
      '::add-mask::secret',
      '::set-output name=x::y',
      '::error::boom',
      '::stop-commands::abc',
      '::endgroup::'
    ]
    const api = fakeApi([{ chunks: [lines.join('\r\n') + '\r\n'], textSize: 100, moreData: false }])
    const sink = collector()
    const streamer = new ConsoleStreamer(api, build, sink)
    const result = await withCommandsStopped(sink.write, async () => {
      while ((await streamer.poll()).moreData) {
        // polls until the log is complete
      }
      streamer.flush()
      return 'done'
    })
    expect(result).toBe('done')
    const out = sink.text().split('\n')
    const stop = /^::stop-commands::([0-9a-f-]{36})$/.exec(out[0] ?? '')
    expect(stop).not.toBeNull()
    const token = stop?.[1] ?? ''
    expect(out.slice(1, 6)).toEqual(lines)
    expect(out[6]).toBe(`::${token}::`)
    expect(out.slice(7)).toEqual([''])
    // the console's own stop-commands does not use our token
    expect(token).not.toBe('abc')
  })

  it("reports Jenkins' Finished: line only while it is the console's last line", async () => {
    const api = fakeApi([
      { chunks: ['Finished: SUCCESS\r\n'], textSize: 18, moreData: true },
      { chunks: [], textSize: 18, moreData: true },
      { chunks: ['Failed to clean up stashes\r\n'], textSize: 45, moreData: true },
      { chunks: ['Finished: MAYBE\r\nFinished: FAILURE'], textSize: 79, moreData: true },
      { chunks: ['\r\n'], textSize: 80, moreData: false }
    ])
    const streamer = new ConsoleStreamer(api, build, collector())
    const finished = async () => (await streamer.poll()).finished
    expect(await finished()).toBe(true)
    // Still the last line: nothing came since.
    expect(await finished()).toBe(true)
    expect(await finished()).toBe(false)
    // Not a result, and a line not ended yet.
    expect(await finished()).toBe(false)
    expect(await finished()).toBe(true)
  })

  it('skips a log Jenkins resent from 0 (X-Text-Size below our offset), says so, and follows on', async () => {
    const api = fakeApi([
      { chunks: ['line 1\r\nline 2\r\npart'], textSize: 20, moreData: true },
      // Jenkins reset start=20 to 0: the whole (shorter) log again
      { chunks: ['line 1\r\n'], textSize: 7, moreData: true },
      { chunks: ['line 9\r\n'], textSize: 14, moreData: false }
    ])
    const sink = collector()
    const streamer = new ConsoleStreamer(api, build, sink)
    await streamer.poll()
    await streamer.poll()
    await streamer.poll()
    expect(api.starts).toEqual([0, 20, 7])
    const out = sink.text().split('\n')
    expect(out[0]).toBe('line 1')
    expect(out[1]).toBe('line 2')
    expect(out[2]).toBe('part')
    expect(out[3]).toMatch(/console log on Jenkins restarted.*now 7 bytes, 20 were already shown/)
    expect(out.slice(4)).toEqual(['line 9', ''])
    expect(sink.text().match(/line 1/g)).toHaveLength(1)
  })

  it('an empty body with X-Text-Size 0 (log not created yet) writes nothing and polls 0 again', async () => {
    const api = fakeApi([
      { chunks: [], textSize: 0, moreData: true },
      { chunks: ['hi\r\n'], textSize: 3, moreData: false }
    ])
    const sink = collector()
    const streamer = new ConsoleStreamer(api, build, sink)
    expect(await streamer.poll()).toEqual({ moreData: true, grew: false, finished: false })
    expect(sink.written).toEqual([])
    expect((await streamer.poll()).moreData).toBe(false)
    expect(api.starts).toEqual([0, 0])
    expect(sink.text()).toBe('hi\n')
  })

  it('a body that breaks off before any byte keeps the offset; one that breaks off later skips on, visibly', async () => {
    const failing = (first: string[]) =>
      Readable.from(
        (async function* () {
          yield* first
          throw new Error('socket hang up')
        })()
      )
    const api = fakeApi([
      { chunks: ['a\r\n'], textSize: 2, moreData: true },
      { chunks: failing([]), textSize: 10, moreData: true },
      { chunks: failing(['b\r\nc']), textSize: 10, moreData: true },
      { chunks: ['d\r\n'], textSize: 12, moreData: false }
    ])
    const sink = collector()
    const streamer = new ConsoleStreamer(api, build, sink)
    await streamer.poll()
    await expect(streamer.poll()).rejects.toThrow('socket hang up')
    await expect(streamer.poll()).rejects.toThrow('socket hang up')
    await streamer.poll()
    expect(api.starts).toEqual([0, 2, 2, 10])
    expect(sink.text()).toMatch(/^a\nb\nc\n.*broke off.*\nd\n$/)
  })

  it('tail() keeps the last 50 lines and 8 KiB, including the partial line', async () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i}`)
    const api = fakeApi([{ chunks: [lines.join('\r\n')], textSize: 900, moreData: false }])
    const streamer = new ConsoleStreamer(api, build, collector())
    await streamer.poll()
    expect(streamer.tail()).toEqual(lines.slice(50))
    streamer.flush()
    expect(streamer.tail()).toEqual(lines.slice(50))

    // 1000-byte lines (with their newline): eight fit in 8 KiB.
    const long = Array.from({ length: 20 }, (_, i) => `${i}`.padStart(3, '0') + '.'.repeat(996))
    const bytesApi = fakeApi([
      { chunks: [long.join('\r\n') + '\r\n'], textSize: 20_020, moreData: false }
    ])
    const byBytes = new ConsoleStreamer(bytesApi, build, collector())
    await byBytes.poll()
    expect(byBytes.tail()).toEqual(long.slice(12))
  })

  it('tail() cuts a single huge line to its end', async () => {
    const api = fakeApi([
      { chunks: ['é'.repeat(10_000) + 'END\r\n'], textSize: 20_005, moreData: false }
    ])
    const streamer = new ConsoleStreamer(api, build, collector())
    await streamer.poll()
    const tail = streamer.tail()
    expect(tail).toHaveLength(1)
    expect(tail[0]?.endsWith('éEND')).toBe(true)
    expect(tail[0]?.startsWith('…')).toBe(true)
    expect(Buffer.byteLength(tail[0] ?? '')).toBeLessThanOrEqual(8 * 1024)
    expect(tail[0]).not.toContain('\uFFFD')
  })

  it('reads no more of the body until the sink has drained what it was given', async () => {
    const api = fakeApi([
      { chunks: ['line 0\n', 'line 1\n', 'line 2\n'], textSize: 21, moreData: false }
    ])
    const written: string[] = []
    const releases: Array<() => void> = []
    const sink = {
      write: (text: string) => void written.push(text),
      drained: () => new Promise<void>(resolve => releases.push(resolve))
    }
    const streamer = new ConsoleStreamer(api, build, sink)
    const polled = streamer.poll()
    const settle = () => new Promise(resolve => setTimeout(resolve, 20))
    await settle()
    // A stdout the runner has not read yet: the streamer waits, so the
    // console does not pile up in memory.
    expect(written).toEqual(['line 0\n'])
    releases.shift()?.()
    await settle()
    expect(written).toEqual(['line 0\n', 'line 1\n'])
    releases.shift()?.()
    await settle()
    releases.shift()?.()
    expect((await polled).moreData).toBe(false)
    expect(written.join('')).toBe('line 0\nline 1\nline 2\n')
  })

  it('streams 50 MB through poll() with flat memory', async () => {
    const total = 50 * 1024 * 1024
    const line = Buffer.from('0123456789'.repeat(12) + ' é ok\r\n', 'utf8')
    const chunk = Buffer.concat(Array.from({ length: Math.ceil(65_536 / line.length) }, () => line))
    // Each chunk is split at an odd place so that lines, CRLFs and characters straddle chunks.
    let sent = 0
    const body = Readable.from(
      (async function* () {
        for (; sent < total; sent += chunk.length) {
          yield chunk.subarray(0, 1001)
          yield chunk.subarray(1001)
        }
      })()
    )
    const api = fakeApi([{ chunks: body, textSize: total, moreData: false }])
    let chars = 0
    let lines = 0
    const sink = {
      write: (text: string) => {
        chars += text.length
        for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines++
      }
    }
    global.gc?.()
    const before = process.memoryUsage().rss
    let peak = before
    const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5)
    const streamer = new ConsoleStreamer(api, build, sink)
    try {
      await streamer.poll()
    } finally {
      clearInterval(timer)
    }
    peak = Math.max(peak, process.memoryUsage().rss)
    expect(sent).toBeGreaterThanOrEqual(total)
    expect(lines).toBe((sent / line.length) | 0)
    expect(chars).toBeGreaterThan(total * 0.9)
    // Holding the body would take >= 50 MB; streaming takes about 12 MB (garbage not yet collected).
    expect(peak - before).toBeLessThan(30 * 1024 * 1024)
  })
})

describe('withCommandsStopped', () => {
  it('resumes with the same unguessable token even when fn throws', async () => {
    const written: string[] = []
    await expect(
      withCommandsStopped(
        text => written.push(text),
        async () => {
          written.push('::error::from jenkins\n')
          throw new Error('follow failed')
        }
      )
    ).rejects.toThrow('follow failed')
    expect(written).toHaveLength(3)
    const token = /^::stop-commands::(.+)\n$/.exec(written[0] ?? '')?.[1]
    expect(token).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    expect(written[2]).toBe(`::${token}::\n`)
  })

  it('uses a fresh token every time', async () => {
    const tokens = new Set<string>()
    for (let i = 0; i < 5; i++) {
      await withCommandsStopped(
        text => {
          const token = /^::stop-commands::(.+)\n$/.exec(text)?.[1]
          if (token) tokens.add(token)
        },
        async () => undefined
      )
    }
    expect(tokens.size).toBe(5)
  })
})

describe('ConsoleStreamer poll() flags', () => {
  it('takes Finished: RESULT as the end only as a whole line, not inside a longer one', async () => {
    const api = fakeApi([
      { chunks: ['+ echo Finished: SUCCESS\r\n'], textSize: 25, moreData: true },
      { chunks: ['Finished: SUCCESS (said the script)\r\n'], textSize: 62, moreData: true },
      { chunks: ['Finished: ABORTED\r\n'], textSize: 81, moreData: false }
    ])
    const streamer = new ConsoleStreamer(api, build, collector())
    expect((await streamer.poll()).finished).toBe(false)
    expect((await streamer.poll()).finished).toBe(false)
    expect((await streamer.poll()).finished).toBe(true)
  })

  it('a Finished: line followed by more text, partial or spilled, is not the end', async () => {
    const partial = fakeApi([
      { chunks: ['Finished: SUCCESS\r\nPost-build'], textSize: 29, moreData: true }
    ])
    expect((await new ConsoleStreamer(partial, build, collector()).poll()).finished).toBe(false)

    // An overlong line after it is written out (nothing held back), yet not ended.
    const spilled = fakeApi([
      { chunks: ['Finished: SUCCESS\r\n' + 'x'.repeat(70_000)], textSize: 70_019, moreData: true }
    ])
    const sink = collector()
    const streamer = new ConsoleStreamer(spilled, build, sink)
    expect((await streamer.poll()).finished).toBe(false)
    expect(sink.text()).toBe('Finished: SUCCESS\n' + 'x'.repeat(70_000))
  })

  it('a restarted log counts as grown and not finished, even when the copy skipped ends with Finished:', async () => {
    const api = fakeApi([
      { chunks: ['line 1\r\nline 2\r\n'], textSize: 16, moreData: true },
      { chunks: ['Finished: SUCCESS\r\n'], textSize: 10, moreData: true }
    ])
    const streamer = new ConsoleStreamer(api, build, collector())
    await streamer.poll()
    expect(await streamer.poll()).toEqual({ moreData: true, grew: true, finished: false })
  })

  it('destroys the body once read, also a stream that does not destroy itself at its end', async () => {
    const body = new Readable({ autoDestroy: false, read() {} })
    body.push('done\r\n')
    body.push(null)
    const api = fakeApi([{ chunks: body, textSize: 6, moreData: false }])
    const sink = collector()
    await new ConsoleStreamer(api, build, sink).poll()
    expect(sink.text()).toBe('done\n')
    expect(body.destroyed).toBe(true)
  })
})

describe('ConsoleStreamer tail() limits', () => {
  /** The tail after one poll of `text` (CRLF lines, as Jenkins sends them). */
  async function tailOf(text: string): Promise<string[]> {
    const api = fakeApi([{ chunks: [text], textSize: text.length, moreData: true }])
    const streamer = new ConsoleStreamer(api, build, collector())
    await streamer.poll()
    return streamer.tail()
  }

  it('holds only what the console printed, with a lone CR inside the partial line kept', async () => {
    expect(await tailOf('a\r\nb\r\n')).toEqual(['a', 'b'])
    expect(await tailOf('a\r\n10%\r20%')).toEqual(['a', '10%\r20%'])
    // A CR at the end may be half of a CRLF: not part of the line.
    expect(await tailOf('a\r\n10%\r')).toEqual(['a', '10%'])
  })

  it('keeps lines while they take exactly 8 KiB with their newlines, and drops the oldest beyond', async () => {
    const lines = Array.from({ length: 8 }, (_, i) => `${i}`.repeat(1023))
    const crlf = (all: string[]) => all.join('\r\n') + '\r\n'
    expect(await tailOf(crlf(lines))).toEqual(lines)
    // One byte more: the first line goes.
    const longer = ['0'.repeat(1024), ...lines.slice(1)]
    expect(await tailOf(crlf(longer))).toEqual(lines.slice(1))
    // Dropping a short first line makes room again: only that one goes.
    expect(await tailOf(crlf(['a', ...lines]))).toEqual(lines)
  })

  it('keeps a line of up to 8191 bytes whole and cuts a longer one, complete or partial, to 8191 bytes', async () => {
    // More characters than 8 KiB / 3 but fewer bytes than 8 KiB.
    const ascii = 'x'.repeat(3000)
    expect(await tailOf(ascii + '\r\n')).toEqual([ascii])
    const limit = 'x'.repeat(8191)
    expect(await tailOf(limit + '\r\n')).toEqual([limit])

    const cut = '…' + 'x'.repeat(8188)
    expect(Buffer.byteLength(cut)).toBe(8191)
    expect(await tailOf('x'.repeat(10_000) + '\r\n')).toEqual([cut])
    expect(await tailOf('x'.repeat(10_000))).toEqual([cut])
  })

  it('a cut line loses every piece of a character split by the cut, and nothing else', async () => {
    // The cut leaves the last 3 bytes of an emoji: three U+FFFD, all dropped.
    expect(await tailOf('😀'.repeat(3000) + 'E\r\n')).toEqual(['…' + '😀'.repeat(2046) + 'E'])
    // A U+FFFD the console itself printed, after the cut, stays.
    expect(await tailOf('x'.repeat(10_000) + '\uFFFDEND\r\n')).toEqual([
      '…' + 'x'.repeat(8182) + '\uFFFDEND'
    ])
  })
})

describe('ConsoleStreamer overlong partial lines', () => {
  it('holds a partial line of exactly 64 Ki characters back and writes one a character longer', async () => {
    const max = 64 * 1024
    const held = fakeApi([{ chunks: ['x'.repeat(max)], textSize: max, moreData: true }])
    const heldSink = collector()
    await new ConsoleStreamer(held, build, heldSink).poll()
    expect(heldSink.text()).toBe('')

    const spilled = fakeApi([{ chunks: ['x'.repeat(max + 1)], textSize: max + 1, moreData: true }])
    const spilledSink = collector()
    await new ConsoleStreamer(spilled, build, spilledSink).poll()
    expect(spilledSink.text()).toBe('x'.repeat(max + 1))
  })

  it('writes an unfinished ConsoleNote that is the whole overlong partial line instead of holding it without bound', async () => {
    const open = '\x1b[8mha:' + 'A'.repeat(70_000)
    const api = fakeApi([{ chunks: [open], textSize: open.length, moreData: true }])
    const sink = collector()
    await new ConsoleStreamer(api, build, sink).poll()
    expect(sink.text()).toBe(open)
  })
})

describe('stopCommands', () => {
  it('resumes once: a second call writes no second marker', () => {
    const written: string[] = []
    const resume = stopCommands(text => void written.push(text))
    resume()
    resume()
    expect(written).toHaveLength(2)
    expect(written[1]).toMatch(/^::[0-9a-f-]{36}::\n$/)
  })

  it('holds commands of ours until it resumes, and issues them then', () => {
    const written: string[] = []
    const resume = stopCommands(text => void written.push(text))
    const issued: string[] = []
    whenCommandsRun(() => void issued.push('warning'))
    expect(issued).toEqual([])
    resume()
    expect(issued).toEqual(['warning'])
    // Commands run at once again.
    whenCommandsRun(() => void issued.push('debug'))
    expect(issued).toEqual(['warning', 'debug'])
  })

  it('a stop marker that cannot be written throws and leaves commands running', () => {
    expect(() =>
      stopCommands(() => {
        throw new Error('EPIPE')
      })
    ).toThrow('EPIPE')
    const issued: string[] = []
    whenCommandsRun(() => void issued.push('warning'))
    expect(issued).toEqual(['warning'])
  })
})
