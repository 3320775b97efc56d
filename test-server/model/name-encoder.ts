/**
 * branch-api's NameEncoder (src/main/java/jenkins/branch/NameEncoder.java):
 * how a branch name becomes a multibranch item name. Only the characters a
 * URL path segment cannot carry are escaped (`# % / ? [ ] \`), plus the
 * names '', '.' and '..'; `feature/x` becomes the item `feature%2Fx`
 * (jenkins-api.md 3.8).
 */

const ESCAPES: Record<string, string> = {
  '#': '%23',
  '%': '%25',
  '/': '%2F',
  '?': '%3F',
  '[': '%5B',
  ']': '%5D',
  '\\': '%5C'
}

/** NameEncoder.encode. */
export function encodeBranchName(name: string): string {
  if (name === '') return '%00'
  if (name === '.') return '%2E'
  if (name === '..') return '%2E.'
  return name.replace(/[#%/?[\]\\]/g, ch => ESCAPES[ch] ?? ch)
}

const UNESCAPES: Record<string, string> = Object.fromEntries(
  Object.entries(ESCAPES).map(([ch, escape]) => [escape, ch])
)

/** NameEncoder.decode: the escapes above, and nothing else (`%20` stays as it is). */
export function decodeBranchName(name: string): string {
  if (!name.includes('%')) return name
  if (name === '%00') return ''
  if (name === '%2E') return '.'
  if (name === '%2E.') return '..'
  return name.replace(/%(2[35F]|3F|5[BCD])/g, escape => UNESCAPES[escape] ?? escape)
}
