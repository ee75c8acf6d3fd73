package bench

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Results of the implementations' runs, kept so that each Setpoint result
// reports its ratio to client-go and TestMain prints a table at the end.
var (
	resultsMu sync.Mutex
	// latest holds, for each B (one per -count run), the values of the
	// benchmark function's most recent call: the testing package calls it
	// with growing b.N and only the last call counts.
	latest = map[*testing.B]map[string]float64{}
	// betterHigher[unit] tells how to read a unit.
	betterHigher = map[string]bool{}
	caseOrder    []string
)

// record stores a result of the running benchmark, whose last name element
// is the implementation. For Setpoint it also reports the speedup over
// client-go's median as a metric, "x-client-go(unit)" (> 1 means Setpoint
// is faster). client-go's runs of a case all come first, so they are done.
func record(b *testing.B, unit string, v float64, higherIsBetter bool) {
	resultsMu.Lock()
	defer resultsMu.Unlock()
	betterHigher[unit] = higherIsBetter
	if latest[b] == nil {
		latest[b] = map[string]float64{}
	}
	latest[b][unit] = v
	c, impl := split(b.Name())
	if !slices.Contains(caseOrder, c) {
		caseOrder = append(caseOrder, c)
	}
	if impl != "setpoint" {
		return
	}
	if base := median(valuesLocked(c, "client-go", unit)); base > 0 {
		b.ReportMetric(speedup(unit, v, base), "x-client-go("+unit+")")
	}
}

// valuesLocked returns the final values of every run of case c by impl.
func valuesLocked(c, impl, unit string) []float64 {
	var vs []float64
	for b, m := range latest {
		if bc, bi := split(b.Name()); bc == c && bi == impl {
			if v, ok := m[unit]; ok {
				vs = append(vs, v)
			}
		}
	}
	return vs
}

// split turns "BenchmarkX/case/impl" into "BenchmarkX/case" and "impl".
func split(name string) (string, string) {
	i := strings.LastIndexByte(name, '/')
	return name[:i], name[i+1:]
}

func speedup(unit string, setpoint, clientGo float64) float64 {
	if betterHigher[unit] {
		return setpoint / clientGo
	}
	return clientGo / setpoint
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(v))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Results of benchmarks that run another library's implementation and
// Setpoint's within each op (the operator and failover benchmarks): for
// each B, unit -> {other's value, Setpoint's value}.
var (
	versus      = map[*testing.B]map[string][2]float64{}
	versusOther = map[string]string{} // case -> the other implementation
	versusOrder []string
	versusUnits []string
)

// recordVersus stores the running benchmark's result in unit (lower is
// better: a time) for the implementation other and for Setpoint, for the
// table TestMain prints. The case is the benchmark's full name.
func recordVersus(b *testing.B, other, unit string, otherV, setpointV float64) {
	resultsMu.Lock()
	defer resultsMu.Unlock()
	if versus[b] == nil {
		versus[b] = map[string][2]float64{}
	}
	versus[b][unit] = [2]float64{otherV, setpointV}
	c := b.Name()
	versusOther[c] = other
	if !slices.Contains(versusOrder, c) {
		versusOrder = append(versusOrder, c)
	}
	if !slices.Contains(versusUnits, unit) {
		versusUnits = append(versusUnits, unit)
	}
}

// TestMain prints, after the benchmarks, the median of each
// implementation's runs and Setpoint's speedup over client-go. Run with
// failoverChildEnv set, the test binary is instead one of the failover
// benchmark's operator processes.
func TestMain(m *testing.M) {
	if os.Getenv(failoverChildEnv) != "" {
		os.Exit(failoverChild())
	}
	flag.Parse()
	code := m.Run()
	if len(caseOrder) > 0 {
		printTable()
	}
	if len(versusOrder) > 0 {
		printVersusTable()
	}
	for _, f := range atExit {
		f()
	}
	os.Exit(code)
}

func printVersusTable() {
	resultsMu.Lock()
	defer resultsMu.Unlock()
	fmt.Println()
	fmt.Println("Setpoint vs controller-runtime, both run in each op: medians over -count runs; ratio = Setpoint / other, < 1 means Setpoint takes less.")
	fmt.Printf("%-44s %-14s %-20s %12s %12s %7s\n", "case", "unit", "other", "other", "setpoint", "ratio")
	for _, c := range versusOrder {
		for _, u := range versusUnits {
			var o, s []float64
			for b, m := range versus {
				if v, ok := m[u]; ok && b.Name() == c {
					o, s = append(o, v[0]), append(s, v[1])
				}
			}
			if len(o) == 0 {
				continue
			}
			mo, ms := median(o), median(s)
			ratio := "-"
			if mo > 0 {
				ratio = fmt.Sprintf("%.2f", ms/mo)
			}
			fmt.Printf("%-44s %-14s %-20s %12.0f %12.0f %7s\n",
				strings.TrimPrefix(c, "Benchmark"), u, versusOther[c], mo, ms, ratio)
		}
	}
}

func printTable() {
	resultsMu.Lock()
	defer resultsMu.Unlock()
	fmt.Println()
	fmt.Println("Setpoint vs client-go workqueue: medians over -count runs; speedup > 1 means Setpoint is faster.")
	fmt.Println("\"paired\" rows are the median speedup of runs that alternate both queues, the figure to trust on a busy machine.")
	fmt.Printf("%-36s %-8s %14s %14s %9s %9s\n", "case", "unit", "client-go", "setpoint", "speedup", "paired")
	units := []string{"adds/s", "items/s", "ns/op"}
	for _, c := range caseOrder {
		for _, u := range units {
			cg, sp := median(valuesLocked(c, "client-go", u)), median(valuesLocked(c, "setpoint", u))
			if cg == 0 || sp == 0 {
				continue
			}
			paired := "-"
			if p := median(valuesLocked(c, "paired", "paired-speedup("+u+")")); p > 0 {
				paired = fmt.Sprintf("%.2fx", p)
			}
			fmt.Printf("%-36s %-8s %14.0f %14.0f %8.2fx %9s\n",
				strings.TrimPrefix(c, "Benchmark"), u, cg, sp, speedup(u, sp, cg), paired)
		}
	}
}
