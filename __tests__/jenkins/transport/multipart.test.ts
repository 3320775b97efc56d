/**
 * The multipart writer (multipart.ts): the file goes out byte for byte at
 * its checked size, through two read buffers used in turn. When the
 * destination fails part-way, as a request whose connection Jenkins resets
 * does, writeTo rejects with that failure, and no write is left failing
 * unhandled (which ends the process before the step can say anything).
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { afterAll, describe, expect, it } from 'vitest'
import { multipartBody } from '../../../src/jenkins/transport/multipart.js'

const dir = mkdtempSync(join(tmpdir(), 'multipart-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
// Four read chunks: a write can fail while the next chunk is being read.
const size = 3 * 1024 * 1024 + 5
writeFileSync(join(dir, 'big.bin'), Buffer.alloc(size, 3))
const file = { name: 'PACKAGE', path: join(dir, 'big.bin'), fileName: 'big.bin', size }

/** A destination that takes `limit` bytes, then fails every write as a reset socket does. */
function resetAfter(limit: number): Writable {
  let taken = 0
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      taken += chunk.length
      if (taken > limit)
        return done(Object.assign(new Error('write ECONNRESET'), { code: 'ECONNRESET' }))
      done()
    }
  })
  // The failure is the writer's to report, through its write callbacks.
  out.on('error', () => undefined)
  return out
}

describe('multipartBody().writeTo on a destination that fails', () => {
  it.each([
    ['at its first bytes', 0],
    ['in the middle of the file', 1.5 * 1024 * 1024],
    ['in its last chunk', size]
  ])(
    'fails %s: writeTo rejects with the failure, and nothing is left unhandled',
    async (_when, limit) => {
      const unhandled: unknown[] = []
      const onUnhandled = (reason: unknown): void => void unhandled.push(reason)
      process.on('unhandledRejection', onUnhandled)
      try {
        const body = multipartBody([['TARGET', 'prod']], [file])
        let sent = 0
        await expect(body.writeTo(resetAfter(limit), bytes => (sent += bytes))).rejects.toThrow(
          'write ECONNRESET'
        )
        expect(sent).toBeLessThanOrEqual(Math.max(limit, 0))
        // An unhandled rejection is reported after the turn it happened in.
        await new Promise(resolve => setTimeout(resolve, 50))
        expect(unhandled).toEqual([])
      } finally {
        process.off('unhandledRejection', onUnhandled)
      }
    }
  )
})

/** A destination that, like a socket, takes a chunk's bytes only when its write completes (a turn later). */
function slowSink(): { out: Writable; bytes: () => Buffer } {
  const taken: Buffer[] = []
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      setImmediate(() => {
        taken.push(Buffer.from(chunk))
        done()
      })
    }
  })
  return { out, bytes: () => Buffer.concat(taken) }
}

describe('multipartBody().writeTo sends the file as it is on disk', () => {
  // Every byte differs from its neighbour a chunk away, so a read buffer
  // reused before its write was handed on shows in what was sent.
  const patterned = Buffer.alloc(size, 0).map((_, i) => (i + (i >> 20) * 101) & 255)
  writeFileSync(join(dir, 'patterned.bin'), patterned)
  const onDisk = { ...file, path: join(dir, 'patterned.bin') }

  it('byte for byte, with the exact length it announced', async () => {
    const body = multipartBody([['TARGET', 'prod']], [onDisk])
    const { out, bytes } = slowSink()
    let sent = 0
    await body.writeTo(out, count => (sent += count))
    const text = bytes()
    expect(text.length).toBe(body.length)
    expect(sent).toBe(body.length)
    const start = text.indexOf('\r\n\r\n', text.indexOf('filename="big.bin"')) + 4
    expect(text.subarray(start, start + size).equals(patterned)).toBe(true)
    expect(text.subarray(start + size).toString()).toMatch(/^\r\n--.+--\r\n$/)
  })

  it('only the size it was checked at when the file grew since', async () => {
    writeFileSync(join(dir, 'grown.bin'), Buffer.concat([patterned, Buffer.alloc(4096, 9)]))
    const body = multipartBody([], [{ ...onDisk, path: join(dir, 'grown.bin') }])
    const { out, bytes } = slowSink()
    await body.writeTo(out, () => undefined)
    expect(bytes().length).toBe(body.length)
    expect(bytes().includes(Buffer.alloc(16, 9))).toBe(false)
  })

  it('an empty file without opening it: nothing to read, so nothing can fail', async () => {
    const body = multipartBody([], [{ ...onDisk, path: join(dir, 'gone.bin'), size: 0 }])
    const { out, bytes } = slowSink()
    await body.writeTo(out, () => undefined)
    expect(bytes().toString()).toMatch(/filename="big.bin"\r\n[^]*\r\n\r\n\r\n--[^]+--\r\n$/)
    expect(bytes().length).toBe(body.length)
  })

  // Linux shows the process's open files: a file left open would leak one per upload.
  it.runIf(existsSync('/proc/self/fd'))('closes the file, sent or shrunk', async () => {
    const openFiles = (): number => readdirSync('/proc/self/fd').length
    const before = openFiles()
    await multipartBody([], [onDisk]).writeTo(slowSink().out, () => undefined)
    expect(openFiles()).toBe(before)
    const path = join(dir, 'shrunk-closed.bin')
    writeFileSync(path, patterned.subarray(0, 5))
    const shrunk = multipartBody([], [{ ...onDisk, path }])
    await expect(shrunk.writeTo(slowSink().out, () => undefined)).rejects.toThrow('changed')
    expect(openFiles()).toBe(before)
  })

  it('fails, naming the file and how far it got, when the file shrank since', async () => {
    const path = join(dir, 'shrunk.bin')
    writeFileSync(path, patterned.subarray(0, 2 * 1024 * 1024 + 7))
    const body = multipartBody([], [{ ...onDisk, path }])
    await expect(body.writeTo(slowSink().out, () => undefined)).rejects.toThrow(
      `${path} changed while it was being sent (${2 * 1024 * 1024 + 7} of ${size} bytes read)`
    )
  })
})
