package openapi

// param is one request parameter the documents describe. Documents define
// each once (v2 "parameters", v3 "components.parameters") and refer to it
// by name; only v3 patch operations carry theirs inline, because kubectl's
// v3 support check (unlike its v2 one) does not follow references.
type param struct {
	name, in, typ, description string
	required                   bool
}

var params = map[string]param{
	"namespace": {name: "namespace", in: "path", typ: "string", required: true,
		description: "object name and auth scope, such as for teams and projects"},
	"name": {name: "name", in: "path", typ: "string", required: true,
		description: "name of the object"},
	"pretty": {name: "pretty", in: "query", typ: "string",
		description: "If 'true', then the output is pretty printed."},

	"dryRun": {name: "dryRun", in: "query", typ: "string",
		description: "When present, indicates that modifications should not be persisted. The only valid value is All: every stage of the request runs except storing the result."},
	"fieldManager": {name: "fieldManager", in: "query", typ: "string",
		description: "fieldManager names the actor making these changes in managedFields: at most 128 printable characters. Required for apply patches."},
	"fieldValidation": {name: "fieldValidation", in: "query", typ: "string",
		description: "fieldValidation says what to do with unknown or duplicate fields in the request body. Ignore drops them, Warn serves the request with a warning for each, Strict fails the request."},
	"force": {name: "force", in: "query", typ: "boolean",
		description: "Force makes an apply patch take ownership of fields other managers own instead of failing with a conflict. Must be unset for other patch types."},

	"labelSelector": {name: "labelSelector", in: "query", typ: "string",
		description: "A selector restricting the returned objects by their labels. Defaults to everything."},
	"fieldSelector": {name: "fieldSelector", in: "query", typ: "string",
		description: "A selector restricting the returned objects by their fields. Defaults to everything."},
	"limit": {name: "limit", in: "query", typ: "integer",
		description: "limit is the maximum number of objects to return. When more exist, the list metadata carries a continue token for the next chunk; all chunks together are one consistent snapshot."},
	"continue": {name: "continue", in: "query", typ: "string",
		description: "continue is the token from the list metadata of a previous chunk, to get the next chunk of a limited list. An expired token yields 410 Gone."},
	"resourceVersion": {name: "resourceVersion", in: "query", typ: "string",
		description: "resourceVersion constrains what resource versions the request may be served from. See https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions."},
	"resourceVersionMatch": {name: "resourceVersionMatch", in: "query", typ: "string",
		description: "resourceVersionMatch says how resourceVersion applies to list calls: Exact or NotOlderThan."},
	"watch": {name: "watch", in: "query", typ: "boolean",
		description: "Watch for changes to the described objects and return them as a stream of events. Specify resourceVersion."},
	"allowWatchBookmarks": {name: "allowWatchBookmarks", in: "query", typ: "boolean",
		description: "allowWatchBookmarks asks for watch events of type BOOKMARK, sent at the server's discretion. Ignored unless watching."},
	"sendInitialEvents": {name: "sendInitialEvents", in: "query", typ: "boolean",
		description: "sendInitialEvents starts a watch with synthetic ADDED events for the current state, followed by a bookmark annotated k8s.io/initial-events-end. Requires resourceVersionMatch=NotOlderThan."},
	"timeoutSeconds": {name: "timeoutSeconds", in: "query", typ: "integer",
		description: "Timeout for the list or watch call, regardless of activity."},

	"gracePeriodSeconds": {name: "gracePeriodSeconds", in: "query", typ: "integer",
		description: "The duration in seconds before the object should be deleted; zero deletes immediately. Defaults to the kind's own grace period."},
	"propagationPolicy": {name: "propagationPolicy", in: "query", typ: "string",
		description: "Whether and how garbage collection treats dependents: Orphan, Background or Foreground. Either this or orphanDependents may be set, not both."},
	"orphanDependents": {name: "orphanDependents", in: "query", typ: "boolean",
		description: "Deprecated: use propagationPolicy. Whether dependents are orphaned (the orphan finalizer is added or removed)."},
}

// Query parameters per action, in the order the documents list them.
var (
	listParams   = []string{"allowWatchBookmarks", "continue", "fieldSelector", "labelSelector", "limit", "resourceVersion", "resourceVersionMatch", "sendInitialEvents", "timeoutSeconds", "watch"}
	writeParams  = []string{"dryRun", "fieldManager", "fieldValidation"}
	patchParams  = []string{"dryRun", "fieldManager", "fieldValidation", "force"}
	deleteParams = []string{"dryRun", "gracePeriodSeconds", "orphanDependents", "propagationPolicy"}
	// deletecollection takes the list and the delete parameters.
	deleteCollectionParams = []string{"continue", "dryRun", "fieldSelector", "gracePeriodSeconds", "labelSelector", "limit", "orphanDependents", "propagationPolicy", "resourceVersion", "resourceVersionMatch", "sendInitialEvents", "timeoutSeconds"}
)
