import { Minimatch, type MinimatchOptions } from 'minimatch'
import { InputError } from '../util/input-error.js'

/**
 * Parses the `artifacts` input the way @actions/glob (what
 * actions/upload-artifact uses) parses its patterns (internal-globber.js,
 * internal-pattern.js): one per line, trimmed, blank lines and `#` comments
 * skipped, each leading `!` toggles exclusion. A pattern that can never
 * match an artifact's relativePath is an InputError. Each pattern: its
 * `glob` (without its `!` and any leading `./`), `negate` (a `!` line:
 * excludes what earlier lines included), and its `text` as written.
 */
export function parseArtifactPatterns(value: string, platform: NodeJS.Platform = process.platform) {
  const patterns: Array<{ glob: string; negate: boolean; text: string }> = []
  const never = (why: string): InputError =>
    new InputError(`Input 'artifacts' has a pattern that can never match: ${why}.`)
  for (const raw of value.split(/\r?\n/)) {
    const text = raw.trim()
    if (text === '' || text.startsWith('#')) continue
    let glob = text
    let negate = false
    while (glob.startsWith('!')) {
      negate = !negate
      glob = glob.slice(1).trim()
    }
    // @actions/glob turns Windows separators into '/' before matching.
    if (platform === 'win32') glob = glob.replace(/\\/g, '/')
    glob = glob.replace(/^(\.\/)+/, '')
    if (glob === '' || glob === '.') {
      throw never(`'${text}' names no file (write ** for every artifact)`)
    }
    // Matched against relativePath, which has neither (jenkins Run.addArtifacts).
    const absolute = /^[/~]|^[A-Za-z]:/.test(glob)
    if (absolute || glob.split('/').includes('..')) {
      throw never(
        `'${text}' ${absolute ? 'is absolute' : "contains '..'"}: patterns are matched against each artifact's path relative to the build's artifacts`
      )
    }
    patterns.push({ glob, negate, text })
  }
  return patterns
}

/**
 * Selects the paths the patterns take: lines apply in order, an include line
 * adds what it matches, a `!` line removes it (@actions/glob's
 * internal-pattern-helper.js `match`). A pattern also takes everything below
 * a directory it names, and a trailing `/` matches directories only
 * (@actions/glob's implicitDescendants). Minimatch runs with @actions/glob's
 * options, so the glob syntax is exactly upload-artifact's. `selected`:
 * the paths taken, in the order given; `unmatched`: the include patterns
 * that matched no path at all.
 */
export function selectArtifacts(
  patterns: ReturnType<typeof parseArtifactPatterns>,
  paths: readonly string[],
  platform: NodeJS.Platform = process.platform
) {
  const options: MinimatchOptions = {
    dot: true,
    nobrace: true,
    nocase: platform === 'win32',
    nocomment: true,
    noext: true,
    nonegate: true
  }
  const matchers = patterns.map(pattern => {
    const directoryOnly = pattern.glob.endsWith('/')
    const glob = pattern.glob.replace(/\/+$/, '')
    const own = directoryOnly ? undefined : new Minimatch(glob, options)
    const below =
      glob.endsWith('/**') || glob === '**' ? undefined : new Minimatch(`${glob}/**`, options)
    return {
      pattern,
      matches: (path: string) => (own?.match(path) ?? false) || (below?.match(path) ?? false),
      used: false
    }
  })
  const selected = paths.filter(path => {
    let take = false
    for (const matcher of matchers) {
      if (!matcher.matches(path)) continue
      matcher.used = true
      take = !matcher.pattern.negate
    }
    return take
  })
  const unmatched = matchers.filter(m => !m.used && !m.pattern.negate).map(m => m.pattern)
  return { selected, unmatched }
}
