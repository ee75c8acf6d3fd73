package job

import (
	"slices"
	"testing"
)

func TestIndexes(t *testing.T) {
	tests := []struct {
		in          string
		completions int
		add         []int
		want        string
		len         int
	}{
		{in: "", completions: 5, want: "", len: 0},
		{in: "0,1", completions: 5, want: "0,1", len: 2},
		{in: "0-2", completions: 5, want: "0-2", len: 3},
		{in: "0-2", completions: 2, want: "0,1", len: 2},
		{in: "1,3-5,7", completions: 10, add: []int{2, 6}, want: "1-7", len: 7},
		{in: "1,3-5,7", completions: 6, want: "1,3-5", len: 4},
		{in: "x,2,4", completions: 10, add: []int{0}, want: "0,2,4", len: 3},
		{in: "2,3", completions: 10, add: []int{9, 9, 5}, want: "2,3,5,9", len: 4},
		{in: "", completions: 10, add: []int{4, 3, 5}, want: "3-5", len: 3},
	}
	for _, tt := range tests {
		got := ParseIndexes(tt.in, tt.completions).With(tt.add...)
		if got.String() != tt.want || got.Len() != tt.len {
			t.Errorf("ParseIndexes(%q, %d).With(%v) = %q (len %d), want %q (len %d)", tt.in, tt.completions, tt.add, got, got.Len(), tt.want, tt.len)
		}
	}
}

func TestIndexesHas(t *testing.T) {
	x := ParseIndexes("1,3-5,8", 10)
	var got []int
	for i := range 10 {
		if x.Has(i) {
			got = append(got, i)
		}
	}
	if want := []int{1, 3, 4, 5, 8}; !slices.Equal(got, want) {
		t.Errorf("Has holds %v, want %v", got, want)
	}
	if u := x.Union(ParseIndexes("0,2,6-7", 10)).String(); u != "0-8" {
		t.Errorf("Union = %q, want 0-8", u)
	}
}

func TestFirstPending(t *testing.T) {
	tests := []struct {
		taken              string
		count, completions int
		want               []int
	}{
		{taken: "", count: 2, completions: 5, want: []int{0, 1}},
		{taken: "0,2", count: 3, completions: 5, want: []int{1, 3, 4}},
		{taken: "0-4", count: 3, completions: 5, want: nil},
		{taken: "1-3", count: 5, completions: 6, want: []int{0, 4, 5}},
		{taken: "", count: 0, completions: 5, want: nil},
	}
	for _, tt := range tests {
		if got := firstPending(ParseIndexes(tt.taken, tt.completions), tt.count, tt.completions); !slices.Equal(got, tt.want) {
			t.Errorf("firstPending(%q, %d, %d) = %v, want %v", tt.taken, tt.count, tt.completions, got, tt.want)
		}
	}
}
