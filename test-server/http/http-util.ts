/** Small helpers over node:http for the request handler. */
import type { IncomingMessage } from 'node:http'

const BODY_LIMIT = 10 * 1024 * 1024

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    const buf = chunk as Buffer
    size += buf.length
    if (size > BODY_LIMIT) throw new Error('request body too large')
    chunks.push(buf)
  }
  return Buffer.concat(chunks)
}

/**
 * Request parameters as a servlet sees them: the query string, then an
 * urlencoded body (`+` is a space in both).
 */
export class Params {
  private readonly values = new Map<string, string[]>()

  add(source: string): void {
    for (const [k, v] of new URLSearchParams(source)) {
      const list = this.values.get(k)
      if (list) list.push(v)
      else this.values.set(k, [v])
    }
  }

  get(name: string): string | undefined {
    return this.values.get(name)?.[0]
  }

  all(name: string): string[] {
    return this.values.get(name) ?? []
  }

  has(name: string): boolean {
    return this.values.has(name)
  }

  get size(): number {
    return this.values.size
  }
}
