// A folder with Pipeline jobs, for the matrix entry whose image has plugins
// (plugins.txt). Plugin classes are loaded by name, so that this script does
// nothing, rather than fail to compile, on the plugin-free images.
import hudson.model.ChoiceParameterDefinition
import hudson.model.ParametersDefinitionProperty
import jenkins.model.Jenkins

def jenkins = Jenkins.get()
def plugins = jenkins.pluginManager
if (plugins.getPlugin('cloudbees-folder') == null || plugins.getPlugin('workflow-job') == null ||
        plugins.getPlugin('workflow-cps') == null) {
    println 'CI Pipeline jobs: skipped (no cloudbees-folder / Pipeline plugins)'
    return
}
def loader = plugins.uberClassLoader
def folderClass = loader.loadClass('com.cloudbees.hudson.plugins.folder.Folder')
def workflowJobClass = loader.loadClass('org.jenkinsci.plugins.workflow.job.WorkflowJob')
def cpsClass = loader.loadClass('org.jenkinsci.plugins.workflow.cps.CpsFlowDefinition')

def team = jenkins.getItem('team') ?: jenkins.createProject(folderClass, 'team')

def pipeline = { String name, List parameters, String script ->
    if (team.getItem(name) != null) {
        return
    }
    def job = team.createProject(workflowJobClass, name)
    if (parameters) {
        job.addProperty(new ParametersDefinitionProperty(parameters))
    }
    // CpsFlowDefinition(String script, boolean sandbox): sandboxed needs no script approval.
    job.definition = cpsClass.newInstance(script, true)
    job.save()
    println "CI job: team/${name}"
}

// One failing test of two: the build ends UNSTABLE with test counts in its JSON.
pipeline('pipeline', [
    new ChoiceParameterDefinition('TARGET', ['dev', 'prod'] as String[], 'Where to deploy')
], '''
node {
    stage('Parameters') {
        echo "TARGET=${params.TARGET}"
    }
    stage('Test') {
        writeFile file: 'results.xml', text: """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="ci" tests="2" failures="1">
  <testcase classname="ci.Checks" name="passes"/>
  <testcase classname="ci.Checks" name="fails"><failure message="expected">expected failure</failure></testcase>
</testsuite>
"""
        junit 'results.xml'
    }
}
''')

pipeline('sleepy-pipeline', [], '''
stage('Sleep') {
    echo 'Sleeping'
    sleep time: 600, unit: 'SECONDS'
}
''')
