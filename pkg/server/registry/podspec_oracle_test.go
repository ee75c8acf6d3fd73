//go:build oracle

package registry

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// oracleCases are the pod case tables compared with kube-apiserver.
var oracleCases = [][]podCase{volumeCases, ownVolumeCases, affinityCases, spreadCases, securityCases, windowsCases, dnsCases}

// oracleDiffers are the cases whose answers differ from kube-apiserver's
// in ways no client can rely on: kube prints a bad struct as its
// internal Go value, pointers as addresses, and reports resource names
// in map order, where Setpoint sorts them.
var oracleDiffers = map[string]bool{"seccomp profiles": true, "no escalation yet privileged": true, "overhead": true}

// TestPodSpecOracle sends each pod case to a real kube-apiserver v1.33
// (a dry-run create; see /work/shared/perf/oracle) and compares its
// causes, "field: message" with the bad values as printed, with this
// package's answer to the same pod. Run with -tags oracle and
// ORACLE_URL, ORACLE_TOKEN, ORACLE_CA set.
func TestPodSpecOracle(t *testing.T) {
	server, token, caFile := os.Getenv("ORACLE_URL"), os.Getenv("ORACLE_TOKEN"), os.Getenv("ORACLE_CA")
	if server == "" || token == "" || caFile == "" {
		t.Skip("ORACLE_URL, ORACLE_TOKEN and ORACLE_CA name no kube-apiserver")
	}
	ca, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	for _, group := range oracleCases {
		for _, tt := range group {
			if oracleDiffers[tt.name] {
				continue
			}
			pod := basicPod()
			pod.Namespace = "default"
			// The oracle runs without ServiceAccount admission.
			pod.Spec.ServiceAccountName = "default"
			tt.mutate(pod)
			pod.Kind, pod.APIVersion = "Pod", "v1"
			body, err := json.Marshal(pod)
			if err != nil {
				t.Fatal(err)
			}
			req, err := http.NewRequest("POST", server+"/api/v1/namespaces/default/pods?dryRun=All", bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+token)
			req.Header.Set("Content-Type", "application/json")
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			// A create that passes answers the pod, a refused one a Status.
			var st metav1.Status
			if resp.StatusCode >= 300 {
				err = json.NewDecoder(resp.Body).Decode(&st)
			}
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			if resp.StatusCode >= 300 {
				if st.Details == nil {
					got = append(got, fmt.Sprint(resp.StatusCode, " ", st.Message))
				} else {
					for _, c := range st.Details.Causes {
						got = append(got, c.Field+": "+c.Message)
					}
				}
			}
			mine := basicPod()
			mine.Spec.ServiceAccountName = "default"
			tt.mutate(mine)
			_, errs := createPod(t, mine)
			var want []string
			for _, e := range errs {
				want = append(want, e.Field+": "+e.ErrorBody())
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s:\nkube-apiserver\n%q\nsetpoint\n%q", tt.name, got, want)
			}
		}
	}
}
