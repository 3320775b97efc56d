/**
 * The multipart writer (multipart.ts) when its destination fails part-way,
 * as a request whose connection Jenkins resets does: writeTo rejects with
 * that failure, and no write is left failing unhandled (which ends the
 * process before the step can say anything).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
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
