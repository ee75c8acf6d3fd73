package cel

import (
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/ext"
	"github.com/google/cel-go/interpreter"
)

// The base environment holds what every rule of every CRD shares: the
// language options and the function libraries. It is built once per process;
// each schema node with rules extends it with its own self/oldSelf types
// for type checking only. Programs are all planned on the base environment
// itself, so a compiled CRD keeps no environment of its own (an environment
// copies its function table, tens of kilobytes, on every extension).
var (
	baseOnce sync.Once
	baseEnv  *cel.Env
	baseErr  error
)

func base() (*cel.Env, error) {
	baseOnce.Do(func() {
		baseEnv, baseErr = cel.NewEnv(
			// the language settings kube uses for CRD rules
			cel.HomogeneousAggregateLiterals(),
			cel.EagerlyValidateDeclarations(true),
			cel.DefaultUTCTimeZone(true),
			cel.CrossTypeNumericComparisons(true),
			cel.OptionalTypes(),
			cel.ASTValidators(
				cel.ValidateDurationLiterals(),
				cel.ValidateTimestampLiterals(),
				cel.ValidateRegexLiterals(),
				cel.ValidateHomogeneousAggregateLiterals(),
			),
			// has() costs nothing, as in kube (cel-go made it cost 1 later)
			cel.CostEstimatorOptions(checker.PresenceTestHasCost(false)),

			// the libraries kube enables for new CRD rules
			ext.Strings(ext.StringsVersion(2)),
			ext.Sets(),
			ext.TwoVarComprehensions(),
			ext.Lists(ext.ListsVersion(3)),
			listsLibrary(),
			regexLibrary(),
			urlLibrary(),
			quantityLibrary(),
			ipLibrary(),
			cidrLibrary(),
			formatLibrary(),
			semverLibrary(),
		)
	})
	return baseEnv, baseErr
}

// programOptions bound every evaluation: the per-call cost limit aborts a
// runaway expression, cost tracking feeds the per-object budget, and the
// interrupt check lets a cancelled request stop a long comprehension.
var programOptions = []cel.ProgramOption{
	cel.EvalOptions(cel.OptOptimize, cel.OptTrackCost),
	cel.CostLimit(PerCallLimit),
	cel.CostTracking(runtimeCost{}),
	cel.CostTrackerOptions(interpreter.PresenceTestHasCost(false)),
	cel.InterruptCheckFrequency(checkFrequency),
	cel.OptimizeRegex(regexOptimizations...),
}

// library bundles function declarations into one cel.Library.
type library []cel.EnvOption

func (l library) CompileOptions() []cel.EnvOption     { return l }
func (l library) ProgramOptions() []cel.ProgramOption { return nil }
