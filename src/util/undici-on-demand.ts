/**
 * What the bundle loads for `undici` (tsconfig.json `paths`): @actions/http-client (which
 * @actions/core imports too) and @actions/github import it at start-up, but only GitHub
 * requests use it (their fetch, and a ProxyAgent when the runner has a proxy). Its 900 KiB
 * of source took a fifth of a step's start-up, so it loads with the first GitHub request
 * instead, from a chunk of its own in dist/ (docs/performance.md, "Figures").
 */
import type * as Undici from 'undici/index.js'

let loaded: Promise<typeof Undici> | undefined
const undici = (): Promise<typeof Undici> => (loaded ??= import('undici/index.js'))

type ProxyOptions = ConstructorParameters<typeof Undici.ProxyAgent>[0]

/** http-client builds it when a proxy applies; the real one is made on its first request. */
export class ProxyAgent {
  private real: Promise<Undici.ProxyAgent> | undefined
  constructor(private readonly options: ProxyOptions) {}
  dispatcher(): Promise<Undici.ProxyAgent> {
    return (this.real ??= undici().then(u => new u.ProxyAgent(this.options)))
  }
}

export async function fetch(
  input: Parameters<typeof Undici.fetch>[0],
  init: Parameters<typeof Undici.fetch>[1] & { dispatcher?: unknown } = {}
): ReturnType<typeof Undici.fetch> {
  const u = await undici()
  const dispatcher =
    init.dispatcher instanceof ProxyAgent ? await init.dispatcher.dispatcher() : init.dispatcher
  // cast: http-client hands us back only what it got from this module, or nothing.
  return u.fetch(input, { ...init, dispatcher: dispatcher as Undici.Dispatcher | undefined })
}
