package crdschema

import (
	"fmt"
	"testing"
)

// TestNodeView: what package cel reads of a compiled node is what the
// schema says.
func TestNodeView(t *testing.T) {
	s := mustNew(t, `{"type":"object","properties":{
		"io":{"x-kubernetes-int-or-string":true,"nullable":true},
		"d":{"type":"string","format":"date-time","maxLength":25,"default":"2024-01-01T00:00:00Z"},
		"e":{"type":"string","enum":["a","bcd"]},
		"z":{"type":"integer","default":null},
		"ml":{"type":"array","maxItems":3,"x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],
			"items":{"type":"object","required":["k"],"properties":{"k":{"type":"string"}}}},
		"m":{"type":"object","additionalProperties":{"type":"string"},"maxProperties":2,"x-kubernetes-map-type":"granular",
			"x-kubernetes-validations":[{"rule":"size(self) > 0"}]},
		"emb":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true}}}`)
	root := s.Root()
	describe := func(n *Node) string {
		maxLen, hasLen := n.MaxLength()
		maxItems, hasItems := n.MaxItems()
		maxProps, hasProps := n.MaxProperties()
		mt := ""
		if n.MapType() != nil {
			mt = *n.MapType()
		}
		return fmt.Sprintf("type=%q ios=%v null=%v emb=%v def=%v fmt=%q enum=%v len=%d/%v items=%d/%v props=%d/%v list=%q keys=%v map=%q rules=%d req=%v addl=%v/%v",
			n.Type(), n.IntOrString(), n.Nullable(), n.EmbeddedResource(), n.HasDefault(), n.Format(), n.Enum(),
			maxLen, hasLen, maxItems, hasItems, maxProps, hasProps, n.ListType(), n.MapKeys(), mt, len(n.Rules()),
			n.Required(), n.HasAdditionalProperties(), n.AdditionalProperties() != nil)
	}
	tests := []struct{ prop, want string }{
		{"io", `type="" ios=true null=true emb=false def=false fmt="" enum=[] len=0/false items=0/false props=0/false list="" keys=[] map="" rules=0 req=[] addl=false/false`},
		{"d", `type="string" ios=false null=false emb=false def=true fmt="date-time" enum=[] len=25/true items=0/false props=0/false list="" keys=[] map="" rules=0 req=[] addl=false/false`},
		{"e", `type="string" ios=false null=false emb=false def=false fmt="" enum=[a bcd] len=0/false items=0/false props=0/false list="" keys=[] map="" rules=0 req=[] addl=false/false`},
		// default: null decodes as no default at all
		{"z", `type="integer" ios=false null=false emb=false def=false fmt="" enum=[] len=0/false items=0/false props=0/false list="" keys=[] map="" rules=0 req=[] addl=false/false`},
		{"ml", `type="array" ios=false null=false emb=false def=false fmt="" enum=[] len=0/false items=3/true props=0/false list="map" keys=[k] map="" rules=0 req=[] addl=false/false`},
		{"m", `type="object" ios=false null=false emb=false def=false fmt="" enum=[] len=0/false items=0/false props=2/true list="" keys=[] map="granular" rules=1 req=[] addl=true/true`},
		{"emb", `type="object" ios=false null=false emb=true def=false fmt="" enum=[] len=0/false items=0/false props=0/false list="" keys=[] map="" rules=0 req=[] addl=false/false`},
	}
	for _, tt := range tests {
		if got := describe(root.PropertyNamed(tt.prop)); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.prop, got, tt.want)
		}
	}
	if got := root.PropertyNamed("ml").Items().Required(); len(got) != 1 || got[0] != "k" {
		t.Errorf("items required = %v", got)
	}
	if root.PropertyNamed("nope") != nil || (*Node)(nil).Type() != "" || (*Node)(nil).NumProperties() != 0 {
		t.Error("absent nodes must read as no schema")
	}
	var names []string
	for i := range root.NumProperties() {
		name, _ := root.Property(i)
		names = append(names, name)
	}
	if fmt.Sprint(names) != "[d e emb io m ml z]" {
		t.Errorf("properties in order: %v", names)
	}
}
