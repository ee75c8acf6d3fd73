package apiserver_test

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
)

func service(name string, spec map[string]any) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": name}, "spec": spec}
}

func port(n int) map[string]any { return map[string]any{"port": n} }

// TestServices checks Services as kube-apiserver serves them: defaults,
// cluster IPs and node ports allocated from their ranges and never
// twice, the "kubernetes" Service at the range's first address, and
// kube's 422s for what cannot be allocated or is invalid.
func TestServices(t *testing.T) {
	c := newClient(t)
	c.createNamespace("demo")
	path := "/api/v1/namespaces/demo/services"
	rangeCIDR := netip.MustParsePrefix("10.96.0.0/12")

	t.Run("kubernetes service", func(t *testing.T) {
		svc := c.must(200, "GET", "/api/v1/namespaces/default/services/kubernetes", nil)
		spec := svc["spec"].(map[string]any)
		_, port, _ := strings.Cut(strings.TrimPrefix(c.base, "https://"), ":")
		if spec["clusterIP"] != "10.96.0.1" || mustJSON(spec["ports"]) != `[{"name":"https","port":443,"protocol":"TCP","targetPort":`+port+`}]` {
			t.Errorf("kubernetes service spec = %s", mustJSON(spec))
		}
		ep := c.must(200, "GET", "/api/v1/namespaces/default/endpoints/kubernetes", nil)
		if got := mustJSON(ep["subsets"]); got == "null" {
			t.Errorf("kubernetes endpoints have no subsets")
		}
		c.must(200, "GET", "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes", nil)
	})

	t.Run("defaults and allocation", func(t *testing.T) {
		seen := map[string]bool{"10.96.0.1": true}
		for _, name := range []string{"a", "b", "c"} {
			svc := c.must(201, "POST", path, service(name, map[string]any{"selector": map[string]any{"app": name}, "ports": []any{port(80)}}))
			spec := svc["spec"].(map[string]any)
			ip, _ := spec["clusterIP"].(string)
			addr, err := netip.ParseAddr(ip)
			if err != nil || !rangeCIDR.Contains(addr) || seen[ip] {
				t.Fatalf("%s: clusterIP %q not a fresh address of %s", name, ip, rangeCIDR)
			}
			seen[ip] = true
			want := `{"clusterIP":"` + ip + `","clusterIPs":["` + ip + `"],"internalTrafficPolicy":"Cluster","ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack",` +
				`"ports":[{"port":80,"protocol":"TCP","targetPort":80}],"selector":{"app":"` + name + `"},"sessionAffinity":"None","type":"ClusterIP"}`
			if got := mustJSON(spec); got != want {
				t.Errorf("%s: spec\n got %s\nwant %s", name, got, want)
			}
			if got := mustJSON(svc["status"]); got != `{"loadBalancer":{}}` {
				t.Errorf("%s: status %s", name, got)
			}
		}
	})

	t.Run("node ports", func(t *testing.T) {
		svc := c.must(201, "POST", path, service("np", map[string]any{"type": "NodePort", "ports": []any{port(80)}}))
		p := svc["spec"].(map[string]any)["ports"].([]any)[0].(map[string]any)
		n, _ := p["nodePort"].(float64)
		if n < 30000 || n > 32767 {
			t.Fatalf("nodePort %v, want one in 30000-32767", p["nodePort"])
		}
		taken := service("np2", map[string]any{"type": "NodePort", "ports": []any{map[string]any{"port": 81, "nodePort": n}}})
		st := c.must(422, "POST", path, taken)
		if got, want := str(st["message"]), fmt.Sprintf(`Service "np2" is invalid: spec.ports[0].nodePort: Invalid value: %d: provided port is already allocated`, int(n)); got != want {
			t.Errorf("message %q, want %q", got, want)
		}
		// A PUT without the node port keeps it.
		svc["spec"].(map[string]any)["ports"] = []any{port(80)}
		got := c.must(200, "PUT", path+"/np", svc)
		if q := got["spec"].(map[string]any)["ports"].([]any)[0].(map[string]any)["nodePort"]; q != n {
			t.Errorf("nodePort after update %v, want %v", q, n)
		}
	})

	tests := []struct {
		name string
		svc  map[string]any
		want string
	}{
		{"cluster IP taken", service("x1", map[string]any{"clusterIP": "10.96.0.1", "ports": []any{port(80)}}),
			`Service "x1" is invalid: spec.clusterIPs[0]: Invalid value: "10.96.0.1": failed to allocate IP 10.96.0.1: provided IP is already allocated`},
		{"cluster IP out of range", service("x2", map[string]any{"clusterIP": "192.168.0.10", "ports": []any{port(80)}}),
			`Service "x2" is invalid: spec.clusterIPs[0]: Invalid value: "192.168.0.10": failed to allocate IP 192.168.0.10: the provided IP (192.168.0.10) is not in the valid range. The range of valid IPs is 10.96.0.0/12`},
		{"no ports", service("x3", map[string]any{"selector": map[string]any{"a": "b"}}),
			`Service "x3" is invalid: spec.ports: Required value`},
		{"unnamed ports", service("x4", map[string]any{"ports": []any{port(80), port(81)}}),
			`Service "x4" is invalid: [spec.ports[0].name: Required value, spec.ports[1].name: Required value]`},
		{"bad port", service("x5", map[string]any{"ports": []any{port(70000)}}),
			`Service "x5" is invalid: [spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive, spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive]`},
		{"node port on ClusterIP", service("x6", map[string]any{"ports": []any{map[string]any{"port": 80, "nodePort": 30001}}}),
			"Service \"x6\" is invalid: spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"},
		{"bad type", service("x7", map[string]any{"type": "Magic", "ports": []any{port(80)}}),
			`Service "x7" is invalid: spec.type: Unsupported value: "Magic": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := c.must(422, "POST", path, tt.svc)
			if got := str(st["message"]); got != tt.want {
				t.Errorf("message\n got %q\nwant %q", got, tt.want)
			}
		})
	}

	t.Run("cluster IP is immutable", func(t *testing.T) {
		svc := c.must(200, "GET", path+"/a", nil)
		svc["spec"].(map[string]any)["clusterIP"] = "10.96.0.99"
		svc["spec"].(map[string]any)["clusterIPs"] = []any{"10.96.0.99"}
		st := c.must(422, "PUT", path+"/a", svc)
		if got := str(st["message"]); got != `Service "a" is invalid: spec.clusterIPs[0]: Invalid value: "10.96.0.99": may not change once set` {
			t.Errorf("message %q", got)
		}
	})

	t.Run("table", func(t *testing.T) {
		tbl := c.must(200, "GET", path+"/np", nil, "Accept", "application/json;as=Table;g=meta.k8s.io;v=v1")
		var names []string
		for _, col := range tbl["columnDefinitions"].([]any) {
			names = append(names, str(col.(map[string]any)["name"]))
		}
		if got := mustJSON(names); got != `["Name","Type","Cluster-IP","External-IP","Port(s)","Age","Selector"]` {
			t.Errorf("columns %s", got)
		}
		cells := tbl["rows"].([]any)[0].(map[string]any)["cells"].([]any)
		if cells[1] != "NodePort" || cells[3] != "<none>" || cells[6] != "<none>" {
			t.Errorf("cells %s", mustJSON(cells))
		}
	})
}
