package cel

// Limits kube-apiserver applies to CRD validation rules. They are part of the
// API: a CRD accepted by kube must be accepted here and the other way round,
// so the numbers are kube's (k8s.io/apiserver/pkg/apis/cel and
// k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation).
const (
	// PerCallLimit is the runtime cost one evaluation of one rule may use
	// (roughly 0.1s of CPU).
	PerCallLimit = 1000000

	// RuntimeCELCostBudget is the runtime cost all rules together may use
	// while validating one custom object (roughly 1s of CPU).
	RuntimeCELCostBudget = 10000000

	// StaticEstimatedCostLimit is the largest estimated cost of one rule,
	// multiplied by how often the rule can run for one object.
	StaticEstimatedCostLimit = 10000000

	// StaticEstimatedCRDCostLimit is the largest estimated cost of all the
	// rules of one CRD version's schema together.
	StaticEstimatedCRDCostLimit = 100000000

	// MaxRequestSizeBytes bounds how large an object can be; unbounded
	// strings, lists and maps are assumed to be at most as large as what fits
	// into a request of this size.
	MaxRequestSizeBytes = int64(3 * 1024 * 1024)

	// checkFrequency is how many comprehension iterations run between two
	// checks for an interrupted (cancelled) evaluation.
	checkFrequency = 100

	// maxMessageExpressionBytes bounds the message a messageExpression may
	// produce.
	maxMessageExpressionBytes = 5 * 1024
)

// Smallest JSON serialisations of scalar values, used to estimate how many
// elements an unbounded list or map can hold within MaxRequestSizeBytes.
const (
	minStringSize   = 2  // ""
	minBoolSize     = 4  // true
	minNumberSize   = 1  // 0
	minDurationSize = 3  // "0"
	minDateSize     = 12 // "2006-01-02"
	minDateTimeSize = 21 // "2006-01-02T15:04:05Z" less the zone, kube's figure
	maxDurationSize = 32
	maxDateTimeSize = 32
)
