/**
 * Users, HTTP sessions and crumbs (jenkins-api.md 0, 1.3, 1.5, 2.1).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Permission, UserSpec } from '../types.js'

export interface Identity {
  /** User id, or 'anonymous'. */
  name: string
  anonymous: boolean
  /** Authenticated by an API token in this very request (exempt from the crumb check). */
  viaToken: boolean
  permissions: ReadonlySet<Permission>
}

export type AuthOutcome = { ok: true; identity: Identity } | { ok: false }

const DEFAULT_PERMISSIONS: Permission[] = ['read', 'build', 'configure', 'cancel']
const ALL: Permission[] = ['read', 'build', 'configure', 'cancel', 'admin']

/** Jenkins' permission ids, for X-Required-Permission. */
export const PERMISSION_ID: Record<Permission, string> = {
  read: 'hudson.model.Hudson.Read',
  build: 'hudson.model.Item.Build',
  configure: 'hudson.model.Item.Configure',
  cancel: 'hudson.model.Item.Cancel',
  admin: 'hudson.model.Hudson.Administer'
}

/** X-Permission-Implied-By chain of each permission (jenkins-api.md 2.3). */
export const IMPLIED_BY: Record<Permission, string[]> = {
  read: ['hudson.security.Permission.GenericRead', 'hudson.model.Hudson.Administer'],
  build: [
    'hudson.security.Permission.GenericUpdate',
    'hudson.security.Permission.GenericWrite',
    'hudson.model.Hudson.Administer'
  ],
  configure: [
    'hudson.security.Permission.GenericConfigure',
    'hudson.security.Permission.GenericUpdate',
    'hudson.security.Permission.GenericWrite',
    'hudson.model.Hudson.Administer'
  ],
  cancel: [
    'hudson.model.Item.Build',
    'hudson.security.Permission.GenericUpdate',
    'hudson.security.Permission.GenericWrite',
    'hudson.model.Hudson.Administer'
  ],
  admin: []
}

function permissionsOf(spec: UserSpec): Set<Permission> {
  const list = spec.permissions ?? DEFAULT_PERMISSIONS
  if (list.includes('admin')) return new Set(ALL)
  const granted = new Set(list)
  // Job/Cancel is implied by Job/Build (core Item.CANCEL, impliedBy BUILD).
  if (granted.has('build')) granted.add('cancel')
  return granted
}

/** Constant-time comparison (MessageDigest.isEqual in Jenkins). */
export function sameSecret(a: string, b: string): boolean {
  const x = createHash('sha256').update(a).digest()
  const y = createHash('sha256').update(b).digest()
  return timingSafeEqual(x, y)
}

export class Security {
  constructor(
    private readonly users: UserSpec[],
    private readonly anonymousRead: boolean
  ) {}

  anonymous(): Identity {
    return {
      name: 'anonymous',
      anonymous: true,
      viaToken: false,
      permissions: new Set<Permission>(this.anonymousRead ? ['read'] : [])
    }
  }

  /**
   * BasicHeaderProcessor: non-Basic schemes are ignored (anonymous); a Basic
   * value is tried as an API token first, then as the password.
   */
  authenticate(header: string | undefined): AuthOutcome {
    if (!header) return { ok: true, identity: this.anonymous() }
    const match = /^Basic\s+(.*)$/i.exec(header.trim())
    if (!match) return { ok: true, identity: this.anonymous() }
    const decoded = Buffer.from(match[1] ?? '', 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    if (colon < 0) return { ok: false }
    const id = decoded.slice(0, colon)
    const secret = decoded.slice(colon + 1)
    // Jenkins' default user id strategy is case-insensitive.
    const user = this.users.find(u => u.name.toLowerCase() === id.toLowerCase())
    if (!user) return { ok: false }
    const identity = (viaToken: boolean): AuthOutcome => ({
      ok: true,
      identity: { name: user.name, anonymous: false, viaToken, permissions: permissionsOf(user) }
    })
    if (user.apiToken !== undefined && sameSecret(secret, user.apiToken)) return identity(true)
    if (user.password !== undefined && sameSecret(secret, user.password)) return identity(false)
    return { ok: false }
  }
}

/** HTTP sessions and the crumbs bound to them; everything is renewed by a restart. */
export class Sessions {
  cookieName = ''
  private salt = ''
  private readonly ids = new Set<string>()
  /** Every crumb the issuer handed out, across restarts (tests search logs for them). */
  readonly issued: string[] = []
  /** Every session id handed out (a cookie's value), across restarts (tests search logs for them). */
  readonly created: string[] = []

  constructor() {
    this.renew()
  }

  /** A new process: new cookie name (executable.Main), new crumb salt, no sessions. */
  renew(): void {
    this.cookieName = `JSESSIONID.${randomBytes(4).toString('hex')}`
    this.salt = randomBytes(8).toString('hex')
    this.ids.clear()
  }

  /** The session id the request's cookie names, if that session exists. */
  find(cookieHeader: string | undefined): string | undefined {
    for (const part of (cookieHeader ?? '').split(';')) {
      const eq = part.indexOf('=')
      if (eq < 0) continue
      if (part.slice(0, eq).trim() !== this.cookieName) continue
      const id = part.slice(eq + 1).trim()
      if (this.ids.has(id)) return id
    }
    return undefined
  }

  create(): string {
    const id = `node0${randomBytes(12).toString('hex')}.node0`
    this.ids.add(id)
    this.created.push(id)
    return id
  }

  /** hex(SHA-256(name ';' session id, finished with the salt)) (DefaultCrumbIssuer). */
  crumb(user: string, sessionId: string): string {
    return createHash('sha256').update(`${user};${sessionId}`).update(this.salt).digest('hex')
  }

  /** CrumbFilter: recomputes for the request's session (a fresh one when there is none). */
  validCrumb(user: string, sessionId: string | undefined, crumb: string | undefined): boolean {
    if (!crumb || !sessionId) return false
    return sameSecret(this.crumb(user, sessionId), crumb)
  }
}
