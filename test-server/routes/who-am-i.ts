/** `whoAmI`: the caller's identity as Jenkins sees it (readable without Overall/Read). */
import type { Exchange } from '../http/exchange.js'
import { layoutPage } from '../http/pages.js'
import { notFound, sendApiJson, sendLayout } from './respond.js'

export function whoAmI(ex: Exchange, rest: string[]): void {
  if (rest.length === 0) return sendLayout(ex, 200, layoutPage('Who Am I', '<h1>Who Am I?</h1>'))
  if (rest[0] !== 'api' || rest[1] !== 'json') return notFound(ex)
  const id = ex.identity
  sendApiJson(ex, () => ({
    _class: 'hudson.security.WhoAmI',
    anonymous: id.anonymous,
    authenticated: true,
    authorities: id.anonymous ? ['anonymous'] : ['authenticated'],
    name: id.name
  }))
}
