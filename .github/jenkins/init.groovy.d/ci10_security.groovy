// Security for the CI Jenkins: an admin with a password and an API token,
// nothing for anonymous users, CSRF protection on. init.groovy.d is core
// (jenkins/util/groovy/GroovyHookScript.java: $JENKINS_HOME/init.groovy.d/*.groovy,
// run in name order after the jobs are loaded), so no plugin is needed.
// Runs at every start; must work on 2.150.1 (Groovy 2.4, Java 8) and on the
// current LTS, so it names no class that only one of them has.
import hudson.security.FullControlOnceLoggedInAuthorizationStrategy
import hudson.security.HudsonPrivateSecurityRealm
import hudson.security.csrf.DefaultCrumbIssuer
import jenkins.model.Jenkins
import jenkins.model.JenkinsLocationConfiguration
import jenkins.security.ApiTokenProperty

def env = System.getenv()
def userName = env['CI_JENKINS_USER'] ?: 'admin'
def password = env['CI_JENKINS_PASSWORD']
if (!password) {
    throw new IllegalStateException('CI_JENKINS_PASSWORD is not set (start-jenkins.sh sets it)')
}
def jenkins = Jenkins.get()

// HudsonPrivateSecurityRealm(boolean allowsSignup) and createAccount(String, String)
// exist unchanged in both versions; createAccount on an existing user resets its password.
def realm = new HudsonPrivateSecurityRealm(false)
def user = realm.createAccount(userName, password)
jenkins.securityRealm = realm

def strategy = new FullControlOnceLoggedInAuthorizationStrategy()
strategy.allowAnonymousRead = false
jenkins.authorizationStrategy = strategy

// 2.150.1 has only DefaultCrumbIssuer(boolean excludeClientIPFromCrumb); the
// current LTS adds a no-argument constructor and keeps this one, deprecated,
// with the argument unused (the client IP left the crumb, jenkins-api.md).
jenkins.crumbIssuer = new DefaultCrumbIssuer(true)

// Builds run on the built-in node: one long build must not block the others.
jenkins.numExecutors = 4
jenkins.save()

// Absolute URLs in the JSON API (build, queue item) are built from this.
def url = env['CI_JENKINS_URL']
if (url) {
    def location = JenkinsLocationConfiguration.get()
    location.url = url
    location.save()
}

// The API token. ApiTokenStore.generateNewToken(String) exists since 2.129 and
// returns an object whose public field plainValue is the token (a nested class
// of ApiTokenStore up to some release, jenkins.security.apitoken.TokenUuidAndPlainValue
// now; Groovy does not need its name). This is what ApiTokenProperty's own
// doGenerateNewToken does: add the property if missing, generate, save the user.
def tokenFile = new File(jenkins.rootDir, "ci/${userName}.token")
if (!tokenFile.exists()) {
    def property = user.getProperty(ApiTokenProperty)
    if (property == null) {
        property = new ApiTokenProperty()
        user.addProperty(property)
    }
    def token = property.tokenStore.generateNewToken('github-actions-ci').plainValue
    user.save()
    tokenFile.parentFile.mkdirs()
    def partial = new File(tokenFile.parentFile, tokenFile.name + '.tmp')
    partial.text = token
    partial.setReadable(false, false)
    partial.setReadable(true, true)
    // Renamed into place: whoever waits for the file never reads half a token.
    if (!partial.renameTo(tokenFile)) {
        throw new IOException("could not write ${tokenFile}")
    }
}
println "CI security: user ${userName}, CSRF on, API token in ${tokenFile}"
