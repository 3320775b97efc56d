/**
 * Response bodies that are not JSON: Jetty's default error page (for every
 * `sendError` Jenkins does not render itself), Jenkins' layout pages (404,
 * access denied, requires POST, oops) and the 403 login page (jenkins-api.md
 * 0, 2.2, 10).
 */

import { randomUUID } from 'node:crypto'

export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    ch => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] ?? ch
  )
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  422: 'Unprocessable Entity',
  500: 'Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable'
}

export function reason(status: number): string {
  return REASONS[status] ?? 'Error'
}

/**
 * Jetty's error page; the exact HTML is UNSURE upstream, clients must use
 * only the status. `servlet` is the servlet the request reached (Stapler,
 * for Jenkins' sendError); a request outside the webapp reached none.
 */
export function jettyErrorPage(
  status: number,
  message: string,
  uri: string,
  servlet: string | null = 'Stapler'
): string {
  const m = escapeHtml(message)
  return `<html>
<head>
<meta http-equiv="Content-Type" content="text/html;charset=ISO-8859-1"/>
<title>Error ${status} ${m}</title>
</head>
<body>
<h2>HTTP ERROR ${status} ${m}</h2>
<table>
<tr><th>URI:</th><td>${escapeHtml(uri)}</td></tr>
<tr><th>STATUS:</th><td>${status}</td></tr>
<tr><th>MESSAGE:</th><td>${m}</td></tr>
${servlet === null ? '' : `<tr><th>SERVLET:</th><td>${escapeHtml(servlet)}</td></tr>\n`}</table>

</body>
</html>
`
}

/** A page rendered through Jenkins' layout (title and a short body). */
export function layoutPage(title: string, body: string): string {
  return `<!DOCTYPE html><html class=""><head resURL="/static/00000000" data-rooturl="" data-resurl="/static/00000000">
<title>${escapeHtml(title)} - Jenkins</title></head>
<body id="jenkins" class="yui-skin-sam full-screen jenkins-2">
<div id="page-body"><div id="main-panel">${body}</div></div>
</body></html>
`
}

export function notFoundPage(): string {
  return layoutPage(
    'Not Found',
    '<h1>Not Found</h1><p>This page may not exist, or you may not have permission to see it.</p>'
  )
}

/** accessDenied.jelly: the exception's message in a `<p class="error">`. */
export function accessDeniedPage(message: string): string {
  return layoutPage(
    'Access Denied',
    `<h1>Access Denied</h1><p class="error">${escapeHtml(message)}</p>`
  )
}

export function requiresPostPage(): string {
  return layoutPage(
    'This URL requires POST',
    '<h1>This URL requires POST</h1><p>The URL you\'re trying to access requires that requests be sent using POST (like a form submission).</p><form method="POST"><input type="submit" value="Proceed"/></form>'
  )
}

export function parametersFormPage(fullName: string): string {
  return layoutPage(
    fullName,
    `<h1>Pipeline ${escapeHtml(fullName)}</h1><p>This build requires parameters:</p><form method="post" action="build" name="parameters"></form>`
  )
}

/**
 * Jenkins' error page for an uncaught exception (core
 * jenkins/model/Jenkins/oops.jelly, through the layout): a Logging ID that
 * Jenkins' log files the exception under, and the stack trace only when
 * Jenkins shows them (`trace`: -Djenkins.model.Jenkins.SHOW_STACK_TRACE=true).
 */
export function oopsPage({ trace }: { trace?: string }): string {
  const stack = trace
    ? `<p>Please check <a href="https://www.jenkins.io/redirect/issue-tracker">our bug tracker</a> to see if a similar problem has already been reported.</p><h2>Stack trace</h2><pre style="margin:2em; clear:both">${escapeHtml(trace)}</pre>`
    : ''
  return layoutPage(
    'Jenkins',
    `<h1 style="text-align: center"><img src="/images/rage.svg" height="179" width="154"/> <span style="font-size:50px">&nbsp;Oops!</span></h1><div id="error-description"><h2 style="text-align: center">A problem occurred while processing the request</h2><p style="text-align: center">Logging ID=${randomUUID()}</p></div>${stack}`
  )
}

/**
 * A stack trace as Jenkins prints one (Functions.printThrowable): Stapler
 * wraps what a `do` method threw, so the exception shows twice, the second
 * time as the cause.
 */
export function stackTrace(exception: string, message: string): string {
  return [
    `jakarta.servlet.ServletException: ${exception}: ${message}`,
    '\tat org.kohsuke.stapler.Function$InstanceFunction.invoke(Function.java:422)',
    '\tat org.kohsuke.stapler.Function.bindAndInvoke(Function.java:217)',
    `Caused by: ${exception}: ${message}`,
    '\tat hudson.model.ParametersDefinitionProperty.buildWithParameters(ParametersDefinitionProperty.java:210)'
  ].join('\n')
}

/** The 403 page HudsonAuthenticationEntryPoint sends an anonymous caller (jenkins-api.md 2.2). */
export function loginRequiredPage(contextPath: string, fromUri: string): string {
  const target = `${contextPath}/login?from=${encodeURIComponent(fromUri)}`
  return (
    `<html><head><meta http-equiv='refresh' content='1;url=${escapeHtml(target)}'/>` +
    `<script id='redirect' data-redirect-url='${escapeHtml(target)}' src='${contextPath}/static/00000000/scripts/redirect.js'></script></head>` +
    `<body style='background-color:white; color:white;'>\nAuthentication required\n` +
    `<!--\n-->\n</body></html>` +
    ' '.repeat(300)
  )
}
