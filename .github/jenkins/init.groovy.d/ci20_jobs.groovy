// Freestyle jobs for the CI checks. Core only (FreeStyleProject, the
// parameter definitions and the Shell builder are in Jenkins core), so it works
// on plugin-free images. Jobs that exist already (a restart) are left alone.
import hudson.model.BooleanParameterDefinition
import hudson.model.ChoiceParameterDefinition
import hudson.model.FreeStyleProject
import hudson.model.ParametersDefinitionProperty
import hudson.model.StringParameterDefinition
import hudson.tasks.Shell
import jenkins.model.Jenkins

def freestyle(String name, String description, List parameters, String script) {
    def jenkins = Jenkins.get()
    if (jenkins.getItem(name) != null) {
        return
    }
    def job = jenkins.createProject(FreeStyleProject, name)
    job.description = description
    if (parameters) {
        job.addProperty(new ParametersDefinitionProperty(parameters))
    }
    job.buildersList.add(new Shell(script))
    job.save()
    println "CI job: ${name}"
}

// A parameter is an environment variable of the shell step. printf '%s' prints
// it as data: a value such as $(id) from a pull request stays inert. Never
// paste a parameter into a command line (${BRANCH} inside a script body).
freestyle('params', 'String, boolean and choice parameters, echoed to the console.', [
    new StringParameterDefinition('BRANCH', 'main', 'Branch to build'),
    new BooleanParameterDefinition('DEBUG', false, 'Verbose output'),
    new ChoiceParameterDefinition('TARGET', ['staging', 'production'] as String[], 'Where to deploy')
], '''#!/bin/sh -e
printf 'BRANCH=%s\\n' "$BRANCH"
printf 'DEBUG=%s\\n' "$DEBUG"
printf 'TARGET=%s\\n' "$TARGET"
''')

// Long enough for the step after a `wait: started` run to find it still running.
freestyle('hello', 'No parameters; runs for 20 seconds.', [], '''#!/bin/sh -e
echo 'Hello from Jenkins'
sleep 20
echo 'Done'
''')

freestyle('failing', 'Always fails.', [], '''#!/bin/sh -e
echo 'About to fail'
exit 3
''')

freestyle('sleepy', 'Sleeps for 10 minutes, to be stopped by the action.', [], '''#!/bin/sh -e
echo 'Sleeping'
sleep 600
echo 'Woke up'
''')

freestyle('to-disable', 'Disabled by the action.', [], '''#!/bin/sh -e
echo 'Built'
''')
