#!/bin/bash
# Regenerates the golden files from a running kube-apiserver v1.33 (the oracle,
# /work/shared/perf/oracle/README.md, started with WITH_KCM=0 so the aggregation
# controller has not filled admin/edit/view). The golden is what the apiserver's
# RBAC post-start hook wrote on a fresh etcd, minus the fields the server sets.
#   WITH_KCM=0 /tmp/oracle/start.sh && KUBECONFIG=/tmp/oracle/kubeconfig ./dump.sh
set -euo pipefail
cd "$(dirname "$0")"
# Only what the hook writes: other clients of a shared oracle add their own.
sel=kubernetes.io/bootstrapping=rbac-defaults
dump() { # kind file
  local kind=$1 file=$2
  kubectl get "$kind" -l "$sel" -o json | jq -r '
    [.items[]
     | del(.metadata.uid, .metadata.resourceVersion, .metadata.creationTimestamp, .metadata.managedFields)]
    | sort_by(.metadata.namespace // "", .metadata.name)
    | map(tojson) | "[\n" + join(",\n") + "\n]"' >"$file"
}
dump clusterroles clusterroles.json
dump clusterrolebindings clusterrolebindings.json
# kube-system and kube-public are the only namespaces the hook writes to.
jq_ns() { kubectl get "$1" -n "$2" -l "$sel" -o json; }
for kind in roles rolebindings; do
  { jq_ns "$kind" kube-system; jq_ns "$kind" kube-public; } | jq -s -r '
    [.[].items[]
     | del(.metadata.uid, .metadata.resourceVersion, .metadata.creationTimestamp, .metadata.managedFields)]
    | sort_by(.metadata.namespace, .metadata.name)
    | map(tojson) | "[\n" + join(",\n") + "\n]"' >"$kind.json"
done
