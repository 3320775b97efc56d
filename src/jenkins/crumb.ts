/** The CSRF crumb: the header name comes from the server (`crumbRequestField`), never a constant. */
export interface Crumb {
  field: string
  value: string
}

/**
 * Fetches the crumb at most once (concurrent callers share the request), and
 * remembers that CSRF protection is off when the issuer answered 404
 * (jenkins-api.md 1.4) so it is not asked again.
 */
export class CrumbCache {
  private pending: Promise<Crumb | undefined> | undefined

  constructor(
    /** Gets the crumb, or undefined when the server has no crumb issuer. */
    private readonly fetch: () => Promise<Crumb | undefined>,
    /** Told of every new value (the transport sends it as a header). */
    private readonly onChange: (crumb: Crumb | undefined) => void
  ) {}

  /** The crumb to send, fetching it the first time. */
  ensure(): Promise<Crumb | undefined> {
    if (!this.pending) {
      const pending = this.fetch().then(crumb => {
        this.onChange(crumb)
        return crumb
      })
      // A failed fetch is not cached: the next POST tries again.
      pending.catch(() => {
        if (this.pending === pending) this.pending = undefined
      })
      this.pending = pending
    }
    return this.pending
  }

  /** Starts fetching in the background (e.g. alongside the job GET before a trigger). */
  prefetch(): void {
    this.ensure().catch(() => undefined)
  }

  /** Drops the crumb (its session is gone) and fetches a new one. */
  refresh(): Promise<Crumb | undefined> {
    this.pending = undefined
    this.onChange(undefined)
    return this.ensure()
  }
}
