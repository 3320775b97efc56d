/**
 * How the JUnit plugin names a test's page (`<build>/<action>/<package>/
 * <class>/<case>/`), so that a failed test can be linked without asking
 * Jenkins for its URL (the report JSON has none). Each level's safe name,
 * from jenkinsci/junit-plugin: docs/internals.md, "How the JUnit plugin names a test's page".
 */

/**
 * TestObject.safe: "(empty)" for an empty name; otherwise each character that
 * may not stand literally in a URL path segment becomes '_': controls,
 * space, DEL and `"#%/:<>?[\]^`{|}` (junit-plugin 1422+, PR #1251). Earlier
 * versions replaced only `/\:?#%<>`, so a name with a space or a bracket
 * links to a page those versions name differently.
 * @internal
 */
export function safe(name: string): string {
  if (name === '') return '(empty)'
  // eslint-disable-next-line no-control-regex
  return name.replace(/[\u0000-\u0020\u007f"#%/:<>?[\\\]^`{|}]/g, '_')
}

/**
 * Character.isJavaIdentifierPart for one UTF-16 unit: letters, digits,
 * connecting punctuation (`_`), currency symbols (`$`), numeric letters,
 * combining marks, and the "ignorable" controls and format characters. A
 * surrogate half is none of these, so Java replaces an emoji with two '_',
 * and so does this (it tests units, not code points).
 */
const JAVA_IDENTIFIER_PART =
  // eslint-disable-next-line no-control-regex
  /^[\p{L}\p{Nl}\p{Nd}\p{Mn}\p{Mc}\p{Pc}\p{Sc}\p{Cf}\u0000-\u0008\u000e-\u001b\u007f-\u009f]$/u

/**
 * CaseResult.getSafeName before uniquifying.
 * @internal
 */
export function caseBaseName(displayName: string): string {
  // Without the u flag, each match is one UTF-16 unit.
  return displayName.replace(/[\s\S]/g, unit => (JAVA_IDENTIFIER_PART.test(unit) ? unit : '_'))
}

/**
 * The URL path of a case below the report, `<package>/<class>/<case>`, each
 * segment encoded. One report's cases are named in the order the plugin
 * meets them (suites in order, their cases in order: TestResult.tally adds
 * them to their class in that order), uniquified within each class: `taken`
 * counts the cases seen by `<package>/<class>/<case>` (no part holds a '/':
 * safe and caseBaseName replace it).
 */
export function casePath(taken: Map<string, number>, className: string, displayName: string) {
  // CaseResult.getPackageName (up to the last '.', or "(root)") and getSimpleName.
  const dot = className.lastIndexOf('.')
  const pkg = safe(dot < 0 ? '(root)' : className.slice(0, dot))
  const cls = safe(className.slice(dot + 1))
  const base = caseBaseName(displayName)
  const seen = (taken.get(`${pkg}/${cls}/${base}`) ?? 0) + 1
  taken.set(`${pkg}/${cls}/${base}`, seen)
  return [pkg, cls, seen === 1 ? base : `${base}_${seen}`].map(segment).join('/')
}

/** One path segment, percent-encoded; a lone surrogate (a broken name) cannot be, so it becomes U+FFFD. */
function segment(name: string): string {
  return encodeURIComponent(name.replace(/\p{Cs}/gu, '\uFFFD'))
}
